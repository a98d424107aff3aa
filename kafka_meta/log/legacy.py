"""Legacy message sets (magic 0 and 1, Kafka before 0.11): messages, and compressed wrapper messages.

A compressed message is a wrapper whose value is a whole message set, compressed. Under magic 0 the inner
messages carry absolute offsets; under magic 1 relative ones (0, 1, ...), the wrapper carrying the offset
of the last, and a wrapper with LogAppendTime gives its timestamp to every inner message.

Every legacy message is its own log entry with its own header and CRC, so a legacy log costs Python work
per message, not per batch as magic 2 does: the per-message cost is all that matters here. Hence the
written-out loops below: one ``struct`` unpack reads a message's whole header up to its key length
(:data:`HEAD0`, :data:`HEAD1`); a top-level message is copied once, its CRC-32 (zlib-ng's) computed over
the copy and its key and value sliced from it; records are built directly from the unpacked fields; and a
wrapper is inflated once and its inner messages read in one pass, their offsets made absolute afterwards
in bulk (a magic 1 wrapper's base is known only from its last inner message).
"""

from __future__ import annotations

import struct

from kafka_meta.log.checksums import crc32
from kafka_meta.log.compression import NONE, DecompressionError, Inflater
from kafka_meta.log.events import CREATE_TIME, LOG_APPEND_TIME, NO_TIMESTAMP_TYPE, Batch, Record

ENTRY = struct.Struct(">qiIbb")  # offset, size, crc, magic, attributes: the part common to both magics
HEAD0 = struct.Struct(">qiIbbi")  # offset, size, crc, magic, attributes, key length
HEAD1 = struct.Struct(">qiIbbqi")  # offset, size, crc, magic, attributes, timestamp, key length
LENGTH = struct.Struct(">i")
CRC_START = 16  # the CRC covers the message from its magic byte on
MIN_SIZE = {0: 14, 1: 22}  # crc, magic, attributes, [timestamp], key length, value length
CODEC_MASK, TIMESTAMP_TYPE_BIT = 0x07, 0x08
WHOLE_HEAD = 12 + MIN_SIZE[1]  # bytes from which an entry of either magic can be read with HEAD0/HEAD1


class MessageError(Exception):
    """A legacy message (or a message inside a wrapper) that could not be read."""



def key_and_value(buf: bytes, p: int, last: int, n: int, base: int, message_at: int
                  ) -> tuple[bytes | None, bytes | None]:
    """A message's key (its length ``n`` read just before ``p``) and its value, which must end at ``last``
    (-1 lengths: null). For errors, ``base`` plus a position of ``buf`` is its byte (in the segment, or in the
    wrapper's inflated body), and ``message_at`` is where the message starts."""
    if n == -1:
        key = None
    elif 0 <= n <= last - p - 4:
        key = buf[p:p + n]
        p += n
    else:
        raise MessageError(f"the key length {n} at byte {base + p - 4} runs past the message")
    (n,) = LENGTH.unpack_from(buf, p)
    p += 4
    if n == -1:
        value = None
    elif 0 <= n <= last - p:
        value = buf[p:p + n]
        p += n
    else:
        raise MessageError(f"the value length {n} at byte {base + p - 4} runs past the message")
    if p != last:
        raise MessageError(f"{last - p} bytes after the value of the message at byte {message_at}")
    return key, value

def check(data: bytes | memoryview, pos: int, size: int) -> bool:
    """Whether the CRC-32 of the message at ``pos`` (``size`` from its length field) is right."""
    (stored,) = struct.unpack_from(">I", data, pos + 12)
    return crc32(data[pos + CRC_START:pos + 12 + size]) == stored


