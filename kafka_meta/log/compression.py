"""Bounded decompression of record batches and legacy wrapper messages.

Libraries, chosen by ``bench/log_bench.py`` (which times them on the fixtures' real batches): ``zlib``
(standard library) for gzip, with ``zlib-ng`` (the same format, vector instructions) where one call
suffices; ``lz4`` and ``zstandard`` for lz4 and zstd, about 10 to 20 times faster than ``cramjam`` on the
small batches of ``__consumer_offsets`` (cramjam pays some microseconds of set-up per call); ``cramjam``
for snappy, faster than ``python-snappy`` (which wraps cramjam anyway). cramjam is one 4 MB wheel with
every codec; lz4 + zstandard add about 30 MB installed, a price paid for speed.

Nothing inflates beyond ``limit`` bytes, so a hostile or corrupt batch (a zip bomb, a damaged length)
cannot exhaust memory: gzip through zlib's ``max_length`` (or in one call when even deflate's largest ratio
keeps it under the limit); zstd in one call when its frame declares a size within the limit, else
read in chunks from a stream reader;
snappy and lz4 by the sizes their framing declares up front (snappy's inflated length; lz4's content size,
or its block count times its block size), checked before inflating.
"""

from __future__ import annotations

import functools
import struct
import zlib

import cramjam
import lz4.frame
import zstandard
from zlib_ng import zlib_ng

from kafka_meta.log.checksums import xxh32

NONE, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4
CODEC_NAMES = {NONE: "none", GZIP: "gzip", SNAPPY: "snappy", LZ4: "lz4", ZSTD: "zstd"}
DEFAULT_LIMIT = 128 * 1024 * 1024  # bytes one batch may inflate to, unless the caller raises it

XERIAL_MAGIC = b"\x82SNAPPY\x00"  # the framing of Java's snappy-java SnappyOutputStream, used by Kafka
XERIAL_HEADER = 16  # magic, int32 version, int32 compatible version
XERIAL_BLOCK = struct.Struct(">I")  # the length before each block
LZ4_MAGIC = b"\x04\x22\x4d\x18"
ZSTD_CHUNK = 256 * 1024
GZIP_WBITS = 16 + zlib.MAX_WBITS  # a gzip header and trailer around the deflate stream
GZIP_FIRST_BUFFER = 8192
DEFLATE_MAX_RATIO = 1032  # the most deflate can inflate one byte to: a 258-byte match coded in two bits
ZSTD_MAX_RATIO = 1 << 15  # the most zstd can inflate one byte to: a 128 KiB run-length block from 4 bytes
LZ4_BLOCK_SIZES = {4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20}  # the BD byte's maximum block size


class DecompressionError(Exception):
    """Compressed data that could not be inflated; ``too_big`` when it would exceed the limit."""

    def __init__(self, reason: str, too_big: bool = False) -> None:
        super().__init__(reason)
        self.too_big = too_big


