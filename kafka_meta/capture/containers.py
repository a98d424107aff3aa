"""pcap and pcapng containers, read incrementally: bytes in, ``Packet``s and ``Problem``s out.

Why not dpkt's readers: dpkt's pcapng reader takes the link type and timestamp resolution of the first
interface for every packet (a capture of ``any`` plus ``lo`` has several), stops at a second section, and
trusts block lengths (a damaged length derails the rest of the file). Both layouts are a few fixed headers,
so we read them here with ``struct``, check every length against the bytes present and resynchronise on the
next plausible record after damage. dpkt stays in the tests as an independent writer of capture files.

The reader is sans-IO: ``feed`` any slices of the file (as read, or as decompressed), ``close`` at the end.
Memory is the unconsumed tail of the input plus one record: no length read from the file is allocated
before the bytes it claims have arrived.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from kafka_meta.capture.events import CaptureError, Packet, Problem

PCAP_MAGICS = {  # magic as read little-endian -> (struct byte order, fraction units per second)
    0xA1B2C3D4: ("<", 1_000_000),
    0xD4C3B2A1: (">", 1_000_000),
    0xA1B23C4D: ("<", 1_000_000_000),
    0x4D3CB2A1: (">", 1_000_000_000),
}
PCAPNG_SHB = 0x0A0D0D0A
BYTE_ORDER_MAGIC = 0x1A2B3C4D
MAX_PACKET = 262_144  # libpcap's largest snap length; a record claiming more is damage
MAX_BLOCK = 16 << 20  # pcapng blocks other than packets (name tables, statistics) stay far below this
IDB, PB, SPB, EPB = 1, 2, 3, 6
KNOWN_BLOCKS = frozenset({IDB, PB, SPB, 4, 5, EPB, 9, 10, 0x0BAD, 0x0DDD, PCAPNG_SHB})


def sniff(head: bytes) -> str | None:
    """'pcap', 'pcapng', 'gzip' or None, from a file's first four bytes."""
    if len(head) < 4:
        return None
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    magic = int.from_bytes(head[:4], "little")
    if magic in PCAP_MAGICS:
        return "pcap"
    if magic == PCAPNG_SHB:
        return "pcapng"
    return None


