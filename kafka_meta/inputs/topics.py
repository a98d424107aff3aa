"""Which partitions of a log directory hold ``__consumer_offsets`` records, told by name and, for a user
topic's, by content.

Kafka's internal topics are known by name (:func:`kafka_meta.log.topics.role_of`). A partition of any other
topic is a user topic's, unless its first record reads strictly as a ``__consumer_offsets`` record of a known
type: a copy of the offsets topic under another name (a test's directory, a mirror), which is then read as
one. A user topic's key would have to start with a known record type's int16 and read to its end as that
type's key, and its value as a valid version of its value, for it to be taken for one.
"""

from __future__ import annotations

from kafka_meta.errors import KafkaMetaError
from kafka_meta.log import Partition
from kafka_meta.log.topics import Role, role_of
from kafka_meta.offsets import UnknownRecord, decode_record

SNIFFED_RECORDS = 3  # the first records of a user topic's partition read to tell whether it holds offsets records


def partition_role(partition: Partition) -> Role:
    """What the partition holds: its topic's role, or for a user topic, ``offsets`` when its first records
    read as ``__consumer_offsets`` records."""
    role = role_of(partition.scan.topic)
    if role != "user" or partition.scan.records == 0:
        return role
    sniffed = 0
    rows = partition.rows()
    try:
        for row in rows:
            if row["_error"] is not None or row["control"]:
                continue
            if row["key"] is None or not _reads_as_offsets(row["key"], row["value"]):
                return "user"
            sniffed += 1
            if sniffed == SNIFFED_RECORDS:
                break
    finally:
        rows.close()  # the segment being read is unmapped now, not when the generator is collected
    return "offsets" if sniffed else "user"


def _reads_as_offsets(key: bytes, value: bytes | None) -> bool:
    try:
        record = decode_record(key, value, strict=True, nested=False)
    except (KafkaMetaError, ValueError):
        return False
    return not isinstance(record, UnknownRecord)
