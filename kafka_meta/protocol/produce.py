"""Whether a request gets a response: Produce with ``acks=0`` does not (Kafka never answers it).

Only the two leading fields of a Produce body are read (the transactional id, from v3, and acks), so the
correlator need not understand record batches to know not to wait.
"""

from __future__ import annotations

PRODUCE = 0
FIRST_TRANSACTIONAL = 3  # Produce v3 added the transactional id before acks
FIRST_FLEXIBLE = 9
VALID_ACKS = (-1, 0, 1)
MAX_TOPICS = 1 << 16


def _acks_offset(body: bytes, version: int) -> int | None:
    at = 0
    if version >= FIRST_TRANSACTIONAL:
        if version >= FIRST_FLEXIBLE:
            size = shift = 0
            while True:
                if at >= len(body) or shift > 28:
                    return None
                byte = body[at]
                at += 1
                size |= (byte & 0x7F) << shift
                if not byte & 0x80:
                    break
                shift += 7
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


def plausible_produce(body: bytes, version: int) -> bool:
    """Acks of -1, 0 or 1, a non-negative timeout and at least one topic: what every real Produce body
    starts with, and what the responses that mimic a Produce header (see ``looks_like_request``) rarely do."""
    at = _acks_offset(body, version)
    if at is None or at + 7 > len(body):
        return False
    if int.from_bytes(body[at:at + 2], "big", signed=True) not in VALID_ACKS:
        return False
    if body[at + 2] & 0x80:  # negative timeout
        return False
    if version >= FIRST_FLEXIBLE:
        return body[at + 6] >= 2  # compact array: count + 1, at least one topic
    return at + 10 <= len(body) and 0 < int.from_bytes(body[at + 6:at + 10], "big", signed=True) <= MAX_TOPICS


def expects_response(api_key: int, version: int, body: bytes) -> bool:
    return api_key != PRODUCE or produce_acks(body, version) != 0
