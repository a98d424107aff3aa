"""Spark data sources of kafka_meta, on PySpark's Python Data Source API.

Each reader of a raw input (packet captures, broker log segments) is a data source here; ``register(spark)``
makes them all known to a session under their short names, e.g. ``spark.read.format("kafka-meta-log")``.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.spark.sources.capture import CaptureDataSource

# every data source class of this package, registered together
DATA_SOURCES: list[type] = [CaptureDataSource]


def register(spark: Any) -> None:
    """Make every kafka_meta data source available to ``spark.read.format(...)`` in this session."""
    for source in DATA_SOURCES:
        spark.dataSource.register(source)


from kafka_meta.spark.sources.log import LogDataSource  # noqa: E402 - each source appends itself here

DATA_SOURCES.append(LogDataSource)
