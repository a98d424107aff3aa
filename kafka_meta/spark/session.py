"""Spark sessions for kafka_meta: an embedded local one by default, any cluster through ``--master``.

Standard output is the result's alone (a report, JSON Lines): whatever Spark's JVM prints goes to standard
error. PySpark starts that JVM (``spark-submit``) with the Python process's own standard output, and the
JVM writes there before any logging setting applies: when ``spark.jars.packages`` is set (the Kafka
connector, :mod:`kafka_meta.spark.connector`), Spark loads the Ivy settings file first, and Ivy announces it
on ``System.out`` (``:: loading settings :: file = ...``); Spark points ``System.out`` at standard error only
afterwards, for the resolution itself. No Spark or Ivy setting moves that line, so the JVM is started with
standard error as its standard output (:func:`jvm_stdout_to_stderr`): an ordinary inherited descriptor.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def local_session(app_name: str = "kafka-meta", master: str | None = None, quiet: bool = True,
                  progress: bool = False, kafka: bool = False) -> Any:
    """A SparkSession; with no master, an embedded ``local[*]`` one needing nothing beyond pip.
    ``progress`` shows Spark's console progress bar while stages run. ``kafka`` puts Spark's Kafka connector on
    its classpath (fetched once into a cache: :mod:`kafka_meta.spark.connector`), which only a session that
    is not running yet can take."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if kafka:
        from kafka_meta.spark.connector import connector_conf

        for name, value in connector_conf().items():
            builder = builder.config(name, value)
    if master is None or master.startswith("local"):
        # local workers run on this machine: the interpreter running kafka_meta now (with its packages),
        # not whatever python3 comes first on PATH
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        builder = builder.config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
    if master:
        builder = builder.master(master)
    else:  # embedded: no web UI, the JVM logs only errors, and a heap for the machine it runs on
        log4j = Path(__file__).with_name("log4j2.properties")
        builder = (builder.master("local[*]").config("spark.ui.enabled", "false")
                   .config("spark.driver.memory", embedded_heap())
                   .config("spark.driver.extraJavaOptions", f"-Dlog4j.configurationFile=file:{log4j}"))
    builder = (builder.config("spark.sql.shuffle.partitions", "8")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.ui.showConsoleProgress", "true" if progress else "false"))
    with jvm_stdout_to_stderr():  # the JVM, if this starts it, keeps stderr as its stdout
        session = builder.getOrCreate()
    if quiet:
        session.sparkContext.setLogLevel("ERROR")
    return session


@contextmanager
def jvm_stdout_to_stderr() -> Iterator[None]:
    """Within the block, file descriptor 1 is standard error: a process started meanwhile (PySpark's JVM)
    inherits it as its standard output for good, while Python's own standard output is back as it was
    once the block ends. Python's buffered output is flushed on both sides, so nothing of the result moves.
    Without a descriptor 1 or 2 (a daemon), nothing is moved."""
    if sys.stdout is not None:
        sys.stdout.flush()
    try:
        saved: int | None = os.dup(1)
    except OSError:
        saved = None
    if saved is not None:
        try:
            os.dup2(2, 1)
        except OSError:
            os.close(saved)
            saved = None
    try:
        yield
    finally:
        if saved is not None:
            if sys.stdout is not None:
                sys.stdout.flush()  # anything written meanwhile went where the JVM's output goes
            os.dup2(saved, 1)
            os.close(saved)


HEAP_SHARE = 4  # of the machine's memory, for the embedded Spark's one JVM (driver and executors in one)
HEAP_MIN_MB, HEAP_MAX_MB = 1024, 16384


def embedded_heap() -> str:
    """The heap of the embedded Spark's JVM: a quarter of the machine's memory, 1 to 16 GB, unless
    ``SPARK_DRIVER_MEMORY`` says otherwise. Spark's own default (1 GB) is for a driver beside executors; here
    the one JVM also runs every task and holds the cached columns, and a gigabyte of ``__consumer_offsets``
    exhausts it in the aggregations."""
    named = os.environ.get("SPARK_DRIVER_MEMORY")
    if named:
        return named
    try:
        total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
    except (ValueError, OSError, AttributeError):  # no sysconf: Spark's default
        return f"{HEAP_MIN_MB}m"
    return f"{max(HEAP_MIN_MB, min(HEAP_MAX_MB, total_mb // HEAP_SHARE))}m"
