"""``kafka-meta analyze`` end to end on local Spark: the bundled capture, Parquet in Kafka-source shape, CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from kafka_meta.cli.main import main
from kafka_meta.spark.job import Progress, run

CAPTURE = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "capture.jsonl"
ROWS = [json.loads(line) for line in CAPTURE.read_text().splitlines()]
OFFSET_ROWS = [r for r in ROWS if "key" in r]
PAYLOAD_ROWS = [r for r in ROWS if "type" in r]


@pytest.fixture(scope="module")
def capture_report(spark, tmp_path_factory):
    output = tmp_path_factory.mktemp("analyze")
    lines: list[str] = []
    report = run(spark, str(CAPTURE), output=str(output), progress=Progress(lines.append))
    return report, output, lines


def test_every_row_lands_in_parquet(spark, capture_report):
    _, output, _ = capture_report
    offsets = spark.read.parquet(str(output / "offsets"))
    assert offsets.count() == len(OFFSET_ROWS)
    assert offsets.where("recordName = 'GroupMetadata'").count() == 4
    payloads = sum(spark.read.parquet(str(p)).count() for p in (output / "payloads").iterdir())
    assert payloads == len(PAYLOAD_ROWS)
    members = spark.read.parquet(str(output / "members"))
    assert members.count() == 8 and "decoded" in members.columns


def test_offsets_are_typed_as_commits_and_the_group_records_fully(spark, capture_report):
    """offsets/ keeps every record with the header columns and the commit types' columns only; groups/ has
    every other record that decoded, with all of decode_offsets' columns: read back together they are what
    decode_offsets gives on the same rows, column for column."""
    from pyspark.sql import functions as F

    from kafka_meta.spark.job import read_decoded
    from kafka_meta.spark.offsets import decode_offsets

    _, output, _ = capture_report
    offsets, groups = (spark.read.parquet(str(output / part)) for part in ("offsets", "groups"))
    assert {"offsetCommit", "legacyOffsetCommit", "recordName", "groupId"} <= set(offsets.columns)
    assert not {"groupMetadata", "members", "consumerGroupMemberMetadata"} & set(offsets.columns)
    others = offsets.where(~F.col("recordType").isin(0, 1) & ~F.col("unknown") & F.col("_error").isNull())
    assert groups.count() == others.count() > 4 and groups.where("recordName = 'GroupMetadata'").count() == 4
    nested = groups.where(F.col("members").isNotNull()).select(F.sum(F.size("members"))).first()[0]
    assert nested == spark.read.parquet(str(output / "members")).count() == 8
    together = read_decoded(spark, str(output))
    assert together.count() == len(OFFSET_ROWS)
    rows = [(bytearray.fromhex(r["key"]), None if r["value"] is None else bytearray.fromhex(r["value"]),
             r["partition"], r["offset"]) for r in OFFSET_ROWS]
    direct = decode_offsets(spark.createDataFrame(rows, "key binary, value binary, partition int, offset long"))
    columns = [c for c in direct.columns if c not in ("key", "value")]

    def by_place(frame):
        return {(r.partition, r.offset): r.decoded for r in frame.select(
            "partition", "offset", F.to_json(F.struct(*columns)).alias("decoded")).collect()}

    assert by_place(together) == by_place(direct)


def test_report_facts(capture_report):
    report, _, progress = capture_report
    assert report.records["OffsetCommit"] == 13 and report.records["GroupMetadata"] == 4
    assert report.unknown_types == {99: 1} and report.errors == 0 and report.tombstones == 2
    assert report.blob_errors == 3 and report.blob_versions["SubscriptionInfo"] == {11: 1}
    assert report.groups["audit"].conflicts and report.groups["word-count"].mixed_versions
    assert report.groups["word-count"].explanation
    assert report.groups["orders"].committed_partitions == 5
    assert any("decoding __consumer_offsets" in line for line in progress)
    assert progress[0].endswith(f"Spark master local[2]; reading {CAPTURE}")


def test_cli_prints_the_report_and_writes_it(spark, tmp_path, capsys):
    code = main(["analyze", str(CAPTURE), "--output", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 1  # the sample's damaged payloads could not be read: listed in the report, and 1
    assert "needs attention: audit, word-count" in out
    assert "ownership conflict: audit-1 is assigned to auditor-b while auditor-a still owns it" in out
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    assert saved["groups"]["word-count"]["streams"]["usedVersions"] == {"10": 2, "11": 1}


def test_parquet_in_kafka_source_shape(spark, tmp_path):
    rows = [(bytearray.fromhex(r["key"]), None if r["value"] is None else bytearray.fromhex(r["value"]),
             "__consumer_offsets", r["partition"], r["offset"]) for r in OFFSET_ROWS]
    df = spark.createDataFrame(rows, "key binary, value binary, topic string, partition int, offset long")
    df.write.parquet(str(tmp_path / "in.parquet"))
    report = run(spark, str(tmp_path / "in.parquet"), fmt="parquet", output=str(tmp_path / "out"),
                 progress=Progress(lambda line: None))
    assert sum(report.records.values()) == len(OFFSET_ROWS) - 1  # all but the unknown type 99
    assert set(report.groups) == {"orders", "audit", "word-count", "checkout"}


def test_missing_input_is_a_clear_error(tmp_path, capsys):
    code = main(["analyze", str(tmp_path / "absent.jsonl"), "--output", str(tmp_path / "out")])
    assert code == 2 and "absent.jsonl" in capsys.readouterr().err


@pytest.mark.spark  # Spark in a process of its own: no spark fixture to mark it
def test_console_script_from_a_bare_environment(tmp_path):
    """The quick start: the installed script, not run from an activated environment; Spark's workers must
    still find kafka_meta's packages (they use the driver's interpreter)."""
    import os
    import subprocess
    import sys

    script = Path(sys.executable).with_name("kafka-meta")
    if not script.exists():
        pytest.skip("the kafka-meta console script is not installed")
    env = {"HOME": os.environ.get("HOME", str(tmp_path)), "PATH": "/usr/local/bin:/usr/bin:/bin"}
    for name in ("JAVA_HOME", "LANG"):
        if name in os.environ:
            env[name] = os.environ[name]
    result = subprocess.run([str(script), "analyze", str(CAPTURE), "--output", str(tmp_path / "out")], env=env,
                            capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 1, result.stderr[-2000:]  # the sample's damaged payloads: listed, and 1
    assert "needs attention: audit, word-count" in result.stdout


@pytest.mark.spark  # Spark in a process of its own: no spark fixture to mark it
def test_spark_submit_runs_the_job_file(tmp_path):
    """The cluster path of docs/spark.md, on a local master: spark-submit with kafka_meta/spark/job.py."""
    import shutil
    import subprocess
    import sys

    from kafka_meta.spark import job

    submit = Path(sys.executable).with_name("spark-submit")
    submit = submit if submit.exists() else shutil.which("spark-submit")
    if submit is None:
        pytest.skip("spark-submit is not installed")
    result = subprocess.run([str(submit), "--master", "local[1]", job.__file__, str(CAPTURE), "--output",
                             str(tmp_path / "out")], capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 1, result.stderr[-2000:]  # the sample's damaged payloads: listed, and 1
    # spark-submit's master, not the embedded default (its Python runner merges the script's stderr into stdout)
    assert "Spark master local[1];" in result.stdout + result.stderr
    assert "needs attention: audit, word-count" in result.stdout
    assert (tmp_path / "out" / "report.json").exists()


def test_the_embedded_jvm_gets_a_heap_for_the_machine(monkeypatch):
    """A quarter of the machine's memory, between 1 and 16 GB, unless SPARK_DRIVER_MEMORY names one: Spark's
    1 GB default ran out in the newest-record aggregation on a 1 GB log directory."""
    from kafka_meta.spark.session import HEAP_MAX_MB, HEAP_MIN_MB, embedded_heap

    monkeypatch.delenv("SPARK_DRIVER_MEMORY", raising=False)
    heap = embedded_heap()
    assert heap.endswith("m") and HEAP_MIN_MB <= int(heap[:-1]) <= HEAP_MAX_MB
    total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
    assert int(heap[:-1]) == max(HEAP_MIN_MB, min(HEAP_MAX_MB, total_mb // 4))
    monkeypatch.setenv("SPARK_DRIVER_MEMORY", "3g")
    assert embedded_heap() == "3g"
