"""How each record's transaction ended reaches every Spark face, from a real broker's log directory
(``fixtures/lab/transactions-hanging``: committed, aborted and open transactional offset commits): the log source,
the JSON Lines and Parquet rows ``kafka-meta log`` writes read back, ``decode_offsets`` (which keeps a row's own
columns), and the analyze job's ``offsets/`` whichever writer wrote it; an aborted commit is visibly aborted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from cli_support import run as run_cli

from kafka_meta.log import read_log
from kafka_meta.spark.inputs import read_inputs
from kafka_meta.spark.job import Progress, run
from kafka_meta.spark.offsets import decode_offsets

LAB = Path(__file__).resolve().parent.parent / "fixtures" / "lab" / "transactions-hanging" / "kafka-logs"
OFFSETS = sorted(LAB.glob("__consumer_offsets-*"))


def expected() -> dict[tuple[int, int], tuple[int, str | None]]:
    """(partition, offset) -> (producerId, transaction) of every record of the recording's __consumer_offsets,
    as the reader without Spark labels them; the recording holds all three outcomes."""
    rows = [r for path in OFFSETS for r in read_log(path) if r["_error"] is None]
    found = {(r["partition"], r["offset"]): (r["producerId"], r["transaction"]) for r in rows}
    assert {t for _, t in found.values()} >= {"committed", "aborted", "open"}
    return found


def labels(frame) -> dict[tuple[int, int], tuple[int, str | None]]:
    return {(r.partition, r.offset): (r.producerId, r.transaction)
            for r in frame.select("partition", "offset", "producerId", "transaction").collect()}


def test_json_lines_and_parquet_of_log_rows_keep_each_records_transaction(spark, tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    code, lines, _ = run_cli(capsys, ["log", *map(str, OFFSETS)])
    assert code == 0
    jsonl = tmp_path / "records.jsonl"
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rows = [r for path in OFFSETS for r in read_log(path)]
    parquet = tmp_path / "records.parquet"
    pq.write_table(pa.table({name: [r[name] for r in rows] for name in
                             ("key", "value", "topic", "partition", "offset", "control", "producerId",
                              "transaction")}), parquet)
    want = expected()
    for path in (jsonl, parquet):
        offsets = read_inputs(spark, [str(path)]).offsets
        assert dict(offsets.dtypes)["transaction"] == "string"
        # a record of no transaction says none (JSON Lines leave the fields out of its line)
        assert {k: (-1 if p is None else p, t) for k, (p, t) in labels(offsets).items()} == want, path
        decoded = decode_offsets(offsets, control="control")
        aborted = decoded.where("transaction = 'aborted' AND recordName = 'OffsetCommit'").count()
        assert aborted == sum(1 for r in rows if r["transaction"] == "aborted" and not r["control"])
        assert labels(decoded) == labels(offsets)  # decode_offsets keeps both columns as they are


def test_decode_offsets_keeps_the_log_sources_transaction(spark):
    from kafka_meta.spark import register

    register(spark)
    decoded = decode_offsets(spark.read.format("kafka-meta-log").load([str(p) for p in OFFSETS]), control="control")
    assert labels(decoded) == expected()
    markers = decoded.where("control").select("recordName", "transaction").collect()
    assert {(m.recordName, m.transaction) for m in markers} == {("control COMMIT", "committed"),
                                                                 ("control ABORT", "aborted")}


@pytest.mark.parametrize("writer", ["workers", "spark"])
def test_the_analyze_jobs_offsets_table_says_each_records_transaction(spark, tmp_path, writer):
    """``offsets/`` as the Python workers write it (a local output) and as Spark's writer does (a URL)."""
    output = str(tmp_path / "out") if writer == "workers" else f"file://{tmp_path}/out"
    run(spark, [str(LAB)], output=output, progress=Progress(lambda _: None))
    assert (tmp_path / "out" / "offsets" / "_SUCCESS").exists() == (writer == "spark")
    offsets = spark.read.parquet(str(tmp_path / "out" / "offsets"))
    assert dict(offsets.dtypes)["transaction"] == "string" and offsets.columns.index("transaction") == \
        offsets.columns.index("producerId") + 1
    assert labels(offsets.where("topic = '__consumer_offsets' AND _error IS NULL")) == expected()
    groups = spark.read.parquet(str(tmp_path / "out" / "groups"))
    assert "transaction" in groups.columns
