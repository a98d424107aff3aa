"""``__transaction_state``: the transaction coordinator's record of each transactional id.

One record type (0): the key is the transactional id, the value its state (producer id and epoch, timeout,
the partitions of the ongoing transaction, timestamps, and ``transactionStatus``, shown by name beside it as
``transactionState``); a tombstone (a null value) deletes an expired transactional id.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.formats.transaction_log import LOG, STATES, TOPIC, state_name
from kafka_meta.internal_topics import coordinator_log
from kafka_meta.internal_topics.coordinator_log import CoordinatorLogRecord

__all__ = ["LOG", "STATES", "TERMINAL_STATES", "TOPIC", "decode_record", "encode_record", "record_json", "state_name"]

# states a transaction rests in until the producer starts the next one (Empty, CompleteCommit, CompleteAbort)
# or, for Dead, until the record is deleted; the others are on the way between two of these
TERMINAL_STATES = frozenset({"Empty", "CompleteCommit", "CompleteAbort", "Dead"})


def decode_record(key: bytes | None, value: bytes | None, *, strict: bool = False) -> CoordinatorLogRecord:
    """One ``__transaction_state`` record (``value=None``: the tombstone of an expired transactional id).

    Lenient (default): a record type other than 0 is kept as an :class:`~kafka_meta.offsets.UnknownRecord` and
    a value version newer than 1 is read with the newest layout (``read_forward``); ``strict`` refuses both as
    Kafka 4.4's coordinator does. Bytes that do not read are a :class:`~kafka_meta.errors.DecodeError` naming the
    field and the byte offset.
    """
    return coordinator_log.decode(LOG, key, value, strict)


def encode_record(record: CoordinatorLogRecord) -> tuple[bytes, bytes | None]:
    """The key and value bytes of a record (value None: a tombstone), byte-exact for decoded records."""
    return coordinator_log.encode(LOG, record)


def record_json(decoded: CoordinatorLogRecord) -> dict[str, Any]:
    """The record as ``kafka-meta log --decode`` prints it: ``recordType``, ``record`` (``TransactionLog``),
    ``key``, ``value`` (with ``transactionState`` beside ``transactionStatus``), ``valueVersion``..."""
    return coordinator_log.as_json(decoded)
