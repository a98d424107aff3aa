"""``kafka-meta analyze``: the main job (needs the ``spark`` extra).

Everything that can be said without Spark is said before a JVM starts: a path that does not exist (exit status
2, as for every verb; what the inputs hold is the job's to read, 1 when some of it could not be), a Kafka input
without an address, and, for Kafka inputs, a cluster that does not answer its ApiVersions within
``--connect-timeout`` (:mod:`kafka_meta.live.reach`; 1, in the line ``watch`` and ``stream`` end with). The
same timeout then bounds the waits of Spark's Kafka clients (:mod:`kafka_meta.spark.kafka_settings`)."""

from __future__ import annotations

import argparse
import importlib.util
from typing import Any

from kafka_meta.cli.needs_spark import without_spark
from kafka_meta.cli.output import fail


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("analyze", help="read captures, log directories, JSON Lines or Parquet on Spark: "
                                       "decoded Parquet, a report and the rebalance timeline",
                       description="""Read every input (packet captures, log segments and log directories, JSON
                                   Lines, Parquet, or directories of them, told apart by content) on Spark
                                   (embedded local Spark unless --master is given), write decoded Parquet under
                                   --output, and print a report: groups, protocol types, assignors, members,
                                   metadata versions in use, upgrades in progress, ownership conflicts, unknown
                                   record types, errors.""")
    try:
        if importlib.util.find_spec("pyspark") is None:
            raise ImportError("pyspark")
        from kafka_meta.spark.job import add_arguments
    except ImportError:  # PySpark missing: the command still explains how to get it
        without_spark(p, "analyze needs Spark: pip install 'kafka-meta[spark]'")
        return
    add_arguments(p)
    p.add_argument("--command-config", metavar="FILE",
                   help="with a Kafka input: Java client properties (security.protocol, sasl.*, ssl.*) as Kafka's "
                        "tools take them, each passed to Spark's Kafka source as kafka.<property>")
    p.add_argument("--connect-timeout", type=float, default=30.0, metavar="S",
                   help="with a Kafka input: how long to keep trying to reach the cluster at first (default 30)")
    p.set_defaults(run=run_analyze)


def reads_kafka(args: argparse.Namespace) -> bool:
    """Whether any input is a Kafka topic: only then does Spark need its Kafka connector."""
    return args.format == "kafka" or any(name.startswith("kafka://") for name in args.input)


def run_analyze(args: argparse.Namespace) -> int:
    from kafka_meta.cli.status import PROBLEM, require_paths
    from kafka_meta.spark.job import OFFSETS_TOPIC, execute

    if not args.input and args.format == "kafka":
        args.input = [OFFSETS_TOPIC]  # a cluster's groups: what the coordinators wrote
    if args.connect_timeout <= 0:
        return fail("analyze: --connect-timeout must be positive")
    files = [name for name in args.input if not (args.format == "kafka" or name.startswith("kafka://"))]
    require_paths(files + list(args.capture))  # a typo is the command line's, said before a JVM starts
    if not reads_kafka(args):
        if args.command_config:
            return fail("analyze: --command-config is for Kafka inputs (--format kafka, kafka://host:port)")
        return execute(args)
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    from kafka_meta.errors import KafkaMetaError
    from kafka_meta.live.reach import check_reachable
    from kafka_meta.spark.inputs import kafka_address
    from kafka_meta.spark.job import check_master, spark_failure
    from kafka_meta.spark.kafka_settings import read_client_properties, use_client_properties, use_connect_timeout
    from kafka_meta.spark.session import local_session

    try:  # said before a JVM starts and fetches the connector for nothing
        check_master(args.master)
        clusters = list(dict.fromkeys(kafka_address(name, args.bootstrap_servers)[0] for name in args.input
                                      if args.format == "kafka" or name.startswith("kafka://")))
        client = read_client_properties(args.command_config) if args.command_config else {}
    except KafkaMetaError as error:
        return fail(f"analyze: {error}")
    for servers in clusters:  # UnreachableAtStart: exit status 1, as watch and stream
        check_reachable(servers, args.connect_timeout, client.get("security.protocol", "PLAINTEXT"))
    try:  # the connector goes on the classpath as the session starts: a running one cannot take it
        session = local_session("kafka-meta analyze", master=args.master, progress=True, kafka=True)
    except (PySparkException, Py4JError, OSError) as error:  # most often: the connector could not be fetched
        return fail(f"analyze: Spark did not start with its Kafka connector (see Ivy's lines above): "
                    f"{spark_failure(error)}", PROBLEM)
    use_client_properties(session, client)  # every topic read in the session is read with them
    use_connect_timeout(session, args.connect_timeout)
    return execute(args, session)
