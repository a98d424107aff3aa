"""Spark throughput of from_kafka_meta and decode_offsets against baselines measured in the same run.

Run: ``python bench/spark_bench.py [--rows 100000 1000000] [--master local[2]] [--contest payloads offsets
offsets-batches]`` (``offsets-batches``: the offsets contest without Spark, the decoding alone).
Payload contenders (a consumer subscription v1, see subscription.py):

* builtin ``length()``: Spark without Python, the ceiling;
* a pickled Python UDF returning the decoded struct (kafka_meta's bulk decoder, rows pickled one by one);
* the hand-built floor: ``mapInArrow`` with a hand-written ``struct`` decoder, gc paused per batch;
* ``from_kafka_meta``.

Each result is rows/second over a full evaluation (Spark's ``noop`` sink), best of ``--repeat`` runs on
cached input, with ratios to the floor and to the pickled UDF. Targets: from_kafka_meta >= 1.5x the
floor and >= 1.5x the pickled UDF; rows/s should hold from 100k to 1M rows (linear cost).

Offsets contenders (nine OffsetCommit v3 records to one consumer GroupMetadata v3, see offsets_records.py):
builtin ``length()`` of the value, the row path (every record a dict, one Arrow conversion: what
decode_offsets did before going columnar), the hand-built floor (``mapInArrow`` with a hand-written
``struct`` decoder giving the same rows, checked equal before timing) and ``decode_offsets``. Target:
decode_offsets >= 1.5x the floor.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pyarrow as pa
from offsets_records import COMMITS_PER_GROUP_RECORD, hand_row, records
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from subscription import VALUE, VERSION, hand_decode

import kafka_meta as km
from kafka_meta.spark import from_kafka_meta, schema_for
from kafka_meta.spark.batch import paused_gc
from kafka_meta.spark.offsets import decode_batch, decode_offsets, decode_rows, record_columns
from kafka_meta.spark.schema import message_row_type

TYPE = "ConsumerProtocolSubscription"


def hand_rows(batch: pa.RecordBatch, row_type: pa.StructType) -> pa.RecordBatch:
    """The floor: the hand-written decoder, renamed to the output's field names, gc paused."""
    with paused_gc():
        rows = []
        for blob in batch.column(0).to_pylist():
            d = hand_decode(blob)
            rows.append({"topics": d["topics"], "userData": d["user_data"], "ownedPartitions": d["owned_partitions"],
                         "generationId": -1, "rackId": None, "_version": 1, "_error": None})
        return pa.RecordBatch.from_arrays([pa.array(rows, type=row_type)], names=["s"])


