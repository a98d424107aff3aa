"""Which partitions of a log directory hold ``__consumer_offsets`` records, told by name and, for a user
topic's, by content.

Kafka's internal topics are known by name (:func:`kafka_meta.log.topics.role_of`). A partition of any other
topic is a user topic's, unless its first record reads strictly as a ``__consumer_offsets`` record of a known
type: a copy of the offsets topic under another name (a test's directory, a mirror), which is then read as
one. A user topic's key would have to start with a known record type's int16 and read to its end as that
type's key, and its value as a valid version of its value, for it to be taken for one.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafka_meta.errors import KafkaMetaError
from kafka_meta.log import Partition, Segment, SegmentReader, segment_reads
from kafka_meta.log.topics import Role, role_of
from kafka_meta.offsets import UnknownRecord, decode_record

SNIFFED_RECORDS = 3  # the first records of a user topic's partition read to tell whether it holds offsets records


def partition_role(partition: Partition) -> Role:
    """What the partition holds: its topic's role, or for a user topic, ``offsets`` when its first records
    read as ``__consumer_offsets`` records."""
    role = role_of(partition.topic)
    if role != "user":
        return role
    return "offsets" if holds_offsets_records(partition.segments) else "user"


def holds_offsets_records(segments: Iterable[Segment]) -> bool:
    """Whether the first records of a partition's segments (in offset order) read as ``__consumer_offsets``
    records: at most :data:`SNIFFED_RECORDS` of them are read, from the first batches only."""
    sniffed = 0
    reader = SegmentReader()
    for segment in segments:
        reads = segment_reads(segment, reader)
        try:
            for item in reads:
                if type(item) is not tuple or item[0].control:
                    continue
                for record in item[1]:
                    if record.key is None or not _reads_as_offsets(record.key, record.value):
                        return False
                    sniffed += 1
                    if sniffed == SNIFFED_RECORDS:
                        return True
        finally:
            reads.close()  # the segment is unmapped now, not when the generator is collected
    return sniffed > 0


def topics_holding_offsets(segments: Iterable[Segment]) -> set[str]:
    """The topics of ``segments`` whose partitions hold ``__consumer_offsets`` records: ``__consumer_offsets``
    itself and any user topic whose first partition with records reads as one (a partition of a topic is as
    any other of it). Told from the first records alone: for a reader that cannot scan whole partitions first
    (Spark's planning, on the driver)."""
    by_topic: dict[str, list[Segment]] = {}
    for segment in segments:
        if segment.topic is not None:
            by_topic.setdefault(segment.topic, []).append(segment)
    found = set()
    for topic, found_segments in by_topic.items():
        role = role_of(topic)
        if role == "offsets" or (role == "user" and holds_offsets_records(
                s for s in found_segments if s.partition == _first_with_bytes(found_segments))):
            found.add(topic)
    return found


def _first_with_bytes(segments: list[Segment]) -> int | None:
    return next((s.partition for s in segments if s.size > 0), None)


def _reads_as_offsets(key: bytes, value: bytes | None) -> bool:
    try:
        record = decode_record(key, value, strict=True, nested=False)
    except (KafkaMetaError, ValueError):
        return False
    return not isinstance(record, UnknownRecord)
