"""``kafka-meta stream``: a cluster's ``__consumer_offsets`` decoded continuously into Parquet (needs the
``spark`` extra).

Before Spark starts, the command line is checked (2 when it is wrong) and the cluster asked for its ApiVersions
(:mod:`kafka_meta.live.reach`): one that does not answer within ``--connect-timeout`` ends the verb in one line
naming the address and the timeout, exit status 1, as ``watch`` and ``analyze`` end."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Any

from kafka_meta.cli.needs_spark import without_spark


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("stream", help="decode a cluster's __consumer_offsets into Parquet as it is written "
                                      "(Spark Structured Streaming, restartable from its checkpoint)",
                       description="""Read a cluster's __consumer_offsets through Spark's Kafka source (committed
                                   records, from the earliest offset on the first run), decode every record
                                   and write it to Parquet under --output, keeping the query's progress in
                                   --checkpoint: a run started again with the same two goes on where the last
                                   one stopped, losing and repeating nothing. Spark's Kafka connector is fetched
                                   from Maven Central on first use.""")
    if importlib.util.find_spec("pyspark") is None:  # PySpark missing: the command still explains how to get it
        without_spark(p, "stream needs Spark: pip install 'kafka-meta[spark]'")
        return
    from kafka_meta.spark.stream import add_arguments

    add_arguments(p)
    p.set_defaults(run=run_stream)


def run_stream(args: argparse.Namespace) -> int:
    from kafka_meta.cli.status import USAGE
    from kafka_meta.errors import KafkaMetaError
    from kafka_meta.live.reach import check_reachable
    from kafka_meta.spark.stream import check_arguments, execute

    try:
        client = check_arguments(args)
    except KafkaMetaError as error:  # said as the job says it, before a JVM starts
        print(f"kafka-meta stream: {error}", file=sys.stderr)
        return USAGE
    check_reachable(args.bootstrap_servers, args.connect_timeout, client.get("security.protocol", "PLAINTEXT"))
    return execute(args)