def contenders(df: DataFrame) -> list[tuple[str, Callable[[], DataFrame]]]:
    row_type = message_row_type(km.model(TYPE))
    spark_schema = schema_for(TYPE)

    def floor(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield hand_rows(batch, row_type)

    def pickled(blob: bytes) -> dict:
        value, version = km.decode_plain(TYPE, blob)
        return {"topics": value["topics"], "userData": value["user_data"],
                "ownedPartitions": value["owned_partitions"], "generationId": value["generation_id"],
                "rackId": value["rack_id"], "_version": version, "_error": None}

    pickled_udf = F.udf(pickled, spark_schema, useArrow=False)
    out_schema = f"s {spark_schema.simpleString()}"
    return [
        ("builtin length()", lambda: df.select(F.length("b").alias("s"))),
        ("pickled Python UDF", lambda: df.select(pickled_udf("b").alias("s"))),
        ("floor: mapInArrow + hand decoder + gc paused", lambda: df.mapInArrow(floor, out_schema)),
        ("from_kafka_meta", lambda: df.select(from_kafka_meta("b", TYPE).alias("s"))),
    ]


def hand_offsets(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The offsets floor: the hand-written record decoder, gc paused, one Arrow conversion."""
    with paused_gc():
        keys, values = batch.column(0).to_pylist(), batch.column(1).to_pylist()
        rows = [hand_row(k, v) for k, v in zip(keys, values, strict=True)]
        return pa.RecordBatch.from_arrays([*batch.columns, pa.array(rows, type=record_columns())],
                                          names=["key", "value", "r"])


def offsets_contenders(df: DataFrame) -> list[tuple[str, Callable[[], DataFrame]]]:
    from pyspark.sql.functions import arrow_udf

    from kafka_meta.spark.schema import spark_type

    columns = spark_type(record_columns())
    rows_udf = arrow_udf(lambda k, v: decode_rows(k, v), columns)

    def floor(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield hand_offsets(batch)

    out_schema = f"key binary, value binary, r {columns.simpleString()}"
    return [
        ("builtin length()", lambda: df.select(F.length("value").alias("s"))),
        ("row path: a dict per record (arrow_udf)", lambda: df.select("*", rows_udf("key", "value").alias("r"))),
        ("floor: mapInArrow + hand decoder + gc paused", lambda: df.mapInArrow(floor, out_schema)),
        ("decode_offsets", lambda: decode_offsets(df)),
    ]


def check_offsets_floor() -> None:
    """The floor gives decode_offsets' rows exactly (else the contest would not be fair)."""
    (ck, cv), (gk, gv) = records()
    keys, values = pa.array([ck, gk], pa.binary()), pa.array([cv, gv], pa.binary())
    batch = pa.RecordBatch.from_arrays([keys, values], names=["key", "value"])
    floor = hand_offsets(batch).column(2)
    assert floor.equals(decode_rows(keys, values)), "the hand-built offsets floor differs from decode_offsets"


def offsets_frame(spark: SparkSession, rows: int, partitions: int) -> DataFrame:
    (ck, cv), (gk, gv) = records()
    group = F.col("id") % (COMMITS_PER_GROUP_RECORD + 1) == COMMITS_PER_GROUP_RECORD
    return spark.range(rows, numPartitions=partitions).select(
        F.when(group, F.unhex(F.lit(gk.hex()))).otherwise(F.unhex(F.lit(ck.hex()))).alias("key"),
        F.when(group, F.unhex(F.lit(gv.hex()))).otherwise(F.unhex(F.lit(cv.hex()))).alias("value"))


def offsets_batches(rows: int, repeat: int) -> None:
    """The offsets contest without Spark: one worker's decoding of 10,000-record Arrow batches alone."""
    (ck, cv), (gk, gv) = records()
    pairs = ([(ck, cv)] * COMMITS_PER_GROUP_RECORD + [(gk, gv)]) * (10_000 // (COMMITS_PER_GROUP_RECORD + 1))
    keys, values = pa.array([k for k, _ in pairs], pa.binary()), pa.array([v for _, v in pairs], pa.binary())
    batch = pa.RecordBatch.from_arrays([keys, values], names=["key", "value"])
    frames = [("row path: a dict per record", lambda: decode_rows(keys, values)),
              ("floor: hand decoder + gc paused", lambda: hand_offsets(batch)),
              ("decode_offsets' batch decoder", lambda: decode_batch(keys, values))]
    print(f"\ndecode_offsets without Spark: {rows} rows in batches of {len(pairs)} {'rows/s':>10} {'x floor':>9}")
    results = {}
    for name, fn in frames:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(max(1, rows // len(pairs))):
                fn()
            best = min(best, time.perf_counter() - start)
        results[name] = max(1, rows // len(pairs)) * len(pairs) / best
    for name, rate in results.items():
        print(f"{name:<46} {rate:>12,.0f} {rate / results['floor: hand decoder + gc paused']:>9.2f}")


def contest(title: str, df: DataFrame, rows: int, frames: list[tuple[str, Callable[[], DataFrame]]], repeat: int,
            floor: str, second: str) -> None:
    df.count()
    print(f"\n{title}: {rows} rows {'rows/s':>28} {'x floor':>9} {'x ' + second.split()[0]:>10}")
    results = {}
    for name, frame in frames:
        results[name] = rows / run(frame, repeat)
    for name, rate in results.items():
        print(f"{name:<46} {rate:>12,.0f} {rate / results[floor]:>9.2f} {rate / results[second]:>10.2f}")
    df.unpersist()


def run(frame: Callable[[], DataFrame], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        frame().write.format("noop").mode("overwrite").save()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--contest", nargs="+", choices=["payloads", "offsets", "offsets-batches"],
                        default=["payloads", "offsets", "offsets-batches"])
    args = parser.parse_args()

    if args.contest == ["offsets-batches"]:
        for rows in args.rows:
            offsets_batches(rows, args.repeat)
        return 0
    spark = (SparkSession.builder.master(args.master).appName("kafka-meta-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for helper in ("subscription.py", "offsets_records.py"):  # the floors' decoders
        spark.sparkContext.addPyFile(str(Path(__file__).with_name(helper)))
    partitions = max(2, spark.sparkContext.defaultParallelism)
    floor = "floor: mapInArrow + hand decoder + gc paused"
    print(f"master {args.master}, {partitions} partitions, best of {args.repeat}")
    if "payloads" in args.contest:
        blob = km.get_format(TYPE).encode(VALUE, VERSION)
        print(f"payloads: {TYPE} v{VERSION}, {len(blob)} bytes")
        for rows in args.rows:
            df = spark.range(rows, numPartitions=partitions).select(F.unhex(F.lit(blob.hex())).alias("b")).cache()
            contest("from_kafka_meta", df, rows, contenders(df), args.repeat, floor, "pickled Python UDF")
    if "offsets" in args.contest:
        check_offsets_floor()
        print(f"offsets: {COMMITS_PER_GROUP_RECORD} OffsetCommit v3 to 1 GroupMetadata v3 (2 consumer members)")
        for rows in args.rows:
            df = offsets_frame(spark, rows, partitions).cache()
            contest("decode_offsets", df, rows, offsets_contenders(df), args.repeat, floor,
                    "row path: a dict per record (arrow_udf)")
    spark.stop()
    if "offsets-batches" in args.contest:
        for rows in args.rows:
            offsets_batches(rows, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
