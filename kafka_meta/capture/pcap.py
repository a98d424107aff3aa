"""Classic pcap: a 24-byte file header (magic number, byte order, timestamp resolution, link type) and
records of a 16-byte header (seconds, fraction, captured length, length on the wire) plus the packet.

A record header claiming more than libpcap's largest snap length or more than the packet's length on the
wire, a fraction beyond one second, or a time a day away from the previous record's, is damage: the reader
reports it and slides forward to the next offset where two consecutive record headers look sound.
"""

from __future__ import annotations

import struct

from kafka_meta.capture.events import Packet, Problem
from kafka_meta.capture.records import RecordReader

MAGICS = {  # magic as read little-endian -> (struct byte order, fraction units per second)
    0xA1B2C3D4: ("<", 1_000_000),
    0xD4C3B2A1: (">", 1_000_000),
    0xA1B23C4D: ("<", 1_000_000_000),
    0x4D3CB2A1: (">", 1_000_000_000),
}
FILE_HEADER = 24
MAX_PACKET = 262_144  # libpcap's largest snap length; a record claiming more is damage


class PcapReader(RecordReader):
    """Records after the file header ``header`` (its 24 bytes, already read)."""

    def __init__(self, header: bytes) -> None:
        super().__init__(base=FILE_HEADER)
        self._order, self._units = MAGICS[int.from_bytes(header[:4], "little")]
        self._linktype = struct.unpack_from(self._order + "I", header, 20)[0] & 0xFFFF
        self._last_ts = 0.0

    def _header_ok(self, at: int) -> bool:
        """Whether the record header at ``at`` is plausible (a damaged file's bytes rarely are, twice running)."""
        sec, frac, incl, orig = struct.unpack_from(self._order + "IIII", self._buf, at)
        return (incl <= MAX_PACKET and incl <= orig and frac < self._units
                and (self._last_ts == 0.0 or abs(sec - self._last_ts) < 86_400))

    def _parse(self, out: list) -> int:
        buf, pos, end = self._buf, 0, len(self._buf)
        header = struct.Struct(self._order + "IIII")
        units, linktype, last = self._units, self._linktype, self._last_ts
        number, append = self._number, out.append
        while end - pos >= 16:
            if self._resync:
                self._number, self._last_ts = number, last
                pos = self._resume(pos, end)
                if self._resync:
                    return pos
            sec, frac, incl, orig = header.unpack_from(buf, pos)
            # _header_ok, inline: this loop runs once per packet
            if not (incl <= MAX_PACKET and incl <= orig and frac < units
                    and (last == 0.0 or -86_400 < sec - last < 86_400)):
                self._number, self._last_ts = number, last
                out.append(Problem("container", f"implausible pcap record header: {incl} bytes captured of {orig} "
                                   f"(at most {MAX_PACKET}), time {sec}.{frac} (the previous {int(self._last_ts)}); "
                                   "skipping to the next plausible record", frame=self._number + 1,
                                   offset=self._base + pos))
                self._resync = True
                pos += 1
                continue
            if end - pos - 16 < incl:
                break
            number += 1
            last = sec
            append(Packet(number, sec + frac / units, linktype, bytes(buf[pos + 16:pos + 16 + incl]), orig))
            pos += 16 + incl
        self._number, self._last_ts = number, last
        return pos

    def _resync_at(self, pos: int, end: int) -> tuple[int | None, int]:
        """(the next offset whose record header, and the one after it, look sound; or None and the first
        offset still worth keeping). A candidate whose successor has not arrived yet does not block a later
        candidate confirmed by two headers."""
        undecided = None
        for at in range(pos, end - 15):
            if not self._header_ok(at):
                continue
            nxt = at + 16 + struct.unpack_from(self._order + "I", self._buf, at + 8)[0]
            if nxt + 16 <= end:
                if self._header_ok(nxt):
                    return at, at
            elif self._closed:
                if nxt == end:
                    return at, at  # the last record of the file
            elif undecided is None:
                undecided = at
        if undecided is not None:
            return None, undecided
        return None, end if self._closed else max(pos, end - 15)

    def _truncated(self) -> list[Packet | Problem]:
        buf, at = self._buf, self._base
        if len(buf) < 16:
            return [Problem("container", f"{len(buf)} bytes at the end of the file are not a whole record",
                            offset=at)]
        sec, frac, incl, orig = struct.unpack_from(self._order + "IIII", buf, 0)
        self._number += 1
        return [Packet(self._number, sec + frac / self._units, self._linktype, bytes(buf[16:16 + incl]),
                       max(orig, incl)),
                Problem("container", f"file ends inside a packet record: {len(buf) - 16} of {incl} bytes",
                        frame=self._number, offset=at)]
