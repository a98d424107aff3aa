"""Legacy message sets (magic 0 and 1) beyond the fixtures: wrappers whose inner message sets are damaged
though their CRC holds, LogAppendTime wrappers, and ``from_offset`` inside a wrapper.

Inner message sets are written by kafka-python's ``MemoryRecordsBuilder`` (uncompressed), then damaged and
compressed into a wrapper message whose CRC-32 is right, as a broker would have stored what a faulty
producer sent: the CRC only proves the bytes were written so.
"""

from __future__ import annotations

import gzip
import struct
import zlib

import pytest
from kafka.record import MemoryRecords
from kafka.record.memory_records import MemoryRecordsBuilder

from kafka_meta.log import Batch, Record, SegmentDamage
from kafka_meta.log.segment import read_segment

PAYLOADS = [(b"key-%d" % i, b"value-%d" % i * (i + 1)) for i in range(4)]
TIMESTAMP = 1767225600000


def message_set(magic: int, records: list[tuple[bytes | None, bytes | None]] = PAYLOADS, offset: int = 0) -> bytes:
    """Uncompressed messages of ``magic`` at ``offset``, ``offset + 1``, ... as kafka-python writes them."""
    builder = MemoryRecordsBuilder(magic, 0, batch_size=1 << 20, offset=offset)
    for i, (key, value) in enumerate(records):
        assert builder.append(TIMESTAMP + i, key, value) is not None
    builder.close()
    return bytes(builder.buffer())


def wrapper(magic: int, inner: bytes, offset: int, log_append_time: bool = False) -> bytes:
    """A gzip wrapper message holding ``inner`` (a message set, damaged or not), its CRC-32 right."""
    value = gzip.compress(inner)
    attributes = 1 | (0x08 if log_append_time else 0)
    body = bytes([magic, attributes]) + (struct.pack(">q", TIMESTAMP + 9999) if magic else b"")
    body += struct.pack(">i", -1) + struct.pack(">i", len(value)) + value
    return struct.pack(">qiI", offset, 4 + len(body), zlib.crc32(body)) + body


def recrc_messages(data: bytearray) -> None:
    """Make the CRC-32 of every whole message in ``data`` right again (after a test changed its bytes)."""
    pos = 0
    while pos + 16 <= len(data):
        size = struct.unpack_from(">i", data, pos + 8)[0]
        if size < 4 or pos + 12 + size > len(data):
            return
        struct.pack_into(">I", data, pos + 12, zlib.crc32(bytes(data[pos + 16:pos + 12 + size])))
        pos += 12 + size


def events(data: bytes, **options) -> tuple[list[Record], list[SegmentDamage]]:
    found = list(read_segment(data, **options))
    return [e for e in found if isinstance(e, Record)], [e for e in found if isinstance(e, SegmentDamage)]


@pytest.mark.parametrize("magic", [0, 1])
@pytest.mark.parametrize("stray", [1, 16, 17, 18, 25, 33])
def test_stray_bytes_after_the_inner_messages(magic, stray):
    """A few bytes after the last inner message, too few for one: damage, never an exception. (17 bytes
    used to raise struct.error: the check counted 17 header bytes where reading it takes 18.)"""
    inner = message_set(magic) + bytes(range(1, stray + 1))
    after = message_set(magic, [(b"after", b"it")], offset=20)
    records, damage = events(wrapper(magic, inner, 3) + after)
    assert [r.key for r in records] == [b"after"]
    assert len(damage) == 1 and damage[0].kind == "records" and damage[0].position == 0
    assert f"magic {magic} message: inner message 4" in damage[0].reason
    assert ("too few for a message" in damage[0].reason) == (stray < 18)


@pytest.mark.parametrize("magic", [0, 1])
def test_damaged_inner_messages_are_reported_with_what_and_where(magic):
    key_length_at = 18 if magic == 0 else 26  # in the first inner message
    second = 12 + struct.unpack_from(">i", message_set(magic), 8)[0]
    cases = {
        "key length": (lambda d: struct.pack_into(">i", d, key_length_at, 5000), True,
                       f"the key length 5000 at byte {key_length_at} runs past the message"),
        "CRC": (lambda d: d.__setitem__(second + 40, d[second + 40] ^ 1), False,
                f"inner message 1 at byte {second}: CRC mismatch"),
        "compressed again": (lambda d: d.__setitem__(second + 17, 2), True,
                             f"inner message 1 at byte {second} is compressed again"),
        "magic": (lambda d: d.__setitem__(second + 16, 7), True, f"inner message 1 at byte {second}: magic 7"),
    }
    for name, (damage_it, recrc, reason) in cases.items():
        inner = bytearray(message_set(magic))
        damage_it(inner)
        if recrc:
            recrc_messages(inner)
        records, damage = events(message_set(magic, offset=0) + wrapper(magic, bytes(inner), 7))
        assert len(records) == 4, name  # the messages before the wrapper
        assert len(damage) == 1 and damage[0].kind == "records", name
        assert damage[0].reason.startswith(f"magic {magic} message: {reason}"), name


@pytest.mark.parametrize("magic", [0, 1])
def test_bytes_after_the_value_and_empty_wrappers(magic):
    inner = bytearray(message_set(magic, [(b"k", b"v")]))
    inner[8:12] = struct.pack(">i", struct.unpack_from(">i", inner, 8)[0] + 3)
    inner += b"xyz"
    recrc_messages(inner)
    _, damage = events(wrapper(magic, bytes(inner), 0))
    assert [d.reason for d in damage] == [f"magic {magic} message: 3 bytes after the value of the message at byte 0"]
    _, damage = events(wrapper(magic, b"", 0))
    assert [d.reason for d in damage] == [f"magic {magic} message: a compressed wrapper message with no messages "
                                          f"inside"]


def kafka_python_records(data: bytes) -> list[tuple]:
    batches, out = MemoryRecords(data), []
    while (batch := batches.next_batch()) is not None:
        assert batch.validate_crc()
        out += [(r.offset, r.timestamp, r.timestamp_type, r.key, r.value) for r in batch]
    return out


@pytest.mark.parametrize("log_append_time", [False, True])
def test_magic_1_wrapper_offsets_and_timestamps_agree_with_kafka_python(log_append_time):
    """Relative inner offsets made absolute from the wrapper's (that of the last), and a LogAppendTime
    wrapper's timestamp given to every inner message, as kafka-python's reader does."""
    data = (message_set(1, offset=0) + wrapper(1, message_set(1), 7, log_append_time)
            + wrapper(1, message_set(1, PAYLOADS[:2]), 9, log_append_time))
    found = list(read_segment(data))
    records = [(r.offset, r.timestamp, r.timestamp_type, r.key, r.value) for r in found if isinstance(r, Record)]
    assert records == kafka_python_records(data)
    assert [r[0] for r in records] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert all(r[1:3] == (TIMESTAMP + 9999, 1) for r in records[4:]) == log_append_time
    wrappers = [b for b in found if isinstance(b, Batch) and b.codec]
    assert [(b.base_offset, b.last_offset, b.count, b.timestamp_type) for b in wrappers] == [
        (4, 7, 4, int(log_append_time)), (8, 9, 2, int(log_append_time))]


@pytest.mark.parametrize("magic", [0, 1])
def test_from_offset_inside_a_wrapper(magic):
    inner = message_set(magic, offset=10 if magic == 0 else 0)
    data = message_set(magic, offset=6) + wrapper(magic, inner, 13)
    records, _ = events(data, from_offset=12)
    assert [r.offset for r in records] == [12, 13]
    records, _ = events(data, from_offset=14)
    assert records == []
