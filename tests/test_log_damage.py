"""Damage is reported with where and which offsets, and every readable record around it is still read."""

from __future__ import annotations

import os
import random
import struct

import pytest
from log_support import LOGS, copy_partition, entries, kafka_python_batch, recrc

from kafka_meta.log import Record, SegmentDamage, read_log
from kafka_meta.log.segment import read_segment

SEGMENT = LOGS / "__consumer_offsets-0" / "00000000000000000000.log"  # 5 batches, 20 records, every codec


def records(data: bytes, **options) -> list[Record]:
    return [e for e in read_segment(data, **options) if isinstance(e, Record)]


def damage(data: bytes, **options) -> list[SegmentDamage]:
    return [e for e in read_segment(data, **options) if isinstance(e, SegmentDamage)]


def test_crc_mismatch_loses_only_its_batch():
    data = bytearray(SEGMENT.read_bytes())
    pos, size = entries(bytes(data))[2]  # the snappy batch, offsets 8..11
    data[pos + size - 3] ^= 0xFF
    found = damage(bytes(data))
    assert len(found) == 1 and found[0].kind == "crc" and found[0].position == pos
    assert (found[0].first_offset, found[0].last_offset) == (8, 11)
    assert [r.offset for r in records(bytes(data))] == [*range(8), *range(12, 20)]


def test_damaged_length_is_read_around():
    data = bytearray(SEGMENT.read_bytes())
    pos, _ = entries(bytes(data))[1]
    struct.pack_into(">i", data, pos + 8, 0x7FFFFFF0)  # a batch claiming 2 GB
    found = damage(bytes(data))
    assert len(found) == 1 and found[0].kind == "cut-off" and "2147483632 bytes" in found[0].reason
    assert [r.offset for r in records(bytes(data))] == [*range(4), *range(8, 20)]


