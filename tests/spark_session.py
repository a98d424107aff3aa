"""One local Spark session for the whole test run (starting Spark takes seconds)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    pyspark = pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")
    del pyspark
    from kafka_meta.spark.session import local_session

    session = local_session("kafka-meta-tests", master="local[2]")
    yield session
    session.stop()
