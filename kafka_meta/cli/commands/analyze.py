"""``kafka-meta analyze``: the main job (needs the ``spark`` extra)."""

from __future__ import annotations

import argparse
import importlib.util
from typing import Any

from kafka_meta.cli.output import fail


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("analyze", help="read captures, log directories, JSON Lines or Parquet on Spark: "
                                       "decoded Parquet, a report and the rebalance timeline",
                       description="Read every input (packet captures, log segments and log directories, JSON "
                                   "Lines, Parquet, or directories of them, told apart by content) on Spark "
                                   "(embedded local Spark unless --master is given), write decoded Parquet under "
                                   "--output, and print a report: groups, protocol types, assignors, members, "
                                   "metadata versions in use, upgrades in progress, ownership conflicts, unknown "
                                   "record types, errors.")
    try:
        if importlib.util.find_spec("pyspark") is None:
            raise ImportError("pyspark")
        from kafka_meta.spark.job import add_arguments
    except ImportError:  # PySpark missing: the command still explains how to get it
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(run=lambda args: fail("analyze needs Spark: pip install 'kafka-meta[spark]'"))
        return
    add_arguments(p)
    p.set_defaults(run=run_analyze)


def run_analyze(args: argparse.Namespace) -> int:
    from kafka_meta.spark.job import execute

    return execute(args)
