"""``kafka-meta stream``: a cluster's ``__consumer_offsets`` decoded as it is written, into Parquet.

A Structured Streaming query: Spark's Kafka source (committed records, from the earliest offset on its first
start: :mod:`kafka_meta.spark.kafka_source`), ``decode_offsets`` on every micro-batch (a record that does
not decode is a row with ``_error``, so rows in = rows out), Spark's file sink writing Parquet. The query keeps
its Kafka offsets and the sink's list of written files in ``--checkpoint``: stopped at any point and started
again with the same ``--output`` and ``--checkpoint``, it goes on where the last finished micro-batch ended,
and the sink's log (``OUTPUT/_spark_metadata``) lists each batch's files once, so what Spark reads back from
``--output`` holds every record exactly once. (Files of a batch cut short by a stop are left in the directory
but not in the log: read the output with Spark, ``spark.read.parquet(OUTPUT)``, which follows the log.)

Runs as ``kafka-meta stream``, as ``python -m kafka_meta.spark.stream`` and as a file given to
``spark-submit`` (with ``--packages`` naming the connector: see docs/spark.md).

Exit status, as every verb's (README.md, "Exit status"): 2 for a command line that is wrong (said by
:func:`check_arguments` before a JVM starts), 1 when the cluster cannot be reached within
``--connect-timeout`` or the query fails, 0 otherwise. ``kafka-meta stream`` also asks the cluster for its
ApiVersions before Spark starts (:mod:`kafka_meta.live.reach`), so an address where no broker answers is said
within the timeout without a JVM; run directly, the Kafka clients' own waits are bounded by the same timeout.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.log.topics import OFFSETS_TOPIC

QUERY_NAME = "kafka-meta-stream"
SETTLE_POLL_S = 0.2


@dataclass
class StreamSettings:
    bootstrap_servers: str
    output: str
    checkpoint: str
    topic: str = OFFSETS_TOPIC
    trigger_seconds: float = 10.0
    available_now: bool = False  # what is there now, in as many batches as it takes, then stop
    duration: float | None = None  # stop after this many seconds (None: until interrupted)
    max_offsets_per_trigger: int | None = None
    client_properties: dict[str, str] = field(default_factory=dict)  # Kafka client settings (--command-config)
    connect_timeout_s: float = 30.0  # how long the Kafka clients wait for the cluster (--connect-timeout)


@dataclass
class StreamSummary:
    batches: int  # micro-batches that read something, in this run
    rows_in: int  # records read from Kafka in this run, each written as one row (decode_offsets keeps them all)
    seconds: float


def start_stream(spark: Any, settings: StreamSettings) -> Any:
    """The running query (a ``StreamingQuery``); stop it with ``query.stop()``."""
    from kafka_meta.spark.kafka_settings import use_client_properties, use_connect_timeout
    from kafka_meta.spark.kafka_source import stream_topic
    from kafka_meta.spark.offsets import decode_offsets

    use_client_properties(spark, settings.client_properties)
    use_connect_timeout(spark, settings.connect_timeout_s)
    rows = stream_topic(spark, settings.bootstrap_servers, settings.topic, settings.max_offsets_per_trigger)
    writer = (decode_offsets(rows, control="control").writeStream.format("parquet").outputMode("append")
              .queryName(QUERY_NAME).option("path", settings.output)
              .option("checkpointLocation", settings.checkpoint))
    if settings.available_now:
        writer = writer.trigger(availableNow=True)
    else:
        writer = writer.trigger(processingTime=f"{settings.trigger_seconds} seconds")
    return writer.start()


def stop_between_batches(query: Any, patience_s: float = 60.0) -> None:
    """Stop the query once its current micro-batch (if any) has finished, so a stop at a chosen moment cuts
    no batch short (a cut one would be read again on restart: nothing lost or doubled, only work redone)."""
    deadline = time.monotonic() + patience_s
    while query.isActive and query.status.get("isTriggerActive") and time.monotonic() < deadline:
        time.sleep(SETTLE_POLL_S)
    query.stop()


def run_stream(spark: Any, settings: StreamSettings) -> StreamSummary:
    """Run the query until it has read what there is (``available_now``), ``duration`` has passed, or it is
    interrupted; the query is stopped whatever happens, and its failure, if any, raised. The counts are the
    whole run's, added up from Spark's progress events as they come (a query keeps only its latest ones)."""
    started = time.monotonic()
    counts = _progress_counts(spark)
    query = start_stream(spark, settings)
    try:
        if settings.duration is not None:
            query.awaitTermination(settings.duration)
        else:
            query.awaitTermination()
    finally:
        stop_between_batches(query)
        counts.wait_for_end(str(query.id))
        spark.streams.removeListener(counts)
    batches, rows_in = counts.totals.get(str(query.id), (0, 0))
    return StreamSummary(batches, rows_in, round(time.monotonic() - started, 1))


def _progress_counts(spark: Any) -> Any:
    """A listener adding up, per query, the micro-batches that read something and the records they read (the
    file sink counts no rows of its own); events come in order, so once a query's end is heard every progress
    of it has been."""
    import threading

    from pyspark.sql.streaming import StreamingQueryListener

    class ProgressCounts(StreamingQueryListener):
        def __init__(self) -> None:
            self.totals: dict[str, tuple[int, int]] = {}
            self.ended: dict[str, threading.Event] = {}

        def _ended(self, query_id: str) -> threading.Event:
            return self.ended.setdefault(query_id, threading.Event())

        def onQueryStarted(self, event: Any) -> None:
            self._ended(str(event.id))

        def onQueryProgress(self, event: Any) -> None:
            progress = event.progress
            if progress.numInputRows:
                batches, rows_in = self.totals.get(str(progress.id), (0, 0))
                self.totals[str(progress.id)] = (batches + 1, rows_in + progress.numInputRows)

        def onQueryIdle(self, event: Any) -> None:
            pass

        def onQueryTerminated(self, event: Any) -> None:
            self._ended(str(event.id)).set()

        def wait_for_end(self, query_id: str, patience_s: float = 30.0) -> None:
            self._ended(query_id).wait(patience_s)

    counts = ProgressCounts()
    spark.streams.addListener(counts)
    return counts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bootstrap-server", dest="bootstrap_servers", required=True, metavar="HOST:PORT",
                        help="the cluster to read")
    parser.add_argument("--output", required=True, metavar="DIR", help="where the decoded Parquet goes")
    parser.add_argument("--checkpoint", required=True, metavar="DIR",
                        help="the query's checkpoint: the same one on every run of one --output")
    parser.add_argument("--topic", default=OFFSETS_TOPIC, help="the topic to read (default: __consumer_offsets)")
    parser.add_argument("--trigger-seconds", type=float, default=10.0, metavar="N",
                        help="start a micro-batch every N seconds (default: 10)")
    parser.add_argument("--available-now", action="store_true",
                        help="read what the topic holds now (in as many micro-batches as it takes), then stop")
    parser.add_argument("--duration", type=float, metavar="S", help="stop after S seconds (default: run until "
                                                                      "interrupted, or with --available-now, done)")
    parser.add_argument("--max-offsets-per-trigger", type=int, metavar="N",
                        help="read at most N records per micro-batch")
    parser.add_argument("--command-config", metavar="FILE",
                        help="Java client properties (security.protocol, sasl.*, ssl.*) as Kafka's tools take them, "
                             "each passed to Spark's Kafka source as kafka.<property>")
    parser.add_argument("--master", help="Spark master URL (default: embedded local[*], or spark-submit's)")
    parser.add_argument("--connect-timeout", type=float, default=30.0, metavar="S",
                        help="how long to keep trying to reach the cluster at first (default 30)")


def settings_of(args: argparse.Namespace, client_properties: dict[str, str] | None = None) -> StreamSettings:
    return StreamSettings(args.bootstrap_servers, args.output, args.checkpoint, args.topic, args.trigger_seconds,
                          args.available_now, args.duration, args.max_offsets_per_trigger,
                          client_properties or {}, getattr(args, "connect_timeout", 30.0))


def check_arguments(args: argparse.Namespace) -> dict[str, str]:
    """The command line's mistakes, said before a JVM starts for nothing (a KafkaMetaError: exit status 2); the
    client settings of ``--command-config``."""
    from kafka_meta.errors import InputError
    from kafka_meta.protocol.servers import bootstrap_servers
    from kafka_meta.spark.job import check_master
    from kafka_meta.spark.kafka_settings import read_client_properties

    bootstrap_servers(args.bootstrap_servers, "--bootstrap-server")
    positive = {"--trigger-seconds": args.trigger_seconds, "--duration": args.duration,
                "--max-offsets-per-trigger": args.max_offsets_per_trigger,
                "--connect-timeout": getattr(args, "connect_timeout", None)}
    for option, value in positive.items():
        if value is not None and value <= 0:
            raise InputError(f"{option} must be positive")
    check_master(args.master)
    command_config = getattr(args, "command_config", None)
    return read_client_properties(command_config) if command_config else {}


def execute(args: argparse.Namespace, session: Any = None) -> int:
    """The verb: a session with the connector (unless given one), the query, one line of what it did."""
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    from kafka_meta.errors import KafkaMetaError
    from kafka_meta.spark.job import spark_failure
    from kafka_meta.spark.session import local_session

    def fail(message: str, code: int) -> int:
        print(f"kafka-meta stream: {message}", file=sys.stderr)
        return code

    try:  # said before a JVM starts for nothing
        client = check_arguments(args)
    except KafkaMetaError as error:
        return fail(str(error), 2)
    try:
        spark = session or local_session("kafka-meta stream", master=args.master, kafka=True)
    except (PySparkException, Py4JError, OSError) as error:  # the connector not fetched, the master not there
        return fail(f"Spark did not start with its Kafka connector (see Ivy's lines above): "
                    f"{spark_failure(error)}", 1)
    try:
        summary = run_stream(spark, settings_of(args, client))
    except KafkaMetaError as error:  # the cluster refused the login or did not answer in time
        return fail(str(error), 1)
    except KeyboardInterrupt:
        return fail("interrupted; the query was stopped and goes on from its checkpoint when started again", 130)
    except (PySparkException, Py4JError) as error:
        return fail(f"the query failed: {spark_failure(error)}", 1)
    print(f"kafka-meta stream: {summary.rows_in} record(s) read and written in {summary.batches} micro-batch(es), "
          f"{summary.seconds} s; output {args.output}, checkpoint {args.checkpoint}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point for ``spark-submit kafka_meta/spark/stream.py ...`` and ``python -m kafka_meta.spark.stream``:
    under spark-submit, its session (and its ``--packages``) is used as it is."""
    from kafka_meta.spark.job import submitted_master

    parser = argparse.ArgumentParser(prog="kafka-meta-stream", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    session = None
    if args.master is None and submitted_master() is not None:
        from pyspark.sql import SparkSession

        session = SparkSession.builder.getOrCreate()
    return execute(args, session)


if __name__ == "__main__":
    sys.exit(main())
