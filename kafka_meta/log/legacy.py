"""Legacy message sets (magic 0 and 1, Kafka before 0.11): messages, and compressed wrapper messages.

A compressed message is a wrapper whose value is a whole message set, compressed. Under magic 0 the inner
messages carry absolute offsets; under magic 1 relative ones (0, 1, ...), the wrapper carrying the offset
of the last, and a wrapper with LogAppendTime gives its timestamp to every inner message.

Messages are read into plain tuples by one function: legacy logs are read message by message, so the
per-message cost is what matters.
"""

from __future__ import annotations

import struct

from kafka_meta.log.checksums import crc32
from kafka_meta.log.compression import NONE, DecompressionError, Inflater
from kafka_meta.log.events import CREATE_TIME, LOG_APPEND_TIME, NO_TIMESTAMP_TYPE, Batch, Record

ENTRY = struct.Struct(">qiIbb")  # offset, size, crc, magic, attributes
V0_FIELDS = struct.Struct(">i")  # key length
V1_FIELDS = struct.Struct(">qi")  # timestamp, key length
LENGTH = struct.Struct(">i")
CRC_START = 16  # the CRC covers the message from its magic byte on
MIN_SIZE = {0: 14, 1: 22}  # crc, magic, attributes, [timestamp], key length, value length
CODEC_MASK, TIMESTAMP_TYPE_BIT = 0x07, 0x08

# (offset, magic, attributes, timestamp, key, value) of one message
Message = tuple[int, int, int, int, bytes | None, bytes | None]


class MessageError(Exception):
    """A legacy message (or a message inside a wrapper) that could not be read."""


def check(data: bytes | memoryview, pos: int, size: int) -> bool:
    """Whether the CRC-32 of the message at ``pos`` (``size`` from its length field) is right."""
    (stored,) = struct.unpack_from(">I", data, pos + 12)
    return crc32(data[pos + CRC_START:pos + 12 + size]) == stored


def message(data: bytes | memoryview, pos: int) -> Message:
    """The message at ``pos``, whose size field the caller checked fits ``data``."""
    offset, size, _crc, magic, attributes = ENTRY.unpack_from(data, pos)
    end = pos + 12 + size
    if magic == 1:
        timestamp, n = V1_FIELDS.unpack_from(data, pos + 18)
        p = pos + 30
    else:
        timestamp = -1
        (n,) = V0_FIELDS.unpack_from(data, pos + 18)
        p = pos + 22
    if n == -1:
        key = None
    elif 0 <= n <= end - p - 4:
        key = bytes(data[p:p + n])
        p += n
    else:
        raise MessageError(f"the key length {n} at byte {p - 4} runs past the message")
    (n,) = LENGTH.unpack_from(data, p)
    p += 4
    if n == -1:
        value = None
    elif 0 <= n <= end - p:
        value = bytes(data[p:p + n])
        p += n
    else:
        raise MessageError(f"the value length {n} at byte {p - 4} runs past the message")
    if p != end:
        raise MessageError(f"{end - p} bytes after the value of the message at byte {pos}")
    return offset, magic, attributes, timestamp, key, value


def _timestamp_type(magic: int, attributes: int) -> int:
    if magic == 0:
        return NO_TIMESTAMP_TYPE
    return LOG_APPEND_TIME if attributes & TIMESTAMP_TYPE_BIT else CREATE_TIME


def read(data: bytes | memoryview, pos: int, inflater: Inflater) -> tuple[Batch, list[Record]]:
    """The top-level (CRC-checked) message at ``pos`` as a batch, and its records: itself, or the inner
    messages of a compressed wrapper. Raises :class:`MessageError` or :class:`DecompressionError`."""
    offset, magic, attributes, timestamp, key, value = message(data, pos)
    ts_type = NO_TIMESTAMP_TYPE if magic == 0 else LOG_APPEND_TIME if attributes & TIMESTAMP_TYPE_BIT else CREATE_TIME
    codec = attributes & CODEC_MASK
    size = 12 + LENGTH.unpack_from(data, pos + 8)[0]
    if codec == NONE:
        return (Batch(pos, size, magic, offset, offset, codec, 1, False, False, ts_type),
                [Record(offset, timestamp, ts_type, key, value, [])])
    if value is None:
        raise MessageError("a compressed wrapper message without a value")
    inner = _inner_messages(inflater.inflate(codec, value, magic))
    if not inner:
        raise MessageError("a compressed wrapper message with no messages inside")
    base = offset - inner[-1][0] if magic > 0 else 0
    out = []
    for m_offset, m_magic, m_attributes, m_timestamp, m_key, m_value in inner:
        if ts_type == LOG_APPEND_TIME:
            out.append(Record(base + m_offset, timestamp, LOG_APPEND_TIME, m_key, m_value, []))
        else:
            out.append(Record(base + m_offset, m_timestamp, _timestamp_type(m_magic, m_attributes), m_key, m_value,
                              []))
    return Batch(pos, size, magic, out[0].offset, out[-1].offset, codec, len(out), False, False, ts_type), out


def _inner_messages(data: bytes) -> list[Message]:
    out: list[Message] = []
    pos, end = 0, len(data)
    while pos < end:
        if end - pos < 17:
            raise MessageError(f"inner message {len(out)}: {end - pos} bytes left, too few for a message")
        _offset, size, crc, magic, attributes = ENTRY.unpack_from(data, pos)
        if magic not in MIN_SIZE or size < MIN_SIZE[magic] or pos + 12 + size > end:
            raise MessageError(f"inner message {len(out)} at byte {pos}: magic {magic}, size {size} do not fit")
        if crc32(data[pos + CRC_START:pos + 12 + size]) != crc:
            raise MessageError(f"inner message {len(out)} at byte {pos}: CRC mismatch")
        if attributes & CODEC_MASK:
            raise MessageError(f"inner message {len(out)} at byte {pos} is compressed again")
        out.append(message(data, pos))
        pos += 12 + size
    return out


__all__ = ["DecompressionError", "Message", "MessageError", "check", "message", "read"]
