"""The transaction story for ``kafka-meta analyze``: the same as ``kafka-meta report`` tells
(:mod:`kafka_meta.analysis.transaction_feed`), from a broker's log directories read with Spark.

``__transaction_state`` holds a handful of records per transactional id and is read whole by the log source and
collected; a user topic's partitions are summarised by their batch headers on the executors, one task per
partition, and only the summaries (a row each) come back to the driver. The latest time any record was written
(where the inputs end, for what is still open) is given by the caller, who has read the offsets records.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby
from typing import Any

from kafka_meta.analysis.transaction_feed import transactions_of
from kafka_meta.analysis.transactional_ids import TransactionsReport
from kafka_meta.errors import KafkaMetaError
from kafka_meta.log import Segment
from kafka_meta.log.partitions import partition_of
from kafka_meta.log.topics import TRANSACTION_TOPIC, role_of


def _partition_summary(paths: list[str]) -> dict[str, Any]:
    """On an executor: one user topic partition's summary, from its segments' headers."""
    from kafka_meta.inputs.segment import partition_row
    from kafka_meta.log.files import segment_at
    from kafka_meta.log.partitions import scan_partitions

    segments = [segment_at(p) for p in paths]
    try:
        (scan,) = scan_partitions(segments).values()
    except (KafkaMetaError, OSError) as e:  # a file gone or unreadable: said, the other partitions stand
        return {"_error": f"{paths[0]}: {e}"}
    return partition_row(scan) | {"_file": f"{scan.topic}-{scan.partition}"}


def transactions_report(spark: Any, segments: Iterable[Segment], offsets_topics: set[str],
                        latest_ms: int | None = None, errors: list[str] | None = None) -> TransactionsReport | None:
    """The story of the ``__transaction_state`` records and the user topics' open transactions among
    ``segments`` (``offsets_topics``: the topics read as ``__consumer_offsets``, no user topics)."""
    from pyspark.sql import functions as F

    segments = list(segments)
    states = [s.path for s in segments if s.topic == TRANSACTION_TOPIC and s.size > 0]
    rows: list[dict[str, Any]] = []
    if states:
        df = spark.read.format("kafka-meta-log").load(states).where(F.col("_error").isNull())
        place = F.concat_ws("-", "topic", F.col("partition").cast("string")).alias("_file")
        rows = [r.asDict() for r in df.select("topic", "partition", "offset", "timestamp", "key", "value", "control",
                                               place).orderBy("partition", "offset").collect()]
    users = [[s.path for s in group] for key, group in groupby(segments, key=partition_of)
             if role_of(key[0]) == "user" and key[0] not in offsets_topics]
    found = spark.sparkContext.parallelize(users, len(users)).map(_partition_summary).collect() if users else []
    summaries = [row for row in found if "_error" not in row]
    if errors is not None:
        errors += [row["_error"] for row in found if "_error" in row]
    if latest_ms is not None:
        rows.append({"timestamp": latest_ms})  # where the inputs end, as the records read elsewhere say
    try:
        return transactions_of(rows, summaries, errors)
    except KafkaMetaError as e:
        if errors is not None:
            errors.append(str(e))
        return None
