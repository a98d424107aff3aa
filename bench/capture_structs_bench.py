"""What struct bodies cost the kafka-meta-capture Spark source, against the JSON text it gave before.

Times, in one run, the per-exchange work of the source's reader on the executors (no Spark: the rows a
partition yields), over every exchange of the fixture captures (fixtures/captures/pcap):

* the body columns alone, from exchanges decoded once beforehand: JSON text (option ``bodies=json``)
  against struct rows (the default, every value checked against its derived type);
* a whole file read into the Arrow batches a partition yields (containers, TCP, decoding, the body
  columns, Arrow), for both options, on cfk_storm.pcap;
* with ``--spark``, the source in local Spark (two cores), written to Spark's ``noop`` sink so Spark's
  handling of the rows (wide, mostly-null structs against one string) is counted too: every fixture
  capture listed ``--copies`` times (many small partitions: Spark's per-task costs, which grow with the
  schema, weigh), then two captures of ``--mb`` MB (cfk_storm repeated as bench/capture_bench.py does).

Prints microseconds per exchange and the ratio to JSON text. Run: ``python bench/capture_structs_bench.py``
[--spark] [--copies 8] [--mb 3]`` (seconds; a minute with Spark), under the shared benchmark lock.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import timed

from kafka_meta.capture import read_capture
from kafka_meta.protocol import BODIES
from kafka_meta.protocol.member_metadata import clear_cache
from kafka_meta.spark.sources.capture import arrow_schema, exchange_rows, json_bodies, row_batches, struct_bodies

PCAP = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "pcap"
STORM = PCAP / "cfk_storm.pcap"


def noop_writes(spark: object, files: list[str], rows: int, title: str) -> None:
    """Each option's rows written to Spark's noop sink: best of two after a warm-up."""
    print(f"{title}: {len(files)} files, {rows} rows, written to the noop sink (best of 2)")
    base = None
    for label, bodies in (("JSON text (bodies=json)", "json"), ("structs (default)", "struct")):
        df = spark.read.format("kafka-meta-capture").option("bodies", bodies).load(files)  # type: ignore[attr-defined]
        df.write.format("noop").mode("overwrite").save()  # warm-up: Python workers, compiled converters
        best = float("inf")
        for _ in range(2):
            start = time.perf_counter()
            df.write.format("noop").mode("overwrite").save()
            best = min(best, time.perf_counter() - start)
        base = base or best
        print(f"  {label:<34} {best * 1e6 / rows:8.1f} us/row        {best / base:.2f}")


def spark_pass(copies: int, megabytes: int) -> None:
    from capture_bench import broker_port, build, records

    from kafka_meta.spark import register
    from kafka_meta.spark.session import local_session

    spark = local_session("capture-structs-bench", master="local[2]")
    register(spark)
    small = [str(p) for p in sorted(PCAP.iterdir()) if p.is_file()] * copies
    rows = spark.read.format("kafka-meta-capture").load(small).count()
    noop_writes(spark, small, rows, "Spark local[2], many small files (per-task costs weigh)")
    with tempfile.TemporaryDirectory() as tmp:
        header, packets = records(STORM)
        big = []
        for i in range(2):
            big.append(str(Path(tmp) / f"storm{i}.pcap"))
            build(Path(big[-1]), megabytes, header, packets, broker_port(packets))
        rows = spark.read.format("kafka-meta-capture").load(big).count()
        noop_writes(spark, big, rows, f"Spark local[2], two {megabytes} MB captures (cfk_storm repeated)")
    spark.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spark", action="store_true", help="also time the source in local Spark")
    parser.add_argument("--copies", type=int, default=8, help="times each fixture capture is listed (Spark)")
    parser.add_argument("--mb", type=int, default=3, help="size of each of the two big captures (Spark)")
    args = parser.parse_args()
    exchanges = [ex.to_dict() for path in sorted(PCAP.iterdir()) if path.is_file() for ex in read_capture(path)]
    n = len(exchanges)
    struct_bodies(exchanges[0])  # the converters are compiled once per process: not part of the rows' cost

    def columns(convert):
        return lambda: [convert(d) for d in exchanges]

    print(f"body columns of {n} exchanges (all fixture captures), decoded beforehand")
    base = timed(columns(json_bodies), 1, 5) / n
    print(f"  {'JSON text (bodies=json)':<34} {base:8.1f} us/exchange   1.00")
    us = timed(columns(struct_bodies), 1, 5) / n
    print(f"  {'structs (default)':<34} {us:8.1f} us/exchange   {us / base:.2f}")

    storm = sum(1 for _ in read_capture(STORM))

    def whole(bodies: str):
        def run() -> None:
            BODIES.clear_cache()
            clear_cache()
            for _ in row_batches(exchange_rows(str(STORM), None, bodies), arrow_schema(bodies)):
                pass
        return run

    print(f"a whole file read into Arrow batches: {STORM.name}, {storm} exchanges, decoding caches cleared per pass")
    base = timed(whole("json"), 1, 5) / storm
    print(f"  {'JSON text (bodies=json)':<34} {base:8.1f} us/exchange   1.00")
    us = timed(whole("struct"), 1, 5) / storm
    print(f"  {'structs (default)':<34} {us:8.1f} us/exchange   {us / base:.2f}")
    if args.spark:
        spark_pass(args.copies, args.mb)


if __name__ == "__main__":
    main()
