"""Bounded decompression of record batches and legacy wrapper messages: ``cramjam``, and ``zlib`` for gzip.

``cramjam`` is one wheel (about 4 MB installed) with snappy, lz4 and zstd in Rust; the per-codec bindings
(``lz4`` + ``zstandard`` + ``python-snappy``) take about 30 MB together, and ``python-snappy`` itself
depends on cramjam now. ``bench/log_bench.py`` times both on the same batches. For gzip the standard
library's zlib is faster than cramjam's and bounds its output natively (``max_length``).

Every codec writes into a buffer of at most ``limit`` bytes: cramjam stops with an error as soon as the
buffer is full, so a batch that would inflate beyond the limit (a zip bomb, a corrupt length) costs at
most ``limit`` bytes and the time to fill them, never more. The buffer starts small and grows fourfold up
to the limit, so ordinary batches do not pay for the limit. Snappy says its inflated size up front, and
that is checked before inflating.
"""

from __future__ import annotations

import zlib

import cramjam

from kafka_meta.log.checksums import xxh32

NONE, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4
CODEC_NAMES = {NONE: "none", GZIP: "gzip", SNAPPY: "snappy", LZ4: "lz4", ZSTD: "zstd"}
DEFAULT_LIMIT = 128 * 1024 * 1024  # bytes one batch may inflate to, unless the caller raises it

XERIAL_MAGIC = b"\x82SNAPPY\x00"  # the framing of Java's snappy-java SnappyOutputStream, used by Kafka
XERIAL_HEADER = 16  # magic, int32 version, int32 compatible version
LZ4_MAGIC = b"\x04\x22\x4d\x18"
_FULL = "whole buffer"  # what cramjam says when the output buffer is full


class DecompressionError(Exception):
    """Compressed data that could not be inflated; ``too_big`` when it would exceed the limit."""

    def __init__(self, reason: str, too_big: bool = False) -> None:
        super().__init__(reason)
        self.too_big = too_big


class Inflater:
    """Decompresses one batch at a time into a reusable buffer, never beyond ``limit`` bytes."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        if limit <= 0:
            raise ValueError(f"the decompression limit must be positive, not {limit}")
        self.limit = limit
        self._buffer = bytearray(min(limit + 1, 1 << 20))

    def inflate(self, codec: int, data: bytes | memoryview, magic: int = 2) -> bytes:
        """The inflated bytes of ``data`` compressed with ``codec`` (Kafka's attribute numbering)."""
        if codec == GZIP:
            return self._gzip(data)
        if codec == SNAPPY:
            return self._snappy(bytes(data))
        if codec == LZ4:
            return self._into(cramjam.lz4.decompress_into, lz4_frame(bytes(data), magic))
        if codec == ZSTD:
            return self._into(cramjam.zstd.decompress_into, data)
        raise DecompressionError(f"unknown compression codec {codec}")

    def _too_big(self) -> DecompressionError:
        return DecompressionError(f"inflates beyond the limit of {self.limit} bytes", too_big=True)

    def _into(self, decompress, data: bytes | memoryview) -> bytes:
        while True:
            try:
                n = decompress(data, self._buffer)
            except cramjam.DecompressionError as e:
                if _FULL not in str(e):
                    raise DecompressionError(str(e)) from None
                if len(self._buffer) > self.limit:
                    raise self._too_big() from None
                self._buffer = bytearray(min(self.limit + 1, len(self._buffer) * 4))
                continue
            if n > self.limit:
                raise self._too_big()
            return bytes(memoryview(self._buffer)[:n])

    def _gzip(self, data: bytes | memoryview) -> bytes:
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out = decompressor.decompress(data, self.limit + 1)
        except zlib.error as e:
            raise DecompressionError(f"gzip: {e}") from None
        if len(out) > self.limit or decompressor.unconsumed_tail:
            raise self._too_big()
        if not decompressor.eof:
            raise DecompressionError("gzip: the stream ends before its end marker")
        return out

    def _snappy(self, data: bytes) -> bytes:
        if not data.startswith(XERIAL_MAGIC):
            return self._raw_snappy(data, 0)
        if len(data) < XERIAL_HEADER:
            raise DecompressionError("snappy: the xerial header is cut off")
        parts, total, pos = [], 0, XERIAL_HEADER
        while pos < len(data):
            if pos + 4 > len(data):
                raise DecompressionError(f"snappy: a xerial block length is cut off at byte {pos}")
            size = int.from_bytes(data[pos:pos + 4], "big")
            pos += 4
            if size > len(data) - pos:
                raise DecompressionError(f"snappy: a xerial block of {size} bytes runs past the data at byte {pos}")
            block = self._raw_snappy(data[pos:pos + size], total)
            total += len(block)
            parts.append(block)
            pos += size
        return b"".join(parts)

    def _raw_snappy(self, data: bytes, already: int) -> bytes:
        try:
            size = cramjam.snappy.decompress_raw_len(data)
        except cramjam.DecompressionError as e:
            raise DecompressionError(f"snappy: {e}") from None
        if already + size > self.limit:
            raise self._too_big()
        try:
            return bytes(cramjam.snappy.decompress_raw(data))
        except cramjam.DecompressionError as e:
            raise DecompressionError(str(e)) from None


def lz4_frame(data: bytes, magic: int) -> bytes:
    """The LZ4 frame, with its header checksum repaired for magic 0 messages.

    Kafka's first LZ4 writer hashed the frame magic together with the descriptor, so every magic 0 LZ4
    message carries a header checksum no standard reader accepts; Kafka ignores it for magic 0, and so
    do we, by putting the right one in place before handing the frame to the decoder.
    """
    if magic != 0 or len(data) < 7 or not data.startswith(LZ4_MAGIC):
        return data
    flags = data[4]
    size = 2 + (8 if flags & 0x08 else 0) + (4 if flags & 0x01 else 0)
    if len(data) < 4 + size + 1:
        return data
    checksum = (xxh32(data[4:4 + size]) >> 8) & 0xFF
    return data[:4 + size] + bytes([checksum]) + data[4 + size + 1:]
