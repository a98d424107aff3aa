"""The analyze job: read every input on Spark, write decoded Parquet, and report on the groups in them.

Runs on an embedded local Spark by default (``kafka-meta analyze INPUT``), on a cluster with ``--master``,
or through ``spark-submit`` with this file as the application (see docs/spark.md):

    spark-submit --master yarn kafka_meta/spark/job.py INPUT --output hdfs:///tmp/kafka-meta
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka_meta.analysis import AnalysisReport, analyze_groups, render_text
from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.generations import COMMITS
from kafka_meta.analysis.groups import GROUP_RECORD_TYPES, add_committed
from kafka_meta.analysis.report import ERROR_SAMPLES
from kafka_meta.errors import InputError, KafkaMetaError
from kafka_meta.inputs.topics import topics_holding_offsets
from kafka_meta.log.topics import OFFSETS_TOPIC
from kafka_meta.metadata_log import topic_names
from kafka_meta.offsets import catalog, decode_record
from kafka_meta.spark.inputs import CAPTURE, FORMATS, SEGMENT, Inputs, Planned, plan, read_inputs
from kafka_meta.spark.lag import lag_of
from kafka_meta.spark.offsets_writer import (
    NEWEST,
    RUNS,
    TALLIES,
    TOPICS,
    LogInput,
    direct_write,
    is_local,
    write_offsets,
)
from kafka_meta.spark.sources.log import segments_of
from kafka_meta.spark.tallies import committed_per_group, spark_counts, spark_newest
from kafka_meta.spark.timeline import (
    READ_ORDER,
    Tallied,
    capture_exchanges,
    group_exchanges,
    report_columns,
    timeline_of,
    write_report_html,
)
from kafka_meta.spark.transactions import transactions_report

DAMAGE_LISTED = 10_000  # damaged places listed one by one in the report; beyond, counted


def listed(errors: Any) -> list[str]:
    """The texts of a column of damage, up to :data:`DAMAGE_LISTED` (and how many more)."""
    texts = [r[0] for r in errors.limit(DAMAGE_LISTED + 1).collect()]
    if len(texts) <= DAMAGE_LISTED:
        return texts
    return [*texts[:DAMAGE_LISTED], f"... and {errors.count() - DAMAGE_LISTED} more damaged places"]


class Progress:
    """One line per step, with the time it took: Spark's own progress bar shows the work inside a step."""

    def __init__(self, out: Callable[[str], None] | None = None) -> None:
        self.out = out or (lambda line: print(line, file=sys.stderr, flush=True))
        self.started = time.perf_counter()

    def step(self, what: str) -> None:
        self.out(f"[{time.perf_counter() - self.started:6.1f}s] {what}")


# the offset commits, almost every record of a real log: typed in offsets/, the other records in groups/
COMMIT_TYPES = tuple(catalog()[number].name for number in COMMITS)


def in_groups(offsets: Any) -> Any:
    """The rows of ``offsets/`` whose typed columns are in ``groups/``: records of every type but the commits
    that decoded (not damage, control records, unknown types or records that did not decode)."""
    from pyspark.sql import functions as F

    kept = (F.col("recordType").isNotNull() & ~F.col("recordType").isin(*COMMITS) & ~F.col("unknown")
            & F.col("_error").isNull())
    return F.coalesce(kept, F.lit(False))


def read_decoded(spark: Any, output: str) -> Any:
    """The analyze job's decoded records as one DataFrame with ``decode_offsets``' columns: ``offsets/`` (every
    record, typed as a commit) with the rows of ``groups/`` (every other type's columns) in place of its own."""
    offsets = spark.read.parquet(f"{output}/offsets")
    groups = spark.read.parquet(f"{output}/groups")
    return offsets.where(~in_groups(offsets)).unionByName(groups, allowMissingColumns=True)


def log_inputs(planned: list[Planned]) -> list[LogInput] | None:
    """The inputs of ``__consumer_offsets`` records as broker logs, when every one is (packet captures beside
    them give exchanges, not records), else None."""
    if any(item.kafka or not set(item.by_kind) <= {SEGMENT, CAPTURE} for item in planned):
        return None
    logs = [LogInput(item.name, item.by_kind[SEGMENT]) for item in planned if SEGMENT in item.by_kind]
    return logs or None


