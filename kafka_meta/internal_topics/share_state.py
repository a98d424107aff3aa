"""``__share_group_state``: the share coordinator's record of each share-partition's delivery state (KIP-932).

Record type 0 (``ShareSnapshot``) holds a share-partition's whole state, record type 1 (``ShareUpdate``) a
change applied over the snapshot of the same snapshot epoch; both keys name the share-partition (group,
topic id, partition). Tombstones delete a share-partition's state.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.formats.share_state import LOG, TOPIC
from kafka_meta.internal_topics import coordinator_log
from kafka_meta.internal_topics.coordinator_log import CoordinatorLogRecord

__all__ = ["LOG", "TOPIC", "decode_record", "encode_record", "record_json"]

def decode_record(key: bytes | None, value: bytes | None, *, strict: bool = False) -> CoordinatorLogRecord:
    """One ``__share_group_state`` record (``value=None``: a tombstone). Lenient (default): an unknown record
    type is kept as an :class:`~kafka_meta.offsets.UnknownRecord`, a newer value version read with the newest
    layout; ``strict`` refuses both, as Kafka 4.4's share coordinator does."""
    return coordinator_log.decode(LOG, key, value, strict)


def encode_record(record: CoordinatorLogRecord) -> tuple[bytes, bytes | None]:
    """The key and value bytes of a record (value None: a tombstone), byte-exact for decoded records."""
    return coordinator_log.encode(LOG, record)


def record_json(decoded: CoordinatorLogRecord) -> dict[str, Any]:
    """The record as ``kafka-meta log --decode`` prints it (``recordType``, ``record``, ``key``, ``value``,
    ``valueVersion``...), as offsets records are printed."""
    return coordinator_log.as_json(decoded)
