"""``kafka-meta analyze`` on broker log segments: told apart by content, read through the log source."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from log_support import LOGS, SAMPLE

from kafka_meta.inputs import classify
from kafka_meta.log import read_log
from kafka_meta.spark.job import Progress, run


def kinds(path) -> set[str]:
    sources, _ = classify(str(path))
    return {s.kind for s in sources}


def test_detected_by_content(tmp_path):
    assert kinds(LOGS) == {"log"}
    assert kinds(LOGS / "__consumer_offsets-1") == {"log"}
    segment = LOGS / "__consumer_offsets-2" / "00000000000000000000.log"
    renamed = tmp_path / "evidence.bin"
    renamed.write_bytes(segment.read_bytes())
    assert kinds(renamed) == {"log"}  # whatever its name
    assert kinds(SAMPLE) == {"jsonl"}
    text = tmp_path / "server.log"
    text.write_text("[2026-01-01 00:00:00,000] INFO starting (kafka.server.KafkaServer)\n")
    sources, unreadable = classify(str(text))
    assert not sources and "text, but not JSON Lines" in str(unreadable[0])  # a broker's own log is no input
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"key": [bytes(20)] * 50, "value": [b"\x00\x01" * 40] * 50}), tmp_path / "rows.parquet")
    assert kinds(tmp_path / "rows.parquet") == {"parquet"}
    cut = tmp_path / "00000000000000000000.log"  # one batch cut off by a crash: its name says what it is
    cut.write_bytes(segment.read_bytes()[:40])
    assert kinds(cut) == {"log"}
    cut.rename(tmp_path / "cut.bin")
    sources, unreadable = classify(str(tmp_path / "cut.bin"))
    assert not sources and str(unreadable[0]).startswith(str(tmp_path / "cut.bin"))


def test_report_on_a_log_directory(spark, tmp_path, monkeypatch):
    lines: list[str] = []
    monkeypatch.chdir(tmp_path.parent)  # a relative output: the writing workers are told where it is
    report = run(spark, str(LOGS), output=tmp_path.name, progress=Progress(lines.append))
    rows = list(read_log(LOGS))
    good = [r for r in rows if r["_error"] is None and not r["control"]]
    assert sum(report.records.values()) + sum(report.unknown_types.values()) == len(good) + 2  # + 2 markers
    assert report.records["control COMMIT"] == 1 and report.records["control ABORT"] == 1
    # the reader's damage is listed with its place, as the readers without Spark list it; no record failed
    assert report.errors == 0 and len(report.damage) == 2 and all("CRC-32C mismatch" in s for s in report.damage)
    assert all("__consumer_offsets-3/00000000000000000000.log, byte " in s for s in report.damage)
    assert {"billing", "checkout", "ledger", "audit"} <= set(report.groups)
    assert report.groups["billing"].committed_partitions == 5
    offsets = spark.read.parquet(str(tmp_path / "offsets"))
    assert offsets.count() == len(rows)  # rows in = rows out, damage included
    assert "_damage" not in offsets.columns


def test_the_python_workers_write_what_sparks_writer_writes(spark, tmp_path):
    """A log's offsets/ and groups/ are written by the Python workers as they read (kafka_meta.spark.
    offsets_writer), for a local output; elsewhere by Spark's writer. Both hold the same rows, columns and
    numbering, and the report is the same: over two inputs, damage, transaction markers, group records of
    every kind, and a segment of another internal topic (no rows)."""
    import shutil

    more = tmp_path / "more"
    shutil.copytree(LOGS / "__consumer_offsets-2", more / "__consumer_offsets-2")
    shutil.copytree(LOGS / "__consumer_offsets-1", more / "__transaction_state-0")
    inputs = [str(LOGS), str(more)]
    direct = run(spark, inputs, output=str(tmp_path / "direct"), progress=Progress(lambda _: None))
    by_spark = run(spark, inputs, output=f"file://{tmp_path}/spark", progress=Progress(lambda _: None))
    assert not (tmp_path / "direct" / "offsets" / "_SUCCESS").exists()  # not Spark's writer
    assert (tmp_path / "spark" / "offsets" / "_SUCCESS").exists()
    assert {**direct.to_json(), "output": None} == {**by_spark.to_json(), "output": None}
    assert sum(direct.records.values()) > 100 and direct.damage and direct.groups
    for table in ("offsets", "groups", "members"):
        ours = spark.read.parquet(str(tmp_path / "direct" / table))
        theirs = spark.read.parquet(str(tmp_path / "spark" / table))
        assert ours.schema == theirs.schema, table
        assert ours.count() == theirs.count() > 0, table
        assert ours.exceptAll(theirs).count() == 0 and theirs.exceptAll(ours).count() == 0, table
    numbers = [r._order for r in spark.read.parquet(str(tmp_path / "direct" / "offsets")).select("_order").collect()]
    assert len(set(numbers)) == len(numbers)
