"""Standard output holds the result alone, even when Spark resolves packages at start-up.

A session with Spark's Kafka connector (``local_session(kafka=True)``, what ``analyze`` of a Kafka input and
``stream`` start) has Ivy resolve ``spark.jars.packages`` inside the JVM, and Ivy announces its settings file
on the JVM's standard output before Spark sends the rest of Ivy's lines to standard error. The session
starts the JVM with standard error as its standard output (kafka_meta.spark.session), so a pipe reading the
result reads nothing else. One real Spark start, in a process of its own so its standard output is seen
as a shell sees it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

PROGRAM = """
from kafka_meta.spark.session import local_session
session = local_session("kafka-meta stdout check", kafka=True)
print(session.range(3).count())
session.stop()
"""
UNREACHABLE = ("unresolved dependency", "download failed", "UnknownHostException", "Connection refused",
               "Network is unreachable")


@pytest.mark.spark
def test_stdout_holds_only_the_result_when_spark_resolves_packages():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=600)
    assert ":: loading settings ::" not in done.stdout
    if done.returncode != 0 and any(sign in done.stderr for sign in UNREACHABLE):
        pytest.skip("Spark's Kafka connector is not in Ivy's cache and Maven Central cannot be reached")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "3\n"
    assert ":: loading settings ::" in done.stderr  # the resolver ran, and said so where it belongs
