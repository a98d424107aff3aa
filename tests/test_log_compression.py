"""Bounded decompression takes shortcuts where the limit cannot be reached; they must not change a result.

gzip data too small to reach the limit even at deflate's largest ratio is inflated in one call; larger data
through the bounded stream. Both must give the same bytes, and the same error for corrupt data.
"""

from __future__ import annotations

import random

import pytest
from kafka import codec as kafka_codec

from kafka_meta.log.compression import DEFLATE_MAX_RATIO, GZIP, DecompressionError, Inflater
from kafka_meta.log.compression import lz4_frame as repaired_lz4_frame


def outcome(inflater: Inflater, data: bytes) -> bytes | str:
    try:
        return inflater.inflate(GZIP, data)
    except DecompressionError as e:
        return f"{e} too_big={e.too_big}"


def damaged_copies(data: bytes, rng: random.Random) -> list[bytes]:
    out = [data, data[:-1], data[:-8], data[:10], data[:len(data) // 2], data + b"trailing", data + data]
    for _ in range(200):
        copy = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            copy[rng.randrange(len(copy))] = rng.randrange(256)
        out.append(bytes(copy))
    return out


@pytest.mark.parametrize("size", [40, 900, 20_000])
def test_gzip_in_one_call_agrees_with_the_bounded_stream(size):
    rng = random.Random(size)
    plain = bytes(rng.choice(b"abc\x00") for _ in range(size))
    compressed = kafka_codec.gzip_encode(plain)  # what kafka-python's producer writes
    # between the inflated size and deflate's bound: the shortcut cannot be taken, the limit is not reached
    bounded = Inflater(len(compressed) * DEFLATE_MAX_RATIO - 1)
    one_call = Inflater(len(compressed) * DEFLATE_MAX_RATIO)
    assert bounded.limit >= size
    assert outcome(one_call, compressed) == outcome(bounded, compressed) == plain
    results = [(outcome(one_call, d), outcome(bounded, d)) for d in damaged_copies(compressed, rng)]
    assert all(a == b for a, b in results)
    assert any(isinstance(a, str) for a, _ in results)  # some copies are corrupt, and said so


def test_gzip_bomb_under_a_limit_is_refused_without_the_shortcut():
    compressed = kafka_codec.gzip_encode(bytes(4 << 20))
    assert len(compressed) * DEFLATE_MAX_RATIO > 1 << 20
    assert outcome(Inflater(1 << 20), compressed).endswith("limit of 1048576 bytes too_big=True")
    assert outcome(Inflater(8 << 20), compressed) == bytes(4 << 20)


def test_repaired_lz4_header_checksum_is_cached_per_descriptor():
    """Kafka's magic 0 lz4 frames (kafka-python writes them as Kafka's first writer did) read with the same
    repaired header checksum whether computed or taken from the cache."""
    import lz4.frame

    for payload in (b"x" * 10, b"offsets" * 300):
        frame = kafka_codec.lz4_encode_old_kafka(payload)
        assert lz4.frame.decompress(repaired_lz4_frame(frame, 0)) == payload
        assert lz4.frame.decompress(repaired_lz4_frame(frame, 0)) == payload  # from the cache
        assert Inflater().inflate(3, frame, magic=0) == payload


@pytest.mark.parametrize("size", [30, 2000, 300_000])
def test_zstd_in_one_call_agrees_with_the_chunked_reading(size):
    """A frame declaring its size (as kafka-python's and the Java client's do) inflates in one call; the
    chunked reading, taken for frames without a size (librdkafka's), must give the same bytes and errors."""
    import zstandard

    rng = random.Random(size)
    plain = bytes(rng.choice(b"xyz\x00") for _ in range(size))
    sized = kafka_codec.zstd_encode(plain)
    assert zstandard.frame_content_size(sized) == size
    unsized = zstandard.ZstdCompressor(write_content_size=False).compress(plain)
    inflater = Inflater()

    def chunked(data: bytes) -> bytes | str:
        try:
            return inflater._zstd_chunks(data)
        except DecompressionError as e:
            return str(e)

    def ours(data: bytes) -> bytes | str:
        try:
            return inflater.inflate(4, data)
        except DecompressionError as e:
            return str(e)

    assert ours(sized) == ours(unsized) == chunked(sized) == plain
    assert ours(sized + unsized) == plain + plain  # two frames: read across, as the chunked reading does
    copies = damaged_copies(sized, rng)[1:]
    assert all(ours(d) == chunked(d) for d in copies)
