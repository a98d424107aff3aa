"""Records and damage as rows shaped like Spark's Kafka source, so the offsets readers take them unchanged.

Columns: ``topic``, ``partition``, ``offset``, ``timestamp`` (epoch milliseconds here; a timestamp in
Spark), ``timestampType`` (0 CreateTime, 1 LogAppendTime, -1 none, as Kafka's ids), ``key``, ``value``,
``headers`` (list of ``{"key", "value"}``), then ``control`` (the record is a transaction marker of a
control batch), ``producerId`` (the producer of a transactional batch, whose records count only once a COMMIT
marker of that producer follows them in the partition; -1 for any other batch) and ``_error`` (null, or what
was damaged and where: file, byte position, offsets).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from kafka_meta.log.events import Batch, Damage, Record
from kafka_meta.log.files import Segment
from kafka_meta.log.segment import Read

COLUMNS = ("topic", "partition", "offset", "timestamp", "timestampType", "key", "value", "headers", "control",
           "producerId", "_error")


def transactional_producer(batch: Batch) -> int:
    """The producer id of a transactional batch, -1 for any other (whose records count as they are)."""
    return batch.producer_id if batch.transactional else -1


def record_row(segment: Segment, record: Record, producer_id: int = -1) -> dict[str, Any]:
    return {"topic": segment.topic, "partition": segment.partition, "offset": record.offset,
            "timestamp": record.timestamp, "timestampType": record.timestamp_type, "key": record.key,
            "value": record.value, "headers": [{"key": k, "value": v} for k, v in record.headers],
            "control": record.control, "producerId": producer_id, "_error": None}


def damage_row(segment: Segment, damage: Damage) -> dict[str, Any]:
    return {"topic": segment.topic, "partition": segment.partition, "offset": damage.first_offset,
            "timestamp": None, "timestampType": None, "key": None, "value": None, "headers": [],
            "control": False, "producerId": -1, "_error": damage.describe(segment.path)}


def segment_rows(segment: Segment, items: Iterable[Read]) -> Iterator[dict[str, Any]]:
    """The rows of one segment's batches and damage (``SegmentReader.batches`` of its bytes): a record
    row per record, a damage row per damaged stretch."""
    for item in items:
        if type(item) is tuple:
            producer = transactional_producer(item[0])
            for record in item[1]:
                yield record_row(segment, record, producer)
        else:
            yield damage_row(segment, item)  # type: ignore[arg-type]