class Inflater:
    """Decompresses one batch at a time, never beyond ``limit`` bytes."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        if limit <= 0:
            raise ValueError(f"the decompression limit must be positive, not {limit}")
        self.limit = limit
        self._zstd = zstandard.ZstdDecompressor()

    def inflate(self, codec: int, data: bytes | memoryview, magic: int = 2) -> bytes:
        """The inflated bytes of ``data`` compressed with ``codec`` (Kafka's attribute numbering).

        Called once per compressed batch or wrapper, which in ``__consumer_offsets`` inflate to a few hundred
        bytes: the common cases are dispatched here with as few Python steps as possible."""
        if codec == GZIP:
            if len(data) * DEFLATE_MAX_RATIO <= self.limit:
                # It cannot inflate beyond the limit, so one call does, with a small first buffer, through
                # zlib-ng: a third of the cost of the bounded stream on the small batches of
                # __consumer_offsets, whose set-up (a 32 KiB first buffer for the limit given) outweighs them.
                try:
                    return zlib_ng.decompress(data, GZIP_WBITS, GZIP_FIRST_BUFFER)
                except zlib_ng.error:
                    pass  # the bounded stream says what is wrong, in the same words as for larger data
            return self._gzip(data)
        if codec == SNAPPY:
            return self._snappy(bytes(data))
        if codec == LZ4:
            return self._lz4(lz4_frame(bytes(data), 0) if magic == 0 else bytes(data))
        if codec == ZSTD:
            return self._zstd_frame(data)
        raise DecompressionError(f"unknown compression codec {codec}")

    def _too_big(self) -> DecompressionError:
        return DecompressionError(f"inflates beyond the limit of {self.limit} bytes", too_big=True)

    def _gzip(self, data: bytes | memoryview) -> bytes:
        decompressor = zlib.decompressobj(GZIP_WBITS)
        try:
            out = decompressor.decompress(data, self.limit + 1)
        except zlib.error as e:
            raise DecompressionError(f"gzip: {e}") from None
        if len(out) > self.limit or decompressor.unconsumed_tail:
            raise self._too_big()
        if not decompressor.eof:
            raise DecompressionError("gzip: the stream ends before its end marker")
        return out

    def _zstd_frame(self, data: bytes | memoryview) -> bytes:
        """One call for a single frame that declares a size within the limit (what kafka-python and the Java
        client write): a buffer of that size is all it allocates, where the chunked reading costs a 256 KiB
        buffer per batch. A declared size beyond what the data could inflate to is a lie not worth a buffer.
        Anything else, or any error, goes the chunked way, which says what is wrong."""
        try:
            size = zstandard.frame_content_size(data)
        except zstandard.ZstdError:
            size = -1
        if 0 < size <= self.limit and size <= len(data) * ZSTD_MAX_RATIO:
            try:
                return self._zstd.decompress(data, allow_extra_data=False)
            except zstandard.ZstdError:
                pass
        return self._zstd_chunks(data)

    def _zstd_chunks(self, data: bytes | memoryview) -> bytes:
        parts, total = [], 0
        try:
            with self._zstd.stream_reader(data, read_across_frames=True) as reader:
                while chunk := reader.read(ZSTD_CHUNK):
                    total += len(chunk)
                    if total > self.limit:
                        raise self._too_big()
                    parts.append(chunk)
        except zstandard.ZstdError as e:
            raise DecompressionError(f"zstd: {e}") from None
        if not parts:
            raise DecompressionError("zstd: no frame in the data")
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _lz4(self, frame: bytes) -> bytes:
        if lz4_bound(frame) > self.limit:
            raise self._too_big()
        try:
            return lz4.frame.decompress(frame)
        except RuntimeError as e:
            raise DecompressionError(f"lz4: {e}") from None

    def _snappy(self, data: bytes) -> bytes:
        if not data.startswith(XERIAL_MAGIC):
            return self._raw_snappy(data, 0)
        first = XERIAL_HEADER + 4  # where the first block starts
        if len(data) > first and XERIAL_BLOCK.unpack_from(data, XERIAL_HEADER)[0] == len(data) - first:
            return self._raw_snappy(data[first:], 0)  # a single block: what small batches are
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
            if already + size > self.limit:
                raise self._too_big()
            return bytes(cramjam.snappy.decompress_raw(data))
        except cramjam.DecompressionError as e:
            raise DecompressionError(f"snappy: {e}") from None


def lz4_bound(frame: bytes) -> int:
    """The most bytes an LZ4 frame can inflate to: its declared content size, or else its number of blocks
    times its maximum block size. Walks the block headers only; raises on a malformed frame."""
    if len(frame) < 7 or not frame.startswith(LZ4_MAGIC):
        raise DecompressionError("lz4: not an LZ4 frame (no magic number)")
    flags, descriptor = frame[4], frame[5]
    if flags & 0x08:
        return struct.unpack_from("<Q", frame, 6)[0]
    block_size = LZ4_BLOCK_SIZES.get((descriptor >> 4) & 0x07)
    if block_size is None:
        raise DecompressionError(f"lz4: unknown block size code in descriptor {descriptor:#04x}")
    pos = 4 + 2 + (4 if flags & 0x01 else 0) + 1
    checksum = 4 if flags & 0x10 else 0
    blocks = 0
    while True:
        if pos + 4 > len(frame):
            raise DecompressionError(f"lz4: the frame ends inside a block header at byte {pos}")
        (size,) = struct.unpack_from("<I", frame, pos)
        if size == 0:
            return blocks * block_size
        pos += 4 + (size & 0x7FFFFFFF) + checksum
        blocks += 1


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
    return data[:4 + size] + _header_checksum(data[4:4 + size]) + data[4 + size + 1:]


@functools.lru_cache(maxsize=256)
def _header_checksum(descriptor: bytes) -> bytes:
    """The LZ4 frame header checksum byte of ``descriptor`` (the frame's flags, block size byte and optional
    fields). Cached: hashing in Python costs more than inflating a small message, and Kafka's writers use a
    handful of descriptors (those with a content size vary, hence the bound)."""
    return bytes([(xxh32(descriptor) >> 8) & 0xFF])
