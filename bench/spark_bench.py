"""Spark throughput of from_kafka_meta against baselines measured in the same run, on the same data.

Run: ``python bench/spark_bench.py [--rows 100000 1000000] [--master local[2]]``. Contenders:

* builtin ``length()``: Spark without Python, the ceiling;
* a pickled Python UDF returning the decoded struct (kafka_meta's bulk decoder, rows pickled one by one);
* the hand-built floor: ``mapInArrow`` with a hand-written ``struct`` decoder, gc paused per batch;
* ``from_kafka_meta``.

Each result is rows/second over a full evaluation (Spark's ``noop`` sink), best of ``--repeat`` runs on
cached input, with ratios to the floor and to the pickled UDF. Targets: from_kafka_meta >= 0.8x the
floor and >= 1.5x the pickled UDF; rows/s should hold from 100k to 1M rows (linear cost).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from subscription import VALUE, VERSION, hand_decode

import kafka_meta as km
from kafka_meta.spark import from_kafka_meta, schema_for
from kafka_meta.spark.batch import paused_gc
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
    args = parser.parse_args()

    spark = (SparkSession.builder.master(args.master).appName("kafka-meta-bench")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.sparkContext.addPyFile(str(Path(__file__).with_name("subscription.py")))  # the floor's decoder
    blob = km.get_format(TYPE).encode(VALUE, VERSION)
    print(f"record: {TYPE} v{VERSION}, {len(blob)} bytes; master {args.master}")
    for rows in args.rows:
        partitions = max(2, spark.sparkContext.defaultParallelism)
        df = spark.range(rows, numPartitions=partitions).select(F.unhex(F.lit(blob.hex())).alias("b")).cache()
        df.count()
        print(f"\n{rows} rows {'rows/s':>44} {'x floor':>9} {'x pickled':>10}")
        results = {}
        for name, frame in contenders(df):
            seconds = run(frame, args.repeat)
            results[name] = rows / seconds
        floor = results["floor: mapInArrow + hand decoder + gc paused"]
        pickled = results["pickled Python UDF"]
        for name, rate in results.items():
            print(f"{name:<46} {rate:>12,.0f} {rate / floor:>9.2f} {rate / pickled:>10.2f}")
        df.unpersist()
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
