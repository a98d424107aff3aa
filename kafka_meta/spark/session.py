"""Spark sessions for kafka_meta: an embedded local one by default, any cluster through ``--master``."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def local_session(app_name: str = "kafka-meta", master: str | None = None, quiet: bool = True,
                  progress: bool = False) -> Any:
    """A SparkSession; with no master, an embedded ``local[*]`` one needing nothing beyond pip.
    ``progress`` shows Spark's console progress bar while stages run."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    else:  # embedded: no web UI, and the JVM logs only errors
        log4j = Path(__file__).with_name("log4j2.properties")
        builder = (builder.master("local[*]").config("spark.ui.enabled", "false")
                   .config("spark.driver.extraJavaOptions", f"-Dlog4j.configurationFile=file:{log4j}"))
    builder = (builder.config("spark.sql.shuffle.partitions", "8")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.ui.showConsoleProgress", "true" if progress else "false"))
    session = builder.getOrCreate()
    if quiet:
        session.sparkContext.setLogLevel("ERROR")
    return session
