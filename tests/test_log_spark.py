"""``spark.read.format("kafka-meta-log")`` on a real local Spark: every record, damage rows, decode_offsets."""

from __future__ import annotations

from collections import Counter

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from log_support import LOGS, copy_partition, entries
from pyspark.sql import functions as F

from kafka_meta.log import read_log
from kafka_meta.offsets import decode_record
from kafka_meta.spark import register
from kafka_meta.spark.offsets import decode_offsets


@pytest.fixture(scope="module")
def spark_log(spark):
    register(spark)
    return spark


def test_same_rows_as_the_python_reader(spark_log, tmp_path):
    directory = copy_partition(tmp_path, 0)
    path = directory / "00000000000000000020.log"
    data = bytearray(path.read_bytes())
    pos, _ = entries(bytes(data))[1]
    data[pos + 30] ^= 0x40  # a CRC mismatch in the second segment: the commit marker at offset 24
    path.write_bytes(bytes(data))
    df = spark_log.read.format("kafka-meta-log").load(str(tmp_path))
    assert df.rdd.getNumPartitions() == 2  # one per segment file
    rows = sorted(df.collect(), key=lambda r: (r.offset is None, r.offset))
    expected = sorted(read_log(tmp_path), key=lambda r: (r["offset"] is None, r["offset"]))
    assert len(rows) == len(expected) == 39 - 1 + 1
    for row, want in zip(rows, expected, strict=True):
        assert (row.topic, row.partition, row.offset, row.timestampType, row.control, row._error) == (
            want["topic"], want["partition"], want["offset"], want["timestampType"], want["control"], want["_error"])
        assert (row.producerId, row.transaction) == (want["producerId"], want["transaction"])
        assert (None if row.key is None else bytes(row.key)) == want["key"]
        assert (None if row.value is None else bytes(row.value)) == want["value"]
        if want["_error"] is None:
            assert int(row.timestamp.timestamp() * 1000) == want["timestamp"]
            assert [(h.key, bytes(h.value)) for h in row.headers] == [(h["key"], h["value"]) for h in want["headers"]]
    damaged = [r for r in rows if r._error]
    assert len(damaged) == 1 and damaged[0].offset == 24 and str(path) in damaged[0]._error
    assert "offsets 24..24: CRC-32C mismatch" in damaged[0]._error


def test_a_task_finds_the_marker_of_its_transactions_in_a_later_segment(spark_log, tmp_path):
    """Producer 4000's transaction is moved to the end of the partition's first segment, its COMMIT marker left
    at the start of the second: the first segment's task reads the second's headers for it, and says what
    read_log says (and a transaction left without a marker is open in both)."""
    directory = copy_partition(tmp_path, 0)
    first, second = directory / "00000000000000000000.log", directory / "00000000000000000020.log"
    data = second.read_bytes()
    (pos, size), *_ = entries(data)  # the transaction's records (20..23), then its marker (24)
    first.write_bytes(first.read_bytes() + data[pos:pos + size])
    second.unlink()
    (directory / "00000000000000000024.log").write_bytes(data[pos + size:])
    df = spark_log.read.format("kafka-meta-log").load(str(tmp_path))
    told = {r.offset: (r.producerId, r.transaction) for r in df.collect() if r._error is None}
    expected = {r["offset"]: (r["producerId"], r["transaction"]) for r in read_log(tmp_path) if r["_error"] is None}
    assert told == expected
    assert [told[offset] for offset in (20, 23, 24, 25, 29)] == [(4000, "committed")] * 3 + [(4000, "aborted")] * 2
    assert told[0] == (-1, None)


def test_decode_offsets_takes_the_rows_unchanged(spark_log):
    df = spark_log.read.format("kafka-meta-log").load(str(LOGS))
    decoded = decode_offsets(df.drop("_error").where(F.col("key").isNotNull()), control="control")
    counts = {r.recordName: r["count"] for r in decoded.groupBy("recordName").count().collect()}
    expected = Counter()
    for row in read_log(LOGS):
        if row["_error"] is None:
            record = decode_record(row["key"], row["value"], control=row["control"])
            name = getattr(record, "record_name", None)
            expected[f"control {record.marker}" if row["control"] else name] += 1
    assert counts == dict(expected) and counts["control COMMIT"] == 1 and counts["GroupMetadata"] >= 4
    assert decoded.where(F.col("_error").isNotNull()).count() == 0


@pytest.mark.parametrize("types", ["all", "OffsetCommit,LegacyOffsetCommit"])
def test_decoding_as_read_gives_what_decode_offsets_gives(spark_log, tmp_path, types):
    """decodeOffsets: the source decodes each row as it reads it, into exactly the columns and values the
    decode_offsets UDF gives on the source's plain rows, damage rows keeping the reader's own _error."""
    directory = copy_partition(tmp_path, 0)
    path = directory / "00000000000000000020.log"
    data = bytearray(path.read_bytes())
    pos, _ = entries(bytes(data))[1]
    data[pos + 30] ^= 0x40  # a damaged batch: its row's _error is the reader's
    path.write_bytes(bytes(data))
    plain = spark_log.read.format("kafka-meta-log").load([str(tmp_path), str(LOGS)])
    as_read = spark_log.read.format("kafka-meta-log").option("decodeOffsets", types).load([str(tmp_path), str(LOGS)])
    record_types = None if types == "all" else types.split(",")
    by_udf = decode_offsets(plain, control="control", record_types=record_types)
    assert as_read.schema == by_udf.schema  # the same columns, in the same order, of the same types
    columns = [c for c in by_udf.columns if c not in ("headers", "timestamp")]  # compared in the test above

    def rows(frame):
        return sorted(frame.select(F.to_json(F.struct(*columns)).alias("j")).collect())

    got = rows(as_read)
    assert got == rows(by_udf) and len(got) > 39
    damage = [r._error for r in plain.where(F.col("_error").isNotNull()).collect()]
    assert any(str(path) in e for e in damage)
    assert sorted(r._error for r in as_read.where(F.col("key").isNull()).collect()) == sorted(damage)
    assert ("groupMetadata" in as_read.columns) == (types == "all")
    with pytest.raises(Exception, match="unknown record type"):
        spark_log.read.format("kafka-meta-log").option("decodeOffsets", "Bogus").load(str(LOGS)).collect()


def test_options_and_bad_paths(spark_log, tmp_path):
    df = (spark_log.read.format("kafka-meta-log").option("fromOffset", "30").option("maxBatchBytes", "100")
          .load(str(LOGS / "__consumer_offsets-0")))
    rows = df.collect()
    assert [r.offset for r in rows] == [30, 34, 38]  # two batches over the limit, one record read
    assert [bool(r._error) for r in rows] == [True, True, False] and "limit of 100 bytes" in rows[0]._error
    with pytest.raises(Exception, match="no log segments"):
        spark_log.read.format("kafka-meta-log").load(str(tmp_path)).collect()
