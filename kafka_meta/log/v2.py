"""Record batches of magic 2 (Kafka 0.11+): the 61-byte header and the varint-framed records after it.

The header is read inline by the segment loop (``segment.SegmentReader.batches``) with :data:`HEADER`.
The record loop is the hot path of the whole package: varints that fit one byte (nearly all lengths,
deltas and counts in ``__consumer_offsets``) are read inline, the rest by the wire layer's
:func:`~kafka_meta.wire.runtime.varlong`.
"""

from __future__ import annotations

import struct

from kafka_meta.log.events import LOG_APPEND_TIME, Batch, Record
from kafka_meta.wire.runtime import Fault, varlong

HEADER = struct.Struct(">qiibIhiqqqhii")  # baseOffset .. recordsCount
HEADER_SIZE = HEADER.size  # 61
CRC_START = 21  # the CRC covers the batch from its attributes on
MIN_RECORD = 7  # length, attributes, timestamp delta, offset delta, key length, value length, headers count


class RecordsError(Exception):
    """The records of a batch (whose CRC was right) could not all be read; ``records`` holds those read."""

    def __init__(self, reason: str, records: list[Record]) -> None:
        super().__init__(reason)
        self.records = records


def records(buf: bytes, batch: Batch, first_timestamp: int, max_timestamp: int) -> list[Record]:
    """Every record of ``buf`` (the batch's records section, inflated if it was compressed).

    Raises :class:`RecordsError` with the records read before the damage. Offsets and timestamps are
    absolute; under LogAppendTime every record takes the batch's max timestamp, as consumers see it.
    Varints of one and two bytes (record and value lengths of offsets records take two) are read inline.
    """
    out: list[Record] = []
    append = out.append
    make = Record
    pos, end = 0, len(buf)
    base_offset, control = batch.base_offset, batch.control
    ts_type = batch.timestamp_type
    log_append = ts_type == LOG_APPEND_TIME
    count = batch.count
    if count < 0 or count > end // MIN_RECORD + 1:
        raise RecordsError(f"the batch claims {count} records, more than its {end} bytes can hold", out)
    try:
        for _ in range(count):
            b = buf[pos]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                pos += 1
            elif buf[pos + 1] < 0x80:
                raw = (b & 0x7F) | (buf[pos + 1] << 7)
                length = (raw >> 1) ^ -(raw & 1)
                pos += 2
            else:
                length, pos = varlong(buf, pos)
            record_end = pos + length
            if length < MIN_RECORD - 1 or record_end > end:
                raise ValueError(f"record length {length} at byte {pos} does not fit the {end - pos} bytes left")
            b = buf[pos + 1]  # after the attributes, which are unused
            if b < 0x80:
                ts_delta = (b >> 1) ^ -(b & 1)
                pos += 2
            else:
                ts_delta, pos = varlong(buf, pos + 1)
            b = buf[pos]
            if b < 0x80:
                offset_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                offset_delta, pos = varlong(buf, pos)
            b = buf[pos]
            if b < 0x80:
                n = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                n, pos = varlong(buf, pos)
            if n >= 0:
                key = buf[pos:pos + n]
                pos += n
            elif n == -1:
                key = None
            else:
                raise ValueError(f"key length {n} at byte {pos}")
            b = buf[pos]
            if b < 0x80:
                n = (b >> 1) ^ -(b & 1)
                pos += 1
            elif buf[pos + 1] < 0x80:
                raw = (b & 0x7F) | (buf[pos + 1] << 7)
                n = (raw >> 1) ^ -(raw & 1)
                pos += 2
            else:
                n, pos = varlong(buf, pos)
            if n >= 0:
                value = buf[pos:pos + n]
                pos += n
            elif n == -1:
                value = None
            else:
                raise ValueError(f"value length {n} at byte {pos}")
            if buf[pos] == 0:
                headers = []
                pos += 1
            else:
                headers, pos = _headers(buf, pos, record_end)
            if pos != record_end:
                raise ValueError(f"a record ends at byte {pos}, not at {record_end} where its length says")
            append(make(base_offset + offset_delta, max_timestamp if log_append else first_timestamp + ts_delta,
                        ts_type, key, value, headers, control))
    except (ValueError, Fault, IndexError) as e:
        reason = f"the records end early, at byte {end}" if isinstance(e, IndexError) else str(e)
        raise RecordsError(f"record {len(out)} of {count}: {reason}", out) from None
    if pos != end:
        raise RecordsError(f"{end - pos} bytes after the last of the {count} records", out)
    return out


def _headers(buf: bytes, pos: int, end: int) -> tuple[list[tuple[str, bytes | None]], int]:
    """The headers of a record at ``pos``: their count, then each key and value, every length a varint
    (of one byte, read inline, but for long keys or values)."""
    b = buf[pos]
    if b < 0x80:
        count = (b >> 1) ^ -(b & 1)
        pos += 1
    else:
        count, pos = varlong(buf, pos)
    if count < 0 or count > end - pos:
        raise ValueError(f"{count} headers cannot fit at byte {pos}")
    headers = []
    for _ in range(count):
        b = buf[pos]
        if b < 0x80:
            n = (b >> 1) ^ -(b & 1)
            pos += 1
        else:
            n, pos = varlong(buf, pos)
        if n < 0 or pos + n > end:
            raise ValueError(f"header key length {n} at byte {pos}")
        try:
            name = bytes(buf[pos:pos + n]).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"header key at byte {pos} is not UTF-8") from None
        pos += n
        b = buf[pos]
        if b < 0x80:
            n = (b >> 1) ^ -(b & 1)
            pos += 1
        else:
            n, pos = varlong(buf, pos)
        if n < -1 or pos + n > end:
            raise ValueError(f"header value length {n} at byte {pos}")
        headers.append((name, None if n == -1 else bytes(buf[pos:pos + n])))
        pos = pos if n == -1 else pos + n
    return headers, pos
