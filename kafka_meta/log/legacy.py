"""Legacy message sets (magic 0 and 1, Kafka before 0.11): messages, and compressed wrapper messages.

A compressed message is a wrapper whose value is a whole message set, compressed. Under magic 0 the inner
messages carry absolute offsets; under magic 1 relative ones (0, 1, ...), the wrapper carrying the offset
of the last, and a wrapper with LogAppendTime gives its timestamp to every inner message.
"""

from __future__ import annotations

import struct

from kafka_meta.log.checksums import crc32
from kafka_meta.log.compression import NONE, DecompressionError, Inflater
from kafka_meta.log.events import CREATE_TIME, LOG_APPEND_TIME, NO_TIMESTAMP_TYPE, Batch, Record

ENTRY = struct.Struct(">qiIbb")  # offset, size, crc, magic, attributes
TIMESTAMP = struct.Struct(">q")
LENGTH = struct.Struct(">i")
CRC_START = 16  # the CRC covers the message from its magic byte on
MIN_SIZE = {0: 14, 1: 22}  # crc, magic, attributes, [timestamp], key length, value length
CODEC_MASK, TIMESTAMP_TYPE_BIT = 0x07, 0x08


class MessageError(Exception):
    """A legacy message (or a message inside a wrapper) that could not be read."""

    def __init__(self, reason: str, records: list[Record] | None = None) -> None:
        super().__init__(reason)
        self.records = records or []


class Message:
    """The fields of one legacy message, read from ``data`` at ``pos`` (its CRC already checked)."""

    __slots__ = ("attributes", "key", "magic", "offset", "size", "timestamp", "value")

    def __init__(self, data: bytes | memoryview, pos: int) -> None:
        self.offset, self.size, _crc, self.magic, self.attributes = ENTRY.unpack_from(data, pos)
        end = pos + 12 + self.size
        p = pos + 18
        if self.magic == 1:
            (self.timestamp,) = TIMESTAMP.unpack_from(data, p)
            p += 8
        else:
            self.timestamp = -1
        self.key, p = _bytes(data, p, end, "key")
        self.value, p = _bytes(data, p, end, "value")
        if p != end:
            raise MessageError(f"{end - p} bytes after the value of the message at byte {pos}")

    @property
    def codec(self) -> int:
        return self.attributes & CODEC_MASK

    @property
    def timestamp_type(self) -> int:
        if self.magic == 0:
            return NO_TIMESTAMP_TYPE
        return LOG_APPEND_TIME if self.attributes & TIMESTAMP_TYPE_BIT else CREATE_TIME


def _bytes(data: bytes | memoryview, pos: int, end: int, what: str) -> tuple[bytes | None, int]:
    if pos + 4 > end:
        raise MessageError(f"the {what} length at byte {pos} runs past the message")
    (n,) = LENGTH.unpack_from(data, pos)
    pos += 4
    if n == -1:
        return None, pos
    if n < 0 or pos + n > end:
        raise MessageError(f"the {what} length {n} at byte {pos - 4} runs past the message")
    return bytes(data[pos:pos + n]), pos + n


def check(data: bytes | memoryview, pos: int, size: int) -> bool:
    """Whether the CRC-32 of the message at ``pos`` (``size`` from its length field) is right."""
    (stored,) = struct.unpack_from(">I", data, pos + 12)
    return crc32(data[pos + CRC_START:pos + 12 + size]) == stored


def entry(data: bytes | memoryview, pos: int) -> tuple[Batch, Message]:
    """The batch view of the (CRC-checked) top-level message at ``pos``, and the message itself."""
    message = Message(data, pos)
    batch = Batch(position=pos, size=message.size + 12, magic=message.magic, base_offset=message.offset,
                  last_offset=message.offset, codec=message.codec, count=1,
                  timestamp_type=message.timestamp_type)
    return batch, message


def records(batch: Batch, message: Message, inflater: Inflater) -> list[Record]:
    """The records of a top-level message: itself, or the inner messages of a compressed wrapper.

    Fills in ``batch``'s offsets and count from the inner messages. Raises :class:`MessageError` (with
    the records read before the damage) or :class:`DecompressionError`.
    """
    if message.codec == NONE:
        return [Record(message.offset, message.timestamp, message.timestamp_type, message.key, message.value)]
    if message.value is None:
        raise MessageError("a compressed wrapper message without a value")
    inner_set = inflater.inflate(message.codec, message.value, message.magic)
    inner = _inner_messages(inner_set)
    if not inner:
        raise MessageError("a compressed wrapper message with no messages inside")
    base = message.offset - inner[-1].offset if message.magic > 0 else 0
    log_append = message.timestamp_type == LOG_APPEND_TIME
    out = []
    for m in inner:
        if log_append:
            timestamp, ts_type = message.timestamp, LOG_APPEND_TIME
        else:
            timestamp, ts_type = m.timestamp, m.timestamp_type
        out.append(Record(base + m.offset, timestamp, ts_type, m.key, m.value))
    batch.base_offset, batch.last_offset, batch.count = out[0].offset, out[-1].offset, len(out)
    return out


def _inner_messages(data: bytes) -> list[Message]:
    out: list[Message] = []
    pos, end = 0, len(data)
    while pos < end:
        if end - pos < 17:
            raise MessageError(f"inner message {len(out)}: {end - pos} bytes left, too few for a message")
        _offset, size, _crc, magic, attributes = ENTRY.unpack_from(data, pos)
        if magic not in MIN_SIZE or size < MIN_SIZE[magic] or pos + 12 + size > end:
            raise MessageError(f"inner message {len(out)} at byte {pos}: magic {magic}, size {size} do not fit")
        if not check(data, pos, size):
            raise MessageError(f"inner message {len(out)} at byte {pos}: CRC mismatch")
        if attributes & CODEC_MASK:
            raise MessageError(f"inner message {len(out)} at byte {pos} is compressed again")
        out.append(Message(data, pos))
        pos += 12 + size
    return out


__all__ = ["DecompressionError", "Message", "MessageError", "check", "entry", "records"]