def read(data: bytes | memoryview, pos: int, end: int, inflater: Inflater) -> tuple[Batch, list[Record]] | None:
    """The top-level message at ``pos`` as a batch, and its records: itself, or the inner messages of a
    compressed wrapper; None when no intact message starts there (too short, running past ``end``, or its
    CRC wrong), which the caller then examines to say what is wrong.

    The caller makes sure ``end - pos >= WHOLE_HEAD`` or that the entry's size fits its magic's minimum.
    Raises :class:`MessageError` or :class:`DecompressionError` for an intact (CRC-checked) message that
    cannot be read.
    """
    if data[pos + 16]:
        offset, size, crc, magic, attributes, timestamp, n = HEAD1.unpack_from(data, pos)
        p = 14  # in the message from its magic byte on: after magic, attributes, timestamp and key length
        ts_type = LOG_APPEND_TIME if attributes & TIMESTAMP_TYPE_BIT else CREATE_TIME
        smallest = 22  # MIN_SIZE[1], spelled out: this runs once per message
    else:
        offset, size, crc, magic, attributes, n = HEAD0.unpack_from(data, pos)
        p = 6
        timestamp = -1
        ts_type = NO_TIMESTAMP_TYPE
        smallest = 14  # MIN_SIZE[0]
    following = pos + 12 + size
    if size < smallest or following > end:
        return None
    # One copy of the message (from its magic byte on, as its CRC covers it): the CRC runs over it and the
    # key and value are slices of it, fewer objects than a view and a copy for each.
    message = bytes(data[pos + CRC_START:following])
    if crc32(message) != crc:
        return None
    last = size - 4  # the length of the copy: the size field counts the CRC too
    key, value = key_and_value(message, p, last, n, pos + CRC_START, pos)
    codec = attributes & CODEC_MASK
    if codec == NONE:
        return (Batch(pos, size + 12, magic, offset, offset, NONE, 1, False, False, ts_type),
                [Record(offset, timestamp, ts_type, key, value, [])])
    if value is None:
        raise MessageError("a compressed wrapper message without a value")
    out = _inner(inflater.inflate(codec, value, magic))
    if magic:
        base = offset - out[-1].offset
        if base:
            for record in out:
                record.offset += base
        if ts_type == LOG_APPEND_TIME:
            for record in out:
                record.timestamp = timestamp
                record.timestamp_type = LOG_APPEND_TIME
    return Batch(pos, size + 12, magic, out[0].offset, out[-1].offset, codec, len(out), False, False, ts_type), out


def _inner(body: bytes) -> list[Record]:
    """The messages of a wrapper's inflated message set, as records with the offsets written inside (the
    caller makes magic 1's relative ones absolute). Each must be whole, CRC-checked and uncompressed.

    Constants and methods are bound to locals: this loop runs once per inner message."""
    out: list[Record] = []
    append = out.append
    make = Record
    unpack0, unpack1 = HEAD0.unpack_from, HEAD1.unpack_from
    pos, end = 0, len(body)
    while pos < end:
        magic = body[pos + 16] if pos + 18 <= end else -1
        if magic == 1 and pos + 30 <= end:
            offset, size, crc, magic, attributes, timestamp, n = unpack1(body, pos)
            p = pos + 30
            ts_type = LOG_APPEND_TIME if attributes & TIMESTAMP_TYPE_BIT else CREATE_TIME
            smallest = 22
        elif magic == 0 and pos + 22 <= end:
            offset, size, crc, magic, attributes, n = unpack0(body, pos)
            p = pos + 22
            timestamp, ts_type = -1, NO_TIMESTAMP_TYPE
            smallest = 14
        else:
            raise MessageError(_misfit(body, pos, len(out)))
        following = pos + 12 + size
        if size < smallest or following > end:
            raise MessageError(f"inner message {len(out)} at byte {pos}: magic {magic}, size {size} do not fit")
        if crc32(body[pos + CRC_START:following]) != crc:
            raise MessageError(f"inner message {len(out)} at byte {pos}: CRC mismatch")
        if attributes & CODEC_MASK:
            raise MessageError(f"inner message {len(out)} at byte {pos} is compressed again")
        key, value = key_and_value(body, p, following, n, 0, pos)
        append(make(offset, timestamp, ts_type, key, value, []))
        pos = following
    if not out:
        raise MessageError("a compressed wrapper message with no messages inside")
    return out


def _misfit(body: bytes, pos: int, index: int) -> str:
    """Why the inner message at ``pos`` cannot even have its header read: too few bytes, or a bad magic."""
    left = len(body) - pos
    if left < ENTRY.size:
        return f"inner message {index}: {left} bytes left, too few for a message"
    _, size, _, magic, _ = ENTRY.unpack_from(body, pos)
    return f"inner message {index} at byte {pos}: magic {magic}, size {size} do not fit"


__all__ = ["DecompressionError", "MessageError", "check", "read"]
