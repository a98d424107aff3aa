"""The sans-IO core: the bytes of one segment in, batches with their records and damage out, in file order.

Every entry of a segment, whatever its magic, starts with an int64 offset and an int32 length, and has
its magic byte at position 16, so one loop walks them all. An entry that fails its checks is reported
as :class:`SegmentDamage` and reading resumes at the next entry that passes them (found by scanning forward
for a plausible header whose CRC is right), so one bad batch loses only itself.

The loop yields a batch together with its records (a list), not record by record: a generator resumes
once per batch, which is most of what makes this faster than a per-record reader. An intact magic 2
batch, the common case, is read inline in the loop, an intact legacy message by ``legacy.read`` in one
call; anything else goes through the slower checks, which say what is wrong.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Iterator

from kafka_meta.log import legacy, v2
from kafka_meta.log.checksums import crc32c
from kafka_meta.log.compression import NONE, DecompressionError, Inflater
from kafka_meta.log.events import CREATE_TIME, LOG_APPEND_TIME, Batch, Record, SegmentDamage

ENTRY_HEAD = struct.Struct(">qi")  # offset, length: the first 12 bytes of every entry
MIN_LENGTH = {0: legacy.MIN_SIZE[0], 1: legacy.MIN_SIZE[1], 2: v2.HEADER_SIZE - 12}
CRC = struct.Struct(">I")
LENGTH = struct.Struct(">i")

MAGIC_BYTE = re.compile(rb"[\x00-\x02]")

Event = Batch | Record | SegmentDamage
Read = tuple[Batch, list[Record]] | SegmentDamage  # what the batch-level reader yields


def _valid_at(data: bytes | memoryview, pos: int, end: int) -> bool:
    """Whether a whole entry with a right CRC starts at ``pos``."""
    if end - pos < 17:
        return False
    magic = data[pos + 16]
    if magic == 2 and end - pos < v2.HEADER_SIZE:
        return False
    _, length = ENTRY_HEAD.unpack_from(data, pos)
    if magic not in MIN_LENGTH or length < MIN_LENGTH[magic] or pos + 12 + length > end:
        return False
    if magic == 2:
        (stored,) = CRC.unpack_from(data, pos + 17)
        return crc32c(data[pos + v2.CRC_START:pos + 12 + length]) == stored
    return legacy.check(data, pos, length)


def resync(data: bytes | memoryview, start: int, end: int) -> int:
    """The position of the next readable entry at or after ``start``, or ``end`` when there is none.

    Candidates are the positions 16 bytes before a byte 0, 1 or 2 (a magic byte), found by the regular
    expression engine, so a long damaged stretch costs Python work only where such a byte is.
    """
    for match in MAGIC_BYTE.finditer(data, start + 16, end):
        pos = match.start() - 16
        if _valid_at(data, pos, end):
            return pos
    return end


class SegmentReader:
    """Reads the entries of one segment held in memory (bytes, or a memoryview of an mmap).

    ``inflater`` bounds decompression (its ``limit``: bytes one batch may inflate to). ``from_offset``
    skips whole batches before it without inflating them, and the records before it.
    """

    def __init__(self, inflater: Inflater | None = None, from_offset: int | None = None) -> None:
        self.inflater = inflater or Inflater()
        self.from_offset = from_offset

    def events(self, data: bytes | memoryview) -> Iterator[Event]:
        """Batch, then its records, for each entry; damage where it is found."""
        return as_events(self.batches(data))

    def batches(self, data: bytes | memoryview) -> Iterator[Read]:
        """(batch, its records) for each readable entry, :class:`SegmentDamage` for each unreadable stretch."""
        pos, end = 0, len(data)
        start = self.from_offset
        unpack_header = v2.HEADER.unpack_from
        records = v2.records
        inflater = self.inflater
        inflate = inflater.inflate
        read_legacy = legacy.read
        batch_header, legacy_header = v2.HEADER_SIZE, legacy.WHOLE_HEAD
        while pos < end:
            left = end - pos
            magic = data[pos + 16] if left >= 17 else -1
            if magic == 2 and left >= batch_header:
                (base_offset, length, leader_epoch, _magic, crc, attributes, last_delta, first_ts, max_ts,
                 producer_id, producer_epoch, base_sequence, count) = unpack_header(data, pos)
                following = pos + 12 + length
                if length >= MIN_LENGTH[2] and following <= end and crc32c(data[pos + v2.CRC_START:following]) == crc:
                    last = base_offset + last_delta
                    if start is not None and last < start:
                        pos = following
                        continue
                    codec = attributes & 7
                    # attributes: codec (bits 0-2), LogAppendTime (3), transactional (4), control (5)
                    batch = Batch(pos, length + 12, 2, base_offset, last, codec, count, bool(attributes & 0x20),
                                  bool(attributes & 0x10), LOG_APPEND_TIME if attributes & 8 else CREATE_TIME,
                                  producer_id, producer_epoch, base_sequence, leader_epoch)
                    section = data[pos + batch_header:following]
                    try:
                        body = bytes(section) if codec == NONE else inflate(codec, section)
                        found = records(body, batch, first_ts, max_ts)
                    except DecompressionError as e:
                        kind = "too-big" if e.too_big else "decompression"
                        hint = " (raise the limit to read it)" if e.too_big else ""
                        yield SegmentDamage(pos, f"{batch.codec_name} batch: {e}{hint}", kind, base_offset, last)
                    except v2.RecordsError as e:
                        yield batch, self._wanted(e.records)
                        yield SegmentDamage(pos, str(e), "records", base_offset, last)
                    else:
                        yield batch, found if start is None else self._wanted(found)
                    pos = following
                    continue
            elif 0 <= magic < 2 and left >= legacy_header:
                try:
                    item = read_legacy(data, pos, end, inflater)
                except (DecompressionError, legacy.MessageError) as e:
                    yield self._legacy_damage(data, pos, e)
                    pos += 12 + LENGTH.unpack_from(data, pos + 8)[0]
                    continue
                if item is not None:
                    if start is None:
                        yield item
                    elif item[0].last_offset >= start:
                        yield item[0], self._wanted(item[1])
                    pos += item[0].size
                    continue
            pos = yield from self._slow(data, pos, end)

    def _slow(self, data: bytes | memoryview, pos: int, end: int) -> Iterator[Read]:
        """Reads the entry at ``pos`` that is not an intact magic 2 batch; returns where to go on."""
        left = end - pos
        if left < 17:
            if any(data[pos:end]):
                yield SegmentDamage(pos, f"{left} bytes at the end, too few for an entry header", "cut-off", size=left)
            return end
        base_offset, length = ENTRY_HEAD.unpack_from(data, pos)
        magic = data[pos + 16]
        if length == 0 and base_offset == 0 and not any(data[pos:end]):
            return end  # zeros after the last entry: space preallocated by the broker
        problem = self._problem(data, pos, end, length, magic)
        if problem is None:
            item = self._legacy(data, pos)
            if item is not None:
                yield item
            return pos + 12 + length
        reason, kind = problem
        claimed = base_offset if magic in MIN_LENGTH else None
        last = None
        if magic == 2 and left >= v2.HEADER_SIZE:
            last = base_offset + struct.unpack_from(">i", data, pos + 23)[0]
        following = pos + 12 + length
        if length > 0 and following < end and kind == "crc" and _valid_at(data, following, end):
            resume = following
        else:
            resume = resync(data, pos + 1, end)
        yield SegmentDamage(pos, reason, kind, claimed, last, resume - pos)
        return resume

    @staticmethod
    def _problem(data: bytes | memoryview, pos: int, end: int, length: int, magic: int) -> tuple[str, str] | None:
        if magic not in MIN_LENGTH:
            return f"magic byte {magic} is not 0, 1 or 2: not the start of a Kafka log entry", "magic"
        if length < MIN_LENGTH[magic]:
            return f"length {length} is too small for a magic {magic} entry", "length"
        if pos + 12 + length > end:
            return (f"the entry claims {length} bytes but only {end - pos - 12} remain (cut off, as after a "
                    f"crash, or a damaged length)", "cut-off")
        if magic == 2:  # an intact batch never gets here: the fast path in batches() took it
            (stored,) = CRC.unpack_from(data, pos + 17)
            actual = crc32c(data[pos + v2.CRC_START:pos + 12 + length])
            return f"CRC-32C mismatch: stored {stored:#010x}, computed {actual:#010x}", "crc"
        if not legacy.check(data, pos, length):
            return f"CRC-32 mismatch in a magic {magic} message", "crc"
        return None

    def _legacy(self, data: bytes | memoryview, pos: int) -> Read | None:
        """The (CRC-checked) legacy message at ``pos``: its batch and records, damage, or None when it lies
        before ``from_offset``."""
        try:
            item = legacy.read(data, pos, len(data), self.inflater)
        except (DecompressionError, legacy.MessageError) as e:
            return self._legacy_damage(data, pos, e)
        assert item is not None, "the caller checked the message's size and CRC"
        batch, found = item
        if self.from_offset is not None and batch.last_offset < self.from_offset:
            return None
        return batch, self._wanted(found)

    @staticmethod
    def _legacy_damage(data: bytes | memoryview, pos: int, error: Exception) -> SegmentDamage:
        """The damage of an intact (CRC-checked) legacy message that could not be read."""
        last = struct.unpack_from(">q", data, pos)[0]
        if isinstance(error, DecompressionError):
            kind = "too-big" if error.too_big else "decompression"
            return SegmentDamage(pos, f"magic {data[pos + 16]} wrapper: {error}", kind, None, last)
        return SegmentDamage(pos, f"magic {data[pos + 16]} message: {error}", "records", None, last)

    def _wanted(self, found: list[Record]) -> list[Record]:
        start = self.from_offset
        return found if start is None else [r for r in found if r.offset >= start]


def as_events(reads: Iterable[Read]) -> Iterator[Event]:
    """The event form of :meth:`SegmentReader.batches`: each batch, then its records; damage as it comes."""
    for item in reads:
        if type(item) is tuple:
            yield item[0]
            yield from item[1]
        else:
            yield item


def read_segment(data: bytes | memoryview, *, limit: int | None = None,
                 from_offset: int | None = None) -> Iterator[Event]:
    """Batches, records and damage of one segment's bytes (see :class:`SegmentReader`)."""
    inflater = Inflater(limit) if limit is not None else None
    return SegmentReader(inflater, from_offset).events(data)
