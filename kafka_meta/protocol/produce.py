"""Whether a request gets a response: Produce with ``acks=0`` does not (Kafka never answers it).

Only the two leading fields of a Produce body are read (the transactional id, from v3, and acks), so the
correlator need not understand record batches to know not to wait.
"""

from __future__ import annotations

PRODUCE = 0
FIRST_TRANSACTIONAL = 3  # Produce v3 added the transactional id before acks
FIRST_FLEXIBLE = 9


def produce_acks(body: bytes, version: int) -> int | None:
    """The acks of a Produce body, or None when the body is too short to tell."""
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
    if at + 2 > len(body):
        return None
    return int.from_bytes(body[at:at + 2], "big", signed=True)


def expects_response(api_key: int, version: int, body: bytes) -> bool:
    return api_key != PRODUCE or produce_acks(body, version) != 0
