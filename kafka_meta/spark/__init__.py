"""Bulk decoding on Spark (needs the ``spark`` extra: ``pip install 'kafka-meta[spark]'``)."""

from kafka_meta.spark.batch import FAILFAST, PERMISSIVE
from kafka_meta.spark.functions import from_kafka_meta, schema_for
from kafka_meta.spark.sources import register

__all__ = ["FAILFAST", "PERMISSIVE", "from_kafka_meta", "register", "schema_for"]