def analyze_offsets(offsets: Any, output: str, report: AnalysisReport, progress: Progress, source: str | None = None,
                    exchanges: list[dict[str, Any]] | None = None, names: dict[str, str] | None = None,
                    logs: list[LogInput] | None = None, log_paths: list[str] | None = None) -> None:
    """``offsets``: the records as :func:`read_inputs` gives them decoded, typed as commits (COMMIT_TYPES);
    ``logs``: the same inputs as broker logs, when they all are and the Python workers can write ``output``
    themselves (:mod:`kafka_meta.spark.offsets_writer`: the same rows, without Spark's writer)."""
    from pyspark.sql import functions as F

    from kafka_meta.spark.offsets import added_columns, decode_offsets, explode_members

    progress.step("decoding __consumer_offsets records")
    # every record is decoded once on its way to offsets/ (by the log source as it reads, or by decode_offsets),
    # with its position as read (READ_ORDER: the timeline's log order for rows without an offset) and the
    # columns every record has, typed as a commit (what almost every record of a real log is): a row of all 24
    # record types' columns cost Parquet as much as the decoding. The other records (a rebalance's few) are
    # decoded again from their bytes, into groups/ with every type's columns: by the Python workers as they
    # write, for logs, else from offsets/. The later steps read back only the columns they need, and the
    # reader's rows are never held
    path, spark = f"{output}/offsets", offsets.sparkSession
    if logs is not None:  # the Python workers write both tables as they read, and tally (spark.tallies)
        counts = write_offsets(spark, logs, output, COMMIT_TYPES)
    else:
        offsets.withColumn(READ_ORDER, F.monotonically_increasing_id()).write.mode("overwrite").parquet(path)
        progress.step(f"wrote {path}; decoding the group records into {output}/groups")
        written = spark.read.parquet(path)
        typed = set(added_columns(COMMIT_TYPES))  # _error stays: the reader's, none on these rows
        decode_offsets(written.where(in_groups(written)).select(*(c for c in written.columns if c not in typed)),
                       control="control").write.mode("overwrite").parquet(f"{output}/groups")
    progress.step("exploding group members")
    groups = spark.read.parquet(f"{output}/groups")
    explode_members(groups.where(F.col("recordType") == 2)).write.mode("overwrite").parquet(f"{output}/members")
    decoded = report_columns(read_decoded(spark, output))
    group_records = report_columns(groups)  # the records the group state and the timeline read: a few
    order = F.col("offset") if "offset" in decoded.columns else F.col(READ_ORDER)

    progress.step("counting, and finding the latest record of each key")
    # the counts by type and each commit key's newest record (kafka_meta.spark.tallies): tallied by the
    # workers as they wrote a log, else two aggregates over the Parquet, each combined before its shuffle. The
    # commits' values are not read; the group records' newest values come from groups/, which holds every
    # group record that decoded
    tallied = None
    if logs is None:
        counts, newest = spark_counts(decoded), spark_newest(decoded, order)
    else:
        newest = spark.read.parquet(f"{output}/{NEWEST}")
        tallied = Tallied(spark.read.parquet(f"{output}/{RUNS}"), read_topics(f"{output}/{TOPICS}"))
    for row in counts:
        if row.damaged:
            continue  # listed with its place below, as the readers without Spark list it
        if row.bad:
            report.errors += row.n
            continue
        if row.unknown:
            report.unknown_types[row.recordType] += row.n
        elif row.recordName:
            report.records[row.recordName] += row.n
        report.tombstones += row.tombstones or 0
        report.read_forward += row.forward or 0
    committed = committed_per_group(newest)
    # in the order the keys were first read, as the readers without Spark give them (a group's members)
    rows = sorted(group_records.where(F.col("recordType").isin(*GROUP_RECORD_TYPES)).groupBy("key")
                  .agg(F.max_by("value", order).alias("value"), F.min(READ_ORDER).alias("_first")).collect(),
                  key=lambda r: r._first)
    records = [decode_record(bytes(r.key), None if r.value is None else bytes(r.value)) for r in rows]
    bad = F.col("_error").isNotNull()
    damaged = F.col("key").isNull() & bad  # a reader's damage: no record at all
    report.damage += listed(decoded.where(damaged).select("_error"))
    report.error_samples += [r._error for r in decoded.where(bad & ~damaged).select("_error").limit(ERROR_SAMPLES)
                             .collect()]
    report.groups = analyze_groups(records)
    add_committed(report.groups, committed)
    report.groups = dict(sorted(report.groups.items()))
    progress.step("building the rebalance timeline")
    report.timeline = timeline_of(decoded, source, exchanges, names, group_records, tallied)
    progress.step(f"working out each group's lag into {output}/lag")
    report.stand(lag_of(spark.read.parquet(path), groups, log_paths or [], report.timeline, output))
    if log_paths:
        progress.step("reading the transactions (__transaction_state, the user topics' open transactions)")
        latest = decoded.agg(F.max("timestamp").alias("t")).collect()[0].t if "timestamp" in decoded.columns else None
        segments = segments_of(log_paths)
        report.timeline.transactions = transactions_report(
            spark, segments, topics_holding_offsets(segments),
            int(latest.timestamp() * 1000) if latest is not None else None, report.timeline.errors)
    shutil.rmtree(f"{output}/{TALLIES}", ignore_errors=True)


