"""pcapng: blocks of type, length, body and the length again, in sections (each opened by a section
header block with its own byte order) declaring interfaces (each with its link type, timestamp resolution
and offset) that packet blocks (enhanced, simple, and the obsolete packet block) refer to.

A block whose length is impossible, or whose trailing length disagrees, is damage: the reader reports it
and looks, at every offset (a cut of a few bytes leaves the rest unaligned), for the next block of a known
type whose trailer matches its length.
"""

from __future__ import annotations

import re
import struct

from kafka_meta.capture.events import Packet, Problem
from kafka_meta.capture.records import RecordReader

SECTION_HEADER = 0x0A0D0D0A
BYTE_ORDER_MAGIC = 0x1A2B3C4D
MAX_BLOCK = 16 << 20  # pcapng blocks other than packets (name tables, statistics) stay far below this
IDB, PB, SPB, EPB = 1, 2, 3, 6
KNOWN_BLOCKS = frozenset({IDB, PB, SPB, 4, 5, EPB, 9, 10, 0x0BAD, 0x0DDD, SECTION_HEADER})
# Where a block may start after damage: a known block type, in either byte order. Found by the regular
# expression engine, so the search for the next sound block costs Python work per candidate, not per byte
# (a lookahead, so that candidates may overlap).
_CANDIDATE = re.compile(b"(?=" + b"|".join(sorted({re.escape(struct.pack(order + "I", btype))
                                                  for btype in KNOWN_BLOCKS for order in "<>"})) + b")")


class PcapngReader(RecordReader):
    def __init__(self) -> None:
        super().__init__()
        self._order = "<"
        # per section, interfaces as (linktype, units per second, offset seconds, snaplen)
        self._interfaces: list[tuple[int, float, int, int]] = []

    def _block_ok(self, at: int, end: int, order: str) -> bool | None:
        """True: a sound block at ``at``; False: not one; None: cannot tell before more bytes arrive."""
        btype, length = struct.unpack_from(order + "II", self._buf, at)
        if btype not in KNOWN_BLOCKS or length < 12 or length % 4 or length > MAX_BLOCK:
            return False
        if at + length > end:
            return None if not self._closed else False
        return struct.unpack_from(order + "I", self._buf, at + length - 4)[0] == length

    def _parse(self, out: list) -> int:
        buf, pos, end = self._buf, 0, len(self._buf)
        while end - pos >= 12:
            if self._resync:
                pos = self._resume(pos, end)
                if self._resync:
                    return pos
            if int.from_bytes(buf[pos:pos + 4], "little") == SECTION_HEADER:
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

    def _resync_at(self, pos: int, end: int) -> tuple[int | None, int]:
        """(the next sound block: known type, sane length, matching trailer; or None and the first offset
        still worth keeping). A candidate longer than the bytes at hand does not block a later candidate
        whose trailer is already there."""
        undecided = None
        other = ">" if self._order == "<" else "<"
        for match in _CANDIDATE.finditer(self._buf, pos, end):  # any offset: a cut leaves the rest unaligned
            at = match.start()
            if at >= end - 11:
                break
            for order in (self._order, other):
                ok = self._block_ok(at, end, order)
                if ok is None:
                    if undecided is None:
                        undecided = at
                elif ok and (order == self._order or int.from_bytes(self._buf[at:at + 4], "little") == SECTION_HEADER):
                    return at, at
        if undecided is not None:
            return None, undecided
        return None, end if self._closed else max(pos, end - 11)

    def _block(self, btype: int, pos: int, length: int, out: list) -> None:
        buf, order = self._buf, self._order
        if btype == SECTION_HEADER:
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

    def _truncated(self) -> list[Packet | Problem]:
        buf, at, out = self._buf, self._base, []
        if len(buf) < 28:
            return [Problem("container", f"{len(buf)} bytes at the end of the file are not a whole record",
                            offset=at)]
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
        return out
