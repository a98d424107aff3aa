"""pcap and pcapng containers, read incrementally: bytes in, ``Packet``s and ``Problem``s out.

Why not dpkt's readers: dpkt's pcapng reader takes the link type and timestamp resolution of the first
interface for every packet (a capture of ``any`` plus ``lo`` has several), stops at a second section, and
trusts block lengths (a damaged length derails the rest of the file). Both layouts are a few fixed headers,
so we read them with ``struct`` (``pcap.py``, ``pcapng.py``), check every length against the bytes present
and resynchronise on the next plausible record after damage. dpkt stays in the tests as an independent
reader and writer of capture files.

The reader is sans-IO: ``feed`` any slices of the file (as read, or as decompressed), ``close`` at the end.
"""

from __future__ import annotations

from kafka_meta.capture.events import CaptureError, Packet, Problem
from kafka_meta.capture.pcap import FILE_HEADER, MAGICS, PcapReader
from kafka_meta.capture.pcapng import SECTION_HEADER, PcapngReader
from kafka_meta.capture.records import RecordReader


def sniff(head: bytes) -> str | None:
    """'pcap', 'pcapng', 'gzip' or None, from a file's first four bytes."""
    if len(head) < 4:
        return None
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    magic = int.from_bytes(head[:4], "little")
    if magic in MAGICS:
        return "pcap"
    if magic == SECTION_HEADER:
        return "pcapng"
    return None


class ContainerReader:
    """Either container; the first bytes fed decide which. Raises ``CaptureError`` for input that is
    neither (or gzip: decompress first, as ``read_capture`` does)."""

    def __init__(self) -> None:
        self._head = bytearray()  # bytes held until the format is known
        self._reader: RecordReader | None = None

    @property
    def packets(self) -> int:
        return self._reader.packets if self._reader is not None else 0

    def feed(self, data: bytes) -> list[Packet | Problem]:
        if self._reader is not None:
            return self._reader.feed(data)
        self._head += data
        if not self._start(closed=False):
            return []
        head, self._head = bytes(self._head), bytearray()
        return self._reader.feed(head)  # type: ignore[union-attr]

    def close(self) -> list[Packet | Problem]:
        if self._reader is None:
            if not self._start(closed=True):
                raise CaptureError(f"not a packet capture: {len(self._head)} bytes, too short for a pcap or "
                                   "pcapng header")
            head, self._head = bytes(self._head), bytearray()
            out = self._reader.feed(head)  # type: ignore[union-attr]
            return out + self._reader.close()  # type: ignore[union-attr]
        return self._reader.close()

    def _start(self, closed: bool) -> bool:
        """Choose the format once enough bytes are there (the pcap file header is consumed here)."""
        head = self._head
        if len(head) < 4:
            return False
        kind = sniff(bytes(head[:4]))
        if kind is None:
            raise CaptureError(f"not a pcap or pcapng file: it starts with bytes {bytes(head[:4]).hex()}")
        if kind == "gzip":
            raise CaptureError("gzip-compressed: decompress before feeding (read_capture does)")
        if kind == "pcapng":
            self._reader = PcapngReader()
            return True
        if len(head) < FILE_HEADER:
            if closed:
                raise CaptureError(f"pcap file header cut short: {len(head)} of {FILE_HEADER} bytes")
            return False
        self._reader = PcapReader(bytes(head[:FILE_HEADER]))
        del head[:FILE_HEADER]
        return True