class ContainerReader:
    """Either container; the first bytes fed decide which."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._base = 0  # file offset of _buf[0]
        self._closed = False
        self._number = 0
        self._parse: Callable[[list], int] | None = None
        # pcap state
        self._order = "<"
        self._units = 1_000_000
        self._linktype = 0
        self._last_ts = 0.0
        # pcapng state: per section, interfaces as (linktype, units per second, offset seconds, snaplen)
        self._interfaces: list[tuple[int, float, int, int]] = []
        self._resync = False  # looking for the next plausible record after damage

    @property
    def packets(self) -> int:
        return self._number

    def feed(self, data: bytes) -> list[Packet | Problem]:
        self._buf += data
        out: list[Packet | Problem] = []
        if self._parse is None and not self._start(out):
            return out
        consumed = self._parse(out)
        if consumed:
            del self._buf[:consumed]
            self._base += consumed
        return out

    def close(self) -> list[Packet | Problem]:
        self._closed = True
        out = self.feed(b"")
        if self._parse is None:
            raise CaptureError(f"not a packet capture: {len(self._buf)} bytes, too short for a pcap or pcapng header")
        if self._buf:
            out.extend(self._truncated())
            self._base += len(self._buf)
            self._buf.clear()
        return out

    # --- which container -------------------------------------------------------------------------------

    def _start(self, out: list) -> bool:
        kind = sniff(bytes(self._buf[:4]))
        if kind is None:
            if len(self._buf) < 4 and not self._closed:
                return False
            if len(self._buf) < 4:
                return False
            raise CaptureError(f"not a pcap or pcapng file: it starts with bytes {bytes(self._buf[:4]).hex()}")
        if kind == "gzip":
            raise CaptureError("gzip-compressed: decompress before feeding (read_capture does)")
        if kind == "pcap":
            if len(self._buf) < 24:
                if self._closed:
                    raise CaptureError(f"pcap file header cut short: {len(self._buf)} of 24 bytes")
                return False
            order, self._units = PCAP_MAGICS[int.from_bytes(self._buf[:4], "little")]
            self._order = order
            self._linktype = struct.unpack_from(order + "I", self._buf, 20)[0] & 0xFFFF
            del self._buf[:24]
            self._base = 24
            self._parse = self._parse_pcap
        else:
            self._parse = self._parse_pcapng
        return True

    # --- pcap ----------------------------------------------------------------------------------------

    def _pcap_header_ok(self, at: int) -> bool:
        sec, frac, incl, orig = struct.unpack_from(self._order + "IIII", self._buf, at)
        return (incl <= MAX_PACKET and incl <= orig and frac < self._units
                and (self._last_ts == 0.0 or abs(sec - self._last_ts) < 86_400))

    def _parse_pcap(self, out: list) -> int:
        buf, pos, end = self._buf, 0, len(self._buf)
        header = struct.Struct(self._order + "IIII")
        units, linktype = self._units, self._linktype
        while end - pos >= 16:
            if self._resync:
                found, keep = self._pcap_resync(pos, end)
                if found is None:
                    return keep
                pos = found
                self._resync = False
            sec, frac, incl, orig = header.unpack_from(buf, pos)
            if incl > MAX_PACKET or frac >= units:
                out.append(Problem("container", f"pcap record claims {incl} captured bytes (at most {MAX_PACKET} "
                                   f"allowed) or a bad timestamp; skipping to the next plausible record",
                                   frame=self._number + 1, offset=self._base + pos))
                self._resync = True
                pos += 1
                continue
            if end - pos - 16 < incl:
                break
            self._number += 1
            self._last_ts = sec
            out.append(Packet(self._number, sec + frac / units, linktype, bytes(buf[pos + 16:pos + 16 + incl]),
                              max(orig, incl)))
            pos += 16 + incl
        return pos

    def _pcap_resync(self, pos: int, end: int) -> tuple[int | None, int]:
        """(the next offset whose record header, and the one after it, look sound; or None and the first
        offset still worth keeping). A candidate whose successor has not arrived yet does not block a later
        candidate confirmed by two headers."""
        undecided = None
        for at in range(pos, end - 15):
            if not self._pcap_header_ok(at):
                continue
            nxt = at + 16 + struct.unpack_from(self._order + "I", self._buf, at + 8)[0]
            if nxt + 16 <= end:
                if self._pcap_header_ok(nxt):
                    return at, at
            elif self._closed:
                if nxt == end:
                    return at, at  # the last record of the file
            elif undecided is None:
                undecided = at
        if undecided is not None:
            return None, undecided
        return None, end if self._closed else max(pos, end - 15)

    # --- pcapng --------------------------------------------------------------------------------------

    def _block_ok(self, at: int, end: int, order: str) -> bool | None:
        """True: a sound block at ``at``; False: not one; None: cannot tell before more bytes arrive."""
        btype, length = struct.unpack_from(order + "II", self._buf, at)
        if btype not in KNOWN_BLOCKS or length < 12 or length % 4 or length > MAX_BLOCK:
            return False
        if at + length > end:
            return None if not self._closed else False
        return struct.unpack_from(order + "I", self._buf, at + length - 4)[0] == length

    def _parse_pcapng(self, out: list) -> int:
        buf, pos, end = self._buf, 0, len(self._buf)
        while end - pos >= 12:
            if self._resync:
                found, keep = self._pcapng_resync(pos, end)
                if found is None:
                    return keep
                pos = found
                self._resync = False
            if int.from_bytes(buf[pos:pos + 4], "little") == PCAPNG_SHB:
                bom = int.from_bytes(buf[pos + 8:pos + 12], "little")
                if bom == BYTE_ORDER_MAGIC:
                    self._order = "<"
                elif bom == int.from_bytes(BYTE_ORDER_MAGIC.to_bytes(4, "little"), "big"):
                    self._order = ">"
                else:
                    out.append(Problem("container", f"section header with byte-order mark {bom:#x}",
                                       offset=self._base + pos))
                    self._resync = True
                    pos += 4
                    continue
            order = self._order
            btype, length = struct.unpack_from(order + "II", buf, pos)
            if length < 12 or length % 4 or length > MAX_BLOCK:
                out.append(Problem("container", f"pcapng block of type {btype:#x} claims length {length}; skipping "
                                   "to the next sound block", frame=self._number + 1, offset=self._base + pos))
                self._resync = True
                pos += 4
                continue
            if end - pos < length:
                break
            if struct.unpack_from(order + "I", buf, pos + length - 4)[0] != length:
                out.append(Problem("container", f"pcapng block of type {btype:#x} claims length {length} but its "
                                   "trailing length differs; skipping to the next sound block",
                                   frame=self._number + 1, offset=self._base + pos))
                self._resync = True
                pos += 4
                continue
            self._block(btype, pos, length, out)
            pos += length
        return pos

    def _pcapng_resync(self, pos: int, end: int) -> tuple[int | None, int]:
        """(the next sound block: known type, sane length, matching trailer; or None and the first offset
        still worth keeping). A candidate longer than the bytes at hand does not block a later candidate
        whose trailer is already there."""
        undecided = None
        other = ">" if self._order == "<" else "<"
        for at in range(pos, end - 11):  # any offset: a cut of a few bytes leaves the rest unaligned
            for order in (self._order, other):
                ok = self._block_ok(at, end, order)
                if ok is None:
                    if undecided is None:
                        undecided = at
                elif ok and (order == self._order or int.from_bytes(self._buf[at:at + 4], "little") == PCAPNG_SHB):
                    return at, at
        if undecided is not None:
            return None, undecided
        return None, end if self._closed else max(pos, end - 11)

    def _block(self, btype: int, pos: int, length: int, out: list) -> None:
        buf, order = self._buf, self._order
        if btype == PCAPNG_SHB:
            self._interfaces = []
        elif btype == IDB:
            self._interfaces.append(self._interface(pos, length))
        elif btype in (EPB, PB):
            if length < 32:
                out.append(Problem("container", f"packet block of {length} bytes is too short",
                                   frame=self._number + 1, offset=self._base + pos))
                return
            if btype == EPB:
                iface, high, low, cap, orig = struct.unpack_from(order + "IIIII", buf, pos + 8)
            else:
                iface, _drops, high, low, cap, orig = struct.unpack_from(order + "HHIIII", buf, pos + 8)
            self._number += 1
            if iface >= len(self._interfaces):
                out.append(Problem("container", f"packet names interface {iface}, the section declares "
                                   f"{len(self._interfaces)}", frame=self._number, offset=self._base + pos))
                return
            if cap > length - 32:
                out.append(Problem("container", f"packet claims {cap} captured bytes, its block holds "
                                   f"{length - 32}", frame=self._number, offset=self._base + pos))
                cap = length - 32
            linktype, units, offset, _snap = self._interfaces[iface]
            out.append(Packet(self._number, offset + ((high << 32) | low) / units, linktype,
                              bytes(buf[pos + 28:pos + 28 + cap]), max(orig, cap)))
        elif btype == SPB:
            self._number += 1
            if not self._interfaces:
                out.append(Problem("container", "simple packet block before any interface",
                                   frame=self._number, offset=self._base + pos))
                return
            orig = struct.unpack_from(order + "I", buf, pos + 8)[0]
            linktype, _units, _offset, snap = self._interfaces[0]
            cap = min(orig, length - 16, snap or orig)
            out.append(Packet(self._number, 0.0, linktype, bytes(buf[pos + 12:pos + 12 + cap]), orig))

    def _interface(self, pos: int, length: int) -> tuple[int, float, int, int]:
        buf, order = self._buf, self._order
        linktype, _reserved, snaplen = struct.unpack_from(order + "HHI", buf, pos + 8)
        units: float = 1_000_000
        offset = 0
        at, end = pos + 16, pos + length - 4
        while at + 4 <= end:
            code, size = struct.unpack_from(order + "HH", buf, at)
            if code == 0:
                break
            value = bytes(buf[at + 4:at + 4 + size])
            if code == 9 and len(value) >= 1:  # if_tsresol: a negative power of 10, or of 2 with the top bit set
                units = 2 ** (value[0] & 0x7F) if value[0] & 0x80 else 10 ** value[0]
            elif code == 14 and len(value) >= 8:  # if_tsoffset, seconds
                offset = struct.unpack(order + "q", value[:8])[0]
            at += 4 + size + (-size) % 4
        return linktype, units, offset, snaplen

    # --- the end of the input ------------------------------------------------------------------------

    def _truncated(self) -> list[Packet | Problem]:
        """What is left when the input ends inside a record: the packet's bytes that are there, and why."""
        buf, out = self._buf, []
        at = self._base
        if self._parse == self._parse_pcap and len(buf) >= 16 and not self._resync:
            sec, frac, incl, orig = struct.unpack_from(self._order + "IIII", buf, 0)
            self._number += 1
            out.append(Packet(self._number, sec + frac / self._units, self._linktype, bytes(buf[16:16 + incl]),
                              max(orig, incl)))
            out.append(Problem("container", f"file ends inside a packet record: {len(buf) - 16} of {incl} bytes",
                               frame=self._number, offset=at))
        elif self._parse == self._parse_pcapng and len(buf) >= 28 and not self._resync:
            btype, length = struct.unpack_from(self._order + "II", buf, 0)
            if btype == EPB and self._interfaces:
                iface, high, low, cap, orig = struct.unpack_from(self._order + "IIIII", buf, 8)
                self._number += 1
                if iface < len(self._interfaces):
                    linktype, units, offset, _snap = self._interfaces[iface]
                    data = bytes(buf[28:28 + min(cap, len(buf) - 28)])
                    out.append(Packet(self._number, offset + ((high << 32) | low) / units, linktype, data,
                                      max(orig, cap)))
            out.append(Problem("container", f"file ends inside a block of {length} bytes: {len(buf)} present",
                               frame=self._number or None, offset=at))
        else:
            out.append(Problem("container", f"{len(buf)} bytes at the end of the file are not a whole record",
                               offset=at))
        return out
