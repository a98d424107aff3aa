"""Spark throughput of from_kafka_meta and decode_offsets against baselines measured in the same run.

Run: ``python bench/spark_bench.py [--rows 200000] [--master local[2]] [--repeat 7] [--contest payloads offsets
offsets-batches]`` (``offsets-batches``: the offsets contest without Spark, the decoding alone).
Payload contenders (a consumer subscription v1, see subscription.py):

* builtin ``length()``: Spark without Python, the ceiling;
* a pickled Python UDF returning the decoded struct (kafka_meta's bulk decoder, rows pickled one by one);
* no decoding: ``mapInArrow`` (as the floor) or ``arrow_udf`` (as from_kafka_meta) yielding the output rows
  decoded beforehand, what Spark and the Arrow transfer cost with the decoding taken away (the part of each
  row's time no decoder can shorten);
* the hand-built floor: ``mapInArrow`` with a hand-written ``struct`` decoder, gc paused per batch;
* ``from_kafka_meta``.

Offsets contenders (nine OffsetCommit v3 records to one consumer GroupMetadata v3, see offsets_records.py):
builtin ``length()`` of the value, the row path (every record a dict, one Arrow conversion: what
decode_offsets did before going columnar), no decoding (as above, the ``arrow_udf`` one with decode_offsets'
projection of the struct's fields), the hand-built floor (``mapInArrow``
with a hand-written ``struct`` decoder giving decode_offsets' columns, same names and types) and
``decode_offsets``.

Every contender runs on the same cached input into Spark's ``noop`` sink. Before timing, the floor's
rows are checked equal to kafka_meta's, through Spark, on a sample of the output. Each contender is run
once to warm up, then the contenders take turns ``--repeat`` times (so a change of the machine's load
hits them alike); the table gives the median rows/s, the spread of the runs ((slowest - fastest) /
median), and the ratio to the floor of the medians and the range of the per-turn ratios. Targets:
from_kafka_meta and decode_offsets >= 1.5x their floors.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pyarrow as pa
from offsets_records import COMMITS_PER_GROUP_RECORD, hand_row, records
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.functions import arrow_udf
from subscription import VALUE, VERSION, hand_decode

import kafka_meta as km
from kafka_meta.spark import from_kafka_meta, schema_for
from kafka_meta.spark.batch import batch_decoder, paused_gc
from kafka_meta.spark.offsets import decode_batch, decode_offsets, decode_rows, record_columns
from kafka_meta.spark.schema import message_row_type, spark_type

TYPE = "ConsumerProtocolSubscription"
FLOOR = "floor: mapInArrow + hand decoder + gc paused"
NO_DECODING = "no decoding: mapInArrow, rows made beforehand"
NO_DECODING_UDF = "no decoding: arrow_udf, rows made beforehand"
BATCH_ROWS = 10_000  # Spark's spark.sql.execution.arrow.maxRecordsPerBatch, unless --batch-rows says otherwise


def hand_rows(batch: pa.RecordBatch, row_type: pa.StructType) -> pa.RecordBatch:
    """The floor: the hand-written decoder, renamed to the output's field names, gc paused."""
    with paused_gc():
        rows = []
        for blob in batch.column(0).to_pylist():
            d = hand_decode(blob)
            rows.append({"topics": d["topics"], "userData": d["user_data"], "ownedPartitions": d["owned_partitions"],
                         "generationId": -1, "rackId": None, "_version": 1, "_error": None})
        return pa.RecordBatch.from_arrays([pa.array(rows, type=row_type)], names=["s"])


