"""Whether a request gets a response: Produce with ``acks=0`` does not (Kafka never answers it).

Only the two leading fields of a Produce body are read (the transactional id, from v3, and acks), so the
correlator need not understand record batches to know not to wait.
"""

from __future__ import annotations

from kafka_meta.wire.runtime import Fault, uvarint

PRODUCE = 0
FIRST_TRANSACTIONAL = 3  # Produce v3 added the transactional id before acks
FIRST_FLEXIBLE = 9
VALID_ACKS = (-1, 0, 1)
MAX_TOPICS = 1 << 16
FIRST_TOPIC_ID = 13  # Produce v13 names topics by id (KIP-516)
MAX_TOPIC_NAME = 249
TOPIC_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def _acks_offset(body: bytes, version: int) -> int | None:
    at = 0
    if version >= FIRST_TRANSACTIONAL:
        if version >= FIRST_FLEXIBLE:
            found = _uvarint(body, at)
            if found is None:
                return None
            size, at = found
            at += max(size - 1, 0)  # compact nullable string: length + 1, 0 for null
        else:
            if len(body) < 2:
                return None
            at = 2 + max(int.from_bytes(body[:2], "big", signed=True), 0)
    return at if at + 2 <= len(body) else None


def produce_acks(body: bytes, version: int) -> int | None:
    """The acks of a Produce body, or None when the body is too short to tell."""
    at = _acks_offset(body, version)
    return None if at is None else int.from_bytes(body[at:at + 2], "big", signed=True)


def _uvarint(body: bytes, at: int) -> tuple[int, int] | None:
    """(value, offset after it) by the wire layer's reader, or None when the body ends inside the varint or it
    is none Kafka writes."""
    try:
        return uvarint(body, at)
    except (IndexError, Fault):
        return None


def _legal_topic(name: bytes, size: int) -> bool:
    """A topic name of ``size`` bytes of which ``name`` arrived: Kafka's length limit and characters."""
    return 0 < size <= MAX_TOPIC_NAME and all(c in TOPIC_CHARS for c in name)


def plausible_produce(body: bytes, version: int, complete: bool = True) -> bool:
    """Acks of -1, 0 or 1, a non-negative timeout, at least one topic and (until v13, which names topics by
    id) a legal first topic name: what every real Produce body starts with, and what the responses that
    mimic a Produce header (see ``looks_like_request``) do not. With ``complete`` False, ``body`` is only the
    first bytes of a body still arriving, and what is not there yet counts as plausible."""
    missing = not complete
    at = _acks_offset(body, version)
    if at is None or at + 2 > len(body):
        return missing
    if int.from_bytes(body[at:at + 2], "big", signed=True) not in VALID_ACKS:
        return False
    if at + 3 > len(body):
        return missing
    if body[at + 2] & 0x80:  # negative timeout
        return False
    at += 6
    if version >= FIRST_FLEXIBLE:
        count = _uvarint(body, at)
        if count is None:
            return missing
        if not 2 <= count[0] <= MAX_TOPICS + 1:  # compact array: count + 1
            return False
        if version >= FIRST_TOPIC_ID:
            return True
        size = _uvarint(body, count[1])
        if size is None:
            return missing
        name = body[size[1]:size[1] + size[0] - 1]
        return _legal_topic(name, size[0] - 1) and (missing or len(name) == size[0] - 1)
    if at + 4 > len(body):
        return missing
    if not 0 < int.from_bytes(body[at:at + 4], "big", signed=True) <= MAX_TOPICS:
        return False
    if at + 6 > len(body):
        return missing
    size = int.from_bytes(body[at + 4:at + 6], "big", signed=True)
    name = body[at + 6:at + 6 + size]
    return _legal_topic(name, size) and (missing or len(name) == size)


def expects_response(api_key: int, version: int, body: bytes) -> bool:
    return api_key != PRODUCE or produce_acks(body, version) != 0
