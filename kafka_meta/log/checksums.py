"""The two checksums of Kafka's log formats, through C implementations.

Record batches (magic 2) carry a CRC-32C (Castagnoli) of everything after the CRC field; legacy messages
(magic 0 and 1) carry a plain CRC-32 (zlib's polynomial). Both run over every byte of a segment, so they
must be native code: ``crc32c`` (hardware-accelerated where the CPU has it; it reads memory maps without a
copy, and is what kafka-python uses too) and zlib-ng's CRC-32 (vector instructions: five times the standard
library's zlib on a legacy message of 100 bytes, where the CRC was a fifth of the cost of reading it).
"""

from __future__ import annotations

import crc32c as _crc32c
from zlib_ng import zlib_ng

crc32 = zlib_ng.crc32
"""CRC-32 of a bytes-like object (a memoryview slice: no copy), as Kafka's legacy messages store it
(unsigned). The C function itself, not a wrapper: it runs once per legacy message."""


crc32c = _crc32c.crc32c
"""CRC-32C of a bytes-like object, as Kafka's ``Crc32C`` computes it for record batches; the C function
itself, as :data:`crc32`."""


def xxh32(data: bytes, seed: int = 0) -> int:
    """xxHash32 of a short input (under 16 bytes): all the LZ4 frame header checksum needs.

    Only used to repair the header checksum that Kafka's magic 0 writers computed over the wrong bytes
    (see ``compression.lz4_frame``), so a table-free pure-Python version of the short-input path suffices.
    """
    if len(data) >= 16:
        raise ValueError("xxh32 here handles inputs under 16 bytes only")
    p1, p2, p3, p4, p5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
    mask = 0xFFFFFFFF

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & mask

    h = (seed + p5 + len(data)) & mask
    i = 0
    while i + 4 <= len(data):
        h = (h + int.from_bytes(data[i:i + 4], "little") * p3) & mask
        h = (rotl(h, 17) * p4) & mask
        i += 4
    for b in data[i:]:
        h = (h + b * p5) & mask
        h = (rotl(h, 11) * p1) & mask
    h ^= h >> 15
    h = (h * p2) & mask
    h ^= h >> 13
    h = (h * p3) & mask
    h ^= h >> 16
    return h