def contenders(df: DataFrame, blob: bytes, batch_rows: int) -> list[tuple[str, Callable[[], DataFrame]]]:
    row_type = message_row_type(km.model(TYPE))
    spark_schema = schema_for(TYPE)
    made = batch_decoder(TYPE)(pa.array([blob] * batch_rows, pa.binary()))  # shipped to the workers in the closure

    def floor(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield hand_rows(batch, row_type)

    def no_decoding(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield pa.RecordBatch.from_arrays([made.slice(0, batch.num_rows)], names=["s"])

    def pickled(blob: bytes) -> dict:
        value, version = km.decode_plain(TYPE, blob)
        return {"topics": value["topics"], "userData": value["user_data"],
                "ownedPartitions": value["owned_partitions"], "generationId": value["generation_id"],
                "rackId": value["rack_id"], "_version": version, "_error": None}

    pickled_udf = F.udf(pickled, spark_schema, useArrow=False)
    made_udf = arrow_udf(lambda blobs: made.slice(0, len(blobs)), spark_schema)
    out_schema = f"s {spark_schema.simpleString()}"
    return [
        ("builtin length()", lambda: df.select(F.length("b").alias("s"))),
        ("pickled Python UDF", lambda: df.select(pickled_udf("b").alias("s"))),
        (NO_DECODING, lambda: df.mapInArrow(no_decoding, out_schema)),
        (NO_DECODING_UDF, lambda: df.select(made_udf("b").alias("s"))),
        (FLOOR, lambda: df.mapInArrow(floor, out_schema)),
        ("from_kafka_meta", lambda: df.select(from_kafka_meta("b", TYPE).alias("s"))),
    ]


def hand_offsets(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The offsets floor: the hand-written record decoder, gc paused, one Arrow conversion, its struct's
    fields as columns beside the record's key and value (decode_offsets' output)."""
    with paused_gc():
        keys, values = batch.column(0).to_pylist(), batch.column(1).to_pylist()
        rows = [hand_row(k, v) for k, v in zip(keys, values, strict=True)]
        decoded = pa.array(rows, type=record_columns())
        return pa.RecordBatch.from_arrays([*batch.columns, *decoded.flatten()],
                                          names=["key", "value", *(f.name for f in record_columns())])


def offsets_contenders(df: DataFrame, batch_rows: int) -> list[tuple[str, Callable[[], DataFrame]]]:
    columns = spark_type(record_columns())
    rows_udf = arrow_udf(lambda k, v: decode_rows(k, v), columns)
    keys, values = pattern(batch_rows)
    decoded = decode_batch(keys, values)  # shipped to the workers in the closures
    made = decoded.flatten()
    made_udf = arrow_udf(lambda k, v: decoded.slice(0, len(k)), columns)

    def floor(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield hand_offsets(batch)

    def no_decoding(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield pa.RecordBatch.from_arrays([*batch.columns, *(c.slice(0, batch.num_rows) for c in made)],
                                             names=["key", "value", *(f.name for f in record_columns())])

    out_schema = "key binary, value binary, " + ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in columns)
    return [
        ("builtin length()", lambda: df.select(F.length("value").alias("s"))),
        ("row path: a dict per record (arrow_udf)", lambda: df.select("*", rows_udf("key", "value").alias("r"))),
        (NO_DECODING, lambda: df.mapInArrow(no_decoding, out_schema)),
        (NO_DECODING_UDF, lambda: df.select("*", made_udf("key", "value").alias("r")).select("key", "value", "r.*")),
        (FLOOR, lambda: df.mapInArrow(floor, out_schema)),
        ("decode_offsets", lambda: decode_offsets(df)),
    ]


def pattern(rows: int) -> tuple[pa.Array, pa.Array]:
    """Keys and values of ``rows`` records in the contest's mix, as the input frame orders them."""
    (ck, cv), (gk, gv) = records()
    cycle = [(ck, cv)] * COMMITS_PER_GROUP_RECORD + [(gk, gv)]
    pairs = [cycle[i % len(cycle)] for i in range(rows)]
    return pa.array([k for k, _ in pairs], pa.binary()), pa.array([v for _, v in pairs], pa.binary())


def check_same_rows(floor: DataFrame, ours: DataFrame, what: str, sample: int = 40) -> None:
    """The floor gives kafka_meta's rows exactly, names and types too, through Spark (else the contest
    would not be fair)."""
    assert floor.schema == ours.schema, f"{what}: the floor's columns differ from kafka_meta's"
    a, b = floor.take(sample), ours.take(sample)
    assert len(a) == sample and a == b, f"{what}: the floor's rows differ from kafka_meta's"


def offsets_frame(spark: SparkSession, rows: int, partitions: int) -> DataFrame:
    (ck, cv), (gk, gv) = records()
    group = F.col("id") % (COMMITS_PER_GROUP_RECORD + 1) == COMMITS_PER_GROUP_RECORD
    return spark.range(rows, numPartitions=partitions).select(
        F.when(group, F.unhex(F.lit(gk.hex()))).otherwise(F.unhex(F.lit(ck.hex()))).alias("key"),
        F.when(group, F.unhex(F.lit(gv.hex()))).otherwise(F.unhex(F.lit(cv.hex()))).alias("value"))


def offsets_batches(rows: int, repeat: int) -> None:
    """The offsets contest without Spark: one worker's decoding of 10,000-record Arrow batches alone."""
    keys, values = pattern(BATCH_ROWS)
    batch = pa.RecordBatch.from_arrays([keys, values], names=["key", "value"])
    hand = pa.StructArray.from_arrays(hand_offsets(batch).columns[2:], fields=list(record_columns()))
    assert hand.equals(decode_batch(keys, values)), "the hand-built offsets floor differs from decode_offsets"
    floor = "floor: hand decoder + gc paused"
    frames = [("row path: a dict per record", lambda: decode_rows(keys, values)),
              (floor, lambda: hand_offsets(batch)),
              ("decode_offsets' batch decoder", lambda: decode_batch(keys, values))]
    calls = max(1, rows // BATCH_ROWS)

    def once(fn: Callable[[], object]) -> float:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        return time.perf_counter() - start

    times = take_turns([(name, lambda fn=fn: once(fn)) for name, fn in frames], repeat)
    report(f"decode_offsets without Spark: {calls * BATCH_ROWS} rows in batches of {BATCH_ROWS}",
           calls * BATCH_ROWS, times, floor, "row path: a dict per record")


def take_turns(frames: list[tuple[str, Callable[[], float]]], repeat: int) -> dict[str, list[float]]:
    """Seconds of each run: one warm-up run each, then ``repeat`` turns in which every contender runs once."""
    for _, once in frames:
        once()
    times: dict[str, list[float]] = {name: [] for name, _ in frames}
    for _ in range(repeat):
        for name, once in frames:
            times[name].append(once())
    return times


def report(title: str, rows: int, times: dict[str, list[float]], floor: str, second: str) -> None:
    """Median rows/s, spread of the runs, ratio of medians to the floor (and the range of per-turn ratios)."""
    print(f"\n{title}: {rows} rows, {len(times[floor])} turns")
    print(f"{'':<46} {'rows/s':>12} {'spread':>7} {'x floor':>8} {'per turn':>12} {'x ' + second.split()[0]:>8}")
    median = {name: statistics.median(t) for name, t in times.items()}
    for name, t in times.items():
        turns = sorted(f / o for f, o in zip(times[floor], t, strict=True))
        spread = (max(t) - min(t)) / median[name]
        print(f"{name:<46} {rows / median[name]:>12,.0f} {spread:>6.0%} {median[floor] / median[name]:>8.2f} "
              f"{turns[0]:>5.2f}-{turns[-1]:<5.2f} {median[second] / median[name]:>8.2f}")


def contest(title: str, df: DataFrame, rows: int, frames: list[tuple[str, Callable[[], DataFrame]]], repeat: int,
            second: str) -> None:
    df.count()
    times = take_turns([(name, lambda frame=frame: run(frame)) for name, frame in frames], repeat)
    report(title, rows, times, FLOOR, second)
    df.unpersist()


def run(frame: Callable[[], DataFrame]) -> float:
    start = time.perf_counter()
    frame().write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[200_000])
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--batch-rows", type=int, default=BATCH_ROWS, help="Arrow batch size")
    parser.add_argument("--contest", nargs="+", choices=["payloads", "offsets", "offsets-batches"],
                        default=["payloads", "offsets", "offsets-batches"])
    args = parser.parse_args()

    if args.contest == ["offsets-batches"]:
        for rows in args.rows:
            offsets_batches(rows, args.repeat)
        return 0
    spark = (SparkSession.builder.master(args.master).appName("kafka-meta-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(args.batch_rows))
             .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for helper in ("subscription.py", "offsets_records.py"):  # the floors' decoders
        spark.sparkContext.addPyFile(str(Path(__file__).with_name(helper)))
    partitions = max(2, spark.sparkContext.defaultParallelism)
    print(f"master {args.master}, {partitions} partitions, Arrow batches of {args.batch_rows} rows")
    if "payloads" in args.contest:
        blob = km.get_format(TYPE).encode(VALUE, VERSION)
        print(f"payloads: {TYPE} v{VERSION}, {len(blob)} bytes")
        for rows in args.rows:
            df = spark.range(rows, numPartitions=partitions).select(F.unhex(F.lit(blob.hex())).alias("b")).cache()
            frames = contenders(df, blob, args.batch_rows)
            check_same_rows(dict(frames)[FLOOR](), dict(frames)["from_kafka_meta"](), "from_kafka_meta")
            contest("from_kafka_meta", df, rows, frames, args.repeat, "pickled Python UDF")
    if "offsets" in args.contest:
        print(f"offsets: {COMMITS_PER_GROUP_RECORD} OffsetCommit v3 to 1 GroupMetadata v3 (2 consumer members)")
        for rows in args.rows:
            df = offsets_frame(spark, rows, partitions).cache()
            frames = offsets_contenders(df, args.batch_rows)
            check_same_rows(dict(frames)[FLOOR](), dict(frames)["decode_offsets"](), "decode_offsets")
            contest("decode_offsets", df, rows, frames, args.repeat, "row path: a dict per record (arrow_udf)")
    spark.stop()
    if "offsets-batches" in args.contest:
        for rows in args.rows:
            offsets_batches(rows, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
