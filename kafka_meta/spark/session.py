"""Spark sessions for kafka_meta: an embedded local one by default, any cluster through ``--master``."""

from __future__ import annotations

from typing import Any


def local_session(app_name: str = "kafka-meta", master: str | None = None, quiet: bool = True) -> Any:
    """A SparkSession; with no master, an embedded ``local[*]`` one needing nothing beyond pip."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    else:
        builder = builder.master("local[*]")
    builder = (builder.config("spark.sql.shuffle.partitions", "8")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.ui.showConsoleProgress", "false"))
    session = builder.getOrCreate()
    if quiet:
        session.sparkContext.setLogLevel("ERROR")
    return session