def test_batch_cut_off_at_the_end():
    data = SEGMENT.read_bytes()
    pos, size = entries(data)[-1]
    cut = data[:pos + size // 2]
    found = damage(cut)
    assert len(found) == 1 and found[0].kind == "cut-off" and found[0].position == pos
    assert found[0].first_offset == 16 and found[0].size == len(cut) - pos
    assert [r.offset for r in records(cut)] == list(range(16))
    assert damage(data[:pos + 9])[0].reason.endswith("too few for an entry header")


def test_decompression_failure_with_a_right_crc():
    batch = bytearray(kafka_python_batch(4, [(b"k", b"v" * 1000)], offset=3))
    batch[70:80] = b"\xAA" * 10  # inside the zstd frame
    recrc(batch)
    data = SEGMENT.read_bytes() + bytes(batch)
    found = damage(data)
    assert len(found) == 1 and found[0].kind == "decompression" and found[0].first_offset == 3
    assert "zstd batch" in found[0].reason
    assert len(records(data)) == 20


@pytest.mark.parametrize("codec", [1, 2, 3, 4], ids=["gzip", "snappy", "lz4", "zstd"])
def test_bombs_are_bounded(codec):
    bomb = kafka_python_batch(codec, [(b"k", bytes(4 << 20))], offset=20)
    assert len(bomb) < 300_000
    data = SEGMENT.read_bytes() + bomb + SEGMENT.read_bytes()[:entries(SEGMENT.read_bytes())[0][1]]
    found = damage(data, limit=1 << 20)
    assert len(found) == 1 and found[0].kind == "too-big" and "limit of 1048576 bytes" in found[0].reason
    assert len(records(data, limit=1 << 20)) == 24  # before and after the bomb
    big = [r for r in records(data, limit=8 << 20) if r.offset == 20]
    assert len(big) == 1 and big[0].value == bytes(4 << 20)  # a raised limit reads it


def test_non_kafka_file():
    text = b"#!/bin/sh\necho this is not a Kafka log segment, it only has a .log name\n" * 3
    found = damage(text)
    assert len(found) == 1 and found[0].kind == "magic" and found[0].size == len(text)


def test_garbage_between_batches():
    data = SEGMENT.read_bytes()
    pos, _ = entries(data)[3]
    spliced = data[:pos] + os.urandom(333) + data[pos:]
    found = damage(spliced)
    assert len(found) == 1 and found[0].position == pos and found[0].size == 333
    assert [r.offset for r in records(spliced)] == list(range(20))


@pytest.mark.parametrize("seed", range(25))
def test_random_bytes_never_raise(seed):
    rng = random.Random(seed)
    data = rng.randbytes(rng.randrange(0, 5000))
    if seed % 2:  # random bytes with real batches inside
        real = SEGMENT.read_bytes()
        data = data[:len(data) // 2] + real + data[len(data) // 2:]
    events = list(read_segment(data))
    assert all(isinstance(e, (SegmentDamage, Record)) or e.magic in (0, 1, 2) for e in events)
    if seed % 2:
        assert len([e for e in events if isinstance(e, Record)]) >= 20


def test_empty_and_preallocated_segments(tmp_path):
    assert list(read_segment(b"")) == []
    data = SEGMENT.read_bytes()
    assert len(records(data + bytes(4096))) == 20 and damage(data + bytes(4096)) == []
    directory = copy_partition(tmp_path, 0)
    (directory / "00000000000000000099.log").write_bytes(b"")
    assert len(list(read_log(directory))) == 39


def test_damage_row_names_file_position_and_offsets(tmp_path):
    directory = copy_partition(tmp_path, 0)
    path = directory / "00000000000000000000.log"
    data = bytearray(path.read_bytes())
    pos, _ = entries(bytes(data))[4]
    data[pos + 40] ^= 1
    path.write_bytes(bytes(data))
    rows = list(read_log(directory))
    bad = [r for r in rows if r["_error"]]
    assert len(bad) == 1 and bad[0]["offset"] == 16 and bad[0]["partition"] == 0
    assert bad[0]["_error"].startswith(f"{path}, byte {pos}, offsets 16..19: CRC-32C mismatch")
    assert len(rows) == 39 - 4 + 1


def test_lz4_frames_without_a_content_size_are_bounded_by_their_blocks():
    """Java's and librdkafka's lz4 frames do not declare their size: the bound is blocks x block size."""
    import lz4.frame

    from kafka_meta.log.compression import DecompressionError, Inflater, lz4_bound

    data = bytes(3 << 20)
    frame = lz4.frame.compress(data, store_size=False, block_size=lz4.frame.BLOCKSIZE_MAX64KB)
    assert lz4_bound(frame) == 48 * (64 << 10)  # 3 MiB in 64 KiB blocks
    assert Inflater(4 << 20).inflate(3, frame) == data
    with pytest.raises(DecompressionError, match="beyond the limit"):
        Inflater(1 << 20).inflate(3, frame)
    with pytest.raises(DecompressionError, match="ends inside a block header"):
        Inflater(4 << 20).inflate(3, frame[:100])


def test_records_damaged_inside_an_intact_batch():
    """A batch whose CRC holds but whose third record's length is wrong (written so): the two records
    before it are read, the batch is reported, and the batches after it are read."""
    data = bytearray(SEGMENT.read_bytes())
    pos, _ = entries(bytes(data))[0]  # uncompressed, offsets 0..3
    records_start = pos + 61
    third = records_start
    for _ in range(2):  # skip two records: a varint length (zigzag), then that many bytes
        value, shift, n = 0, 0, 0
        while True:
            b = data[third + n]
            value |= (b & 0x7F) << shift
            n += 1
            shift += 7
            if b < 0x80:
                break
        third += n + ((value >> 1) ^ -(value & 1))
    data[third] = 0x7E  # a length of 63: past the end of this record
    recrc(data, pos)
    found = damage(bytes(data))
    assert len(found) == 1 and found[0].kind == "records" and found[0].reason.startswith("record 2 of 4")
    assert (found[0].first_offset, found[0].last_offset, found[0].size) == (0, 3, 0)
    assert [r.offset for r in records(bytes(data))] == [0, 1, *range(4, 20)]
