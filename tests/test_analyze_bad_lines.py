"""One bad line costs ``kafka-meta analyze`` that line only: JSON Lines holding every kind of bad line the
readers know, beside good lines, are read to the end; each bad line is reported with its reason, as
``kafka-meta report`` reports it; the good rows are all in the output; the exit status says something could
not be read; and no Java stack reaches the terminal."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from kafka_meta.inputs import read
from kafka_meta.inputs.items import NEITHER

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "fixtures" / "captures" / "capture.jsonl"
GOOD = SAMPLE.read_text().splitlines()
KEY = json.loads(GOOD[0])["key"]
BAD = [
    "not json at all",  # not JSON
    '{"key": "0001", "value": ',  # cut off
    "[1, 2]",  # JSON, an array
    '[{"key": "0001"}]',  # an array of a record (Spark's JSON reader made it a row)
    "42",  # JSON, a number
    '"0001"',  # JSON, a string
    '{"a": 1}',  # JSON, but no row the project knows
    '{"type": "ConsumerProtocolSubscription"}',  # a payload's type without its bytes
    '{"topic": "__consumer_offsets", "partition": 0, "offset": 3, "_error": "CRC-32C mismatch"}',  # `log`'s damage
    '{"key": "!!!notbase64", "value": null}',  # a record whose key is neither hex nor base64
    json.dumps({"key": KEY, "value": "zz!"}),  # ... whose value is not
    '{"key": "abcde", "value": null}',  # ... whose key is odd hex (and no base64)
    '{"type": "ConsumerProtocolSubscription", "hex": "0g"}',  # a payload whose hex is bad
    '{"type": "ConsumerProtocolAssignment", "base64": "QQ="}',  # ... whose base64 is
    '{"subscription": "xyz!", "member": "m"}',  # a member with bad bytes
]
# good lines Spark's own JSON reader refused or skipped: a key twice (the last one counts, as in Python)
EXTRA_GOOD = [json.dumps({"key": KEY, "value": None})[:-1] + f', "key": "{KEY}"}}', "# a comment", "   "]


def test_every_kind_of_bad_line_is_reported_and_the_rest_analyzed(spark, tmp_path, capfd):
    from kafka_meta.spark.job import execute

    lines = []
    for n, good in enumerate(GOOD):
        lines.append(good)
        if n < len(BAD):
            lines.append(BAD[n])
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([*lines, *BAD[len(GOOD):], *EXTRA_GOOD]) + "\n")
    plain = read([str(path)])  # the same file without Spark: what every other verb reads of it
    out = tmp_path / "out"
    capfd.readouterr()
    code = execute(argparse.Namespace(input=[str(path)], format="auto", output=str(out), master=None,
                                      bootstrap_servers=None), spark)
    stdout, stderr = capfd.readouterr()
    assert code == 1, stderr  # some lines could not be read: they are listed, the rest reported
    for trace in ("at org.apache", "Py4JJavaError", "Traceback", "Exception"):
        assert trace not in stderr and trace not in stdout, trace

    report = json.loads((out / "report.json").read_text())
    # each row whose bytes do not read, with its field and reason, as the reader without Spark says it (it
    # names the line too: Spark's reader gives no line numbers, so the job names the file)
    said = sorted(p.split(": ", 1)[1] for p in plain.problems if " in '" in p)
    listed = sorted(p.removeprefix(f"{path}: ") for p in report["problems"] if " in '" in p)
    assert listed == said and len(said) == 6
    # the other bad lines, counted: as many as the reader without Spark lists one by one
    counted = {p.split(" ", 1)[1]: int(p.split(" ", 1)[0]) for p in report["problems"] if " in '" not in p}
    assert counted == {"input line(s) are not JSON objects": 6, f"input line(s) are {NEITHER}": 3}
    assert sum(counted.values()) == len([p for p in plain.problems if " in '" not in p]) == 9

    # the good rows are all there, and the records whose text is not bytes keep their rows: rows in = rows out
    offsets = spark.read.parquet(str(out / "offsets"))
    assert offsets.count() == len(plain.offsets) + 3
    assert sorted(bytes(r.key) for r in offsets.where("key IS NOT NULL").select("key").collect()) == sorted(
        bytes.fromhex(r["key"]) for r in plain.offsets)
    unread = [r._error for r in offsets.where("key IS NULL").select("_error").collect()]
    assert len(unread) == 3 and all(e.startswith(f"{path}: neither hex nor base64 in '") for e in unread)
    assert sum(report["records"].values()) + sum(report["unknownRecordTypes"].values()) == len(plain.offsets)
    payloads = sum(spark.read.parquet(str(p)).count() for p in (out / "payloads").iterdir())
    assert payloads == len(plain.payloads) == sum(report["blobs"].values())
    assert "damage read around" in stdout