def read_topics(path: str) -> dict[str, str]:
    """The topic names the writing tasks tallied (a handful of rows per segment)."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    return dict(zip(table.column("id").to_pylist(), table.column("name").to_pylist(), strict=True))


def report_rows(inputs: Inputs, report: AnalysisReport) -> None:
    """What the row readers could not read, as damage (the readers without Spark's ``problems``): the lines
    that are no JSON object and the rows that are no row the project knows, counted (Spark's readers give no
    line numbers), and each row whose bytes do not read, with its file and why."""
    from kafka_meta.spark.row_inputs import NEITHER_LINES, NEITHER_ROWS

    if inputs.bad_lines:
        report.damage.append(f"{inputs.bad_lines} input line(s) are not JSON objects")
    if inputs.neither_lines:
        report.damage.append(f"{inputs.neither_lines} {NEITHER_LINES}")
    if inputs.neither_rows:
        report.damage.append(f"{inputs.neither_rows} {NEITHER_ROWS}")
    if inputs.damage is not None:
        report.damage += listed(inputs.damage.select("_error"))


def analyze_blobs(blobs: Any, output: str, report: AnalysisReport, progress: Progress) -> None:
    """Captured payloads, decoded per type into ``payloads/<type>``; one whose text is not bytes (its
    ``_error``, from the row reader) is damage, listed with its place, as the readers without Spark list it."""
    from pyspark.sql import functions as F

    from kafka_meta.api import types
    from kafka_meta.spark.functions import from_kafka_meta

    if "_error" in blobs.columns:
        unread = F.col("_error").isNotNull()
        report.damage += listed(blobs.where(unread).select("_error"))
        blobs = blobs.where(~unread).drop("_error")
    names = [r.type for r in blobs.select("type").distinct().collect()]
    known = set(types())
    for name in sorted(names):
        subset = blobs.where(F.col("type") == name)
        if name not in known:
            count = subset.count()
            report.blob_errors += count
            report.error_samples.append(f"{count} payload(s) of unknown type {name!r}")
            continue
        progress.step(f"decoding captured {name} payloads")
        decoded = subset.withColumn("decoded", from_kafka_meta("blob", name)).cache()
        decoded.write.mode("overwrite").parquet(f"{output}/payloads/{name}")
        for row in decoded.groupBy(F.col("decoded._version").alias("v"),
                                   F.col("decoded._error").isNotNull().alias("bad")).count().collect():
            report.blobs[name] += row["count"]
            if row.bad:
                report.blob_errors += row["count"]
            else:
                report.blob_versions.setdefault(name, type(report.records)())[row.v] += row["count"]
        where = F.col("_source") if "_source" in decoded.columns else F.lit(None).cast("string")
        report.error_samples += [f"{r.w + ': ' if r.w else ''}{name} payload: {r.e}" for r in
                                 decoded.where(F.col("decoded._error").isNotNull())
                                 .select(F.col("decoded._error").alias("e"), where.alias("w"))
                                 .limit(ERROR_SAMPLES).collect()]
        decoded.unpersist()


def analyze_exchanges(exchanges: Any, output: str, report: AnalysisReport, progress: Progress) -> None:
    """Captured exchanges: written as Parquet, counted per api and group (the timeline report reads them)."""
    from pyspark.sql import functions as F

    progress.step("decoding packet captures")
    exchanges = exchanges.cache()
    exchanges.write.mode("overwrite").parquet(f"{output}/exchanges")
    progress.step(f"wrote {output}/exchanges; counting exchanges per api and group")
    damaged = F.col("apiKey").isNull() & F.col("_error").isNotNull()  # a reader's damage: no exchange at all
    report.damage += listed(exchanges.where(damaged).select(F.concat_ws(": ", "source.file", "_error")))
    exchanges = exchanges.where(~damaged)
    for row in exchanges.groupBy("apiName", "groupId").count().collect():
        report.exchanges.setdefault(row.apiName or "(unreadable)", type(report.records)())[row.groupId or "-"] += \
            row["count"]
    failed = exchanges.where(F.col("_error").isNotNull())
    report.exchange_errors += failed.count()
    report.error_samples += [f"{r.source.file}: {r._error}" for r in failed.select("_error", "source")
                             .limit(ERROR_SAMPLES).collect()]
    exchanges.unpersist()


def run(spark: Any, source: str | list[str], fmt: str = "auto", output: str = "kafka-meta-out",
        bootstrap_servers: str | None = None, progress: Progress | None = None,
        captures: list[str] | None = None) -> AnalysisReport:
    """The job on one input or several (any mix of the kinds :mod:`kafka_meta.spark.inputs` reads)."""
    sources = [source] if isinstance(source, str) else list(source)
    source = ", ".join(sources)
    progress = progress or Progress()
    progress.step(f"Spark master {spark.sparkContext.master}; reading {source}")
    planned = plan(sources, fmt)
    inputs: Inputs = read_inputs(spark, sources, fmt, bootstrap_servers, planned, decode=True,
                                 record_types=COMMIT_TYPES)
    logs = log_inputs(planned[0]) if direct_write(spark, output) else None
    report = AnalysisReport(output=output, unreadable=[str(u) for u in inputs.unreadable])
    # a local output as the driver resolves it: the JVM's and the Python workers' working directories need
    # not be the driver's, and the report files beside the Parquet are written by the driver
    output = os.path.abspath(output) if is_local(output) else output
    exchanges: list[dict[str, Any]] = []
    if captures:
        progress.step(f"reading the group exchanges of {', '.join(captures)}")
        exchanges, problems = capture_exchanges(spark, captures)
        report.error_samples += problems[:ERROR_SAMPLES]
    report_rows(inputs, report)
    if inputs.exchanges is not None:
        inputs.exchanges = inputs.exchanges.cache()  # read once: for the timeline, then the Parquet and counts
        progress.step("collecting the group exchanges of the captures")
        exchanges += group_exchanges(inputs.exchanges)[0]
        analyze_exchanges(inputs.exchanges, output, report, progress)
    if inputs.offsets is not None:
        names = topic_names([row.asDict() for row in inputs.topics.collect()]) if inputs.topics is not None else {}
        log_paths = [path for item in planned[0] for path in item.by_kind.get(SEGMENT, [])]
        analyze_offsets(inputs.offsets, output, report, progress, source, exchanges, names, logs, log_paths)
    elif exchanges:
        report.timeline = build_timeline(exchanges)
    if inputs.blobs is not None:
        analyze_blobs(inputs.blobs, output, report, progress)
    progress.step("done")
    return report


def write_report(report: AnalysisReport, output: str) -> None:
    if "://" not in output:  # local output: keep the report beside the Parquet
        Path(output).mkdir(parents=True, exist_ok=True)
        if report.timeline is not None:  # first: the summary lists the outputs that exist
            write_report_html(report, Path(output) / "report.html")
        (Path(output) / "report.json").write_text(json.dumps(report.to_json(), indent=2) + "\n")
        (Path(output) / "report.txt").write_text(render_text(report) + "\n")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="*", help="one or more of: a JSON Lines file, a Parquet file or directory, "
                                                 "packet captures (pcap/pcapng, a file or a directory), broker log "
                                                 "segments (a segment, partition or log directory), "
                                                 "kafka://host:port[/topic]; with --format kafka, topics "
                                                 f"(default {OFFSETS_TOPIC})")
    parser.add_argument("--format", choices=FORMATS, default="auto",
                        help="read every input as this kind (default: each file recognised by its content)")
    parser.add_argument("--output", default="kafka-meta-out", help="where decoded Parquet goes (default: "
                                                                 "./kafka-meta-out)")
    parser.add_argument("--master", help="Spark master URL (default: embedded local[*], or spark-submit's)")
    parser.add_argument("--bootstrap-server", "--bootstrap-servers", dest="bootstrap_servers", metavar="HOST:PORT",
                        help="read a cluster's topics through Spark's Kafka source (--format kafka; each input is "
                             "then a topic, __consumer_offsets by default), committed records only, from the earliest "
                             "offset; Spark's Kafka connector is fetched from Maven Central on first use")
    parser.add_argument("--capture", action="append", default=[], metavar="PCAP",
                        help="packet captures (files or directories) whose rebalances join the timeline")


def check_output(output: str) -> None:
    """A local ``--output`` must be a directory that can be made or written, checked before Spark starts."""
    if "://" in output:
        return
    path = Path(output)
    if path.exists() and not path.is_dir():
        raise InputError(f"--output {output}: exists and is not a directory")
    parent = next((p for p in (path, *path.parents) if p.exists()), Path("."))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--output {output}: {parent} is not writable")


MASTER = re.compile(r"^(local(\[(\*|\d+)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn|"
                    r"(spark|k8s|mesos)://\S+)$")


def check_master(master: str | None) -> None:
    """The master URL forms Spark accepts, checked before a JVM is started for nothing."""
    if master is not None and not MASTER.match(master):
        raise InputError(f"--master {master}: not a Spark master URL (local[*], local[N], spark://host:port, "
                         "yarn, k8s://...)")


def spark_failure(error: BaseException) -> str:
    """Spark's error in one line: its first line, without the JVM stack that follows."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else 'no message'}"


def execute(args: argparse.Namespace, session: Any = None) -> int:
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    from kafka_meta.spark.session import local_session

    def fail(message: str, code: int) -> int:
        print(f"kafka-meta analyze: {message}", file=sys.stderr)
        return code

    sources = [args.input] if isinstance(args.input, str) else list(args.input)
    if not sources and args.format == "kafka":
        sources = [OFFSETS_TOPIC]  # a cluster's groups: what the coordinators wrote
    if not sources:
        return fail("no input given (files, directories, kafka://host:port, or --format kafka)", 2)
    try:
        planned, unreadable = plan(sources, args.format)
        captured, unreadable_captures = plan(getattr(args, "capture", None) or [], "capture")
        check_output(args.output)
        check_master(args.master)
    except KafkaMetaError as e:
        return fail(str(e), 2)
    if not planned and not captured:  # nothing at all to read: said before Spark starts
        return fail("no input could be read: " + "; ".join(str(u) for u in unreadable + unreadable_captures), 1)
    try:
        spark = session or local_session("kafka-meta analyze", master=args.master, progress=True)
    except (PySparkException, Py4JError, OSError) as e:
        return fail(f"Spark did not start (master {args.master or 'local[*]'}): {spark_failure(e)}", 1)
    try:
        report = run(spark, sources, args.format, args.output, args.bootstrap_servers,
                     captures=[c for item in captured for paths in item.by_kind.values() for c in paths])
        report.unreadable += [str(u) for u in unreadable_captures]
        write_report(report, args.output)
    except KafkaMetaError as e:  # what an input holds: the command line was checked before Spark started
        return fail(str(e), 1)
    except (PySparkException, Py4JError) as e:
        return fail(f"Spark failed reading or writing {', '.join(sources)}: {spark_failure(e)}", 1)
    print(render_text(report))
    return 0 if report.read_everything else 1  # 1: something could not be read (listed in the report)


def main(argv: list[str] | None = None) -> int:
    """Entry point for ``spark-submit kafka_meta/spark/job.py ...`` and ``python -m kafka_meta.spark.job``."""
    parser = argparse.ArgumentParser(prog="kafka-meta-analyze", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    session = None
    if args.master is None and submitted_master() is not None:
        from pyspark.sql import SparkSession

        session = SparkSession.builder.getOrCreate()  # keep spark-submit's master, not the embedded local[*]
    return execute(args, session)


def submitted_master() -> str | None:
    """The master ``spark-submit`` started this process with, or None when run directly.

    spark-submit starts the JVM first and hands Python its gateway (``PYSPARK_GATEWAY_PORT``); only then can
    Python read the JVM's settings. Run directly, no JVM is started here: the embedded session starts its
    own, with its options.
    """
    if "PYSPARK_GATEWAY_PORT" not in os.environ:
        return None
    from pyspark import SparkConf, SparkContext

    SparkContext._ensure_initialized()
    return SparkConf().get("spark.master", None)


if __name__ == "__main__":
    sys.exit(main())
