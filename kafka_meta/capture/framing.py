"""Kafka's size-prefixed framing of one direction's byte stream: Data and Gap events in, frames out.

Every Kafka request and response is an int32 size followed by that many bytes. The framer cuts the stream
into those frames and remembers which packet (time, number) carried each frame's first byte.

It is *in sync* when it knows the next byte starts a size prefix: from a connection's SYN, or once it has
found a plausible frame. Out of sync (a capture starting mid-connection, a hole it could not bridge, a size
beyond ``max_frame``) it slides forward one byte at a time until a size and the frame's first bytes look
right to the ``plausible`` check its owner gives it (a request header; a pending correlation id). A hole
inside a frame whose size is known drops that frame only: the bytes up to its end are skipped and framing
goes on in sync. Nothing is allocated from a claimed size: bytes are held only as they arrive.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from operator import itemgetter
from typing import NamedTuple

from kafka_meta.capture.events import Problem
from kafka_meta.capture.tcp import Data, Gap

MAX_FRAME = 100 << 20  # the broker's socket.request.max.bytes default; a bigger size is damage
HEAD = 1200  # bytes of a frame's start shown to the plausibility check: a header with the longest client id
_mark_offset = itemgetter(0)
_new_tuple = tuple.__new__  # builds a Frame on the hot path without the NamedTuple's Python-level __new__


class Frame(NamedTuple):
    """One frame without its size prefix, with the time and number of the packet that carried its first
    byte and its position in the direction's byte stream."""

    payload: bytes
    ts: float
    packet: int
    offset: int


class Framer:
    """Frames of one direction. ``plausible(head, size)`` is asked, out of sync, whether a candidate frame
    of ``size`` bytes starting with ``head`` (as much of it as has arrived, up to ``HEAD``) is a real one:
    True, False, or None when it needs more of the frame to tell."""

    def __init__(self, plausible: Callable[[bytes, int], bool | None], *, synced: bool, stream: int | None = None,
                 kind: str = "frame", max_frame: int = MAX_FRAME) -> None:
        self.plausible = plausible
        self.synced = synced
        self.stream = stream
        self.kind = kind
        self.max_frame = max_frame
        self._buf = bytearray()
        self._start = 0  # stream offset of _buf[0]
        self._skip = 0  # bytes still to discard: the rest of a frame a hole went through
        self._marks: list[tuple[int, float, int]] = []  # (stream offset, ts, packet) where each packet's bytes begin
        self.frames = 0
        self.dropped = 0

    def feed(self, event: Data | Gap) -> list[Frame | Problem]:
        if isinstance(event, Gap):
            return self._gap(event)
        return self.data(event.payload, event.ts, event.frame)

    def data(self, payload: bytes, ts: float, packet: int) -> list[Frame | Problem]:
        """The next bytes of the stream, carried by packet number ``packet`` at time ``ts``."""
        if self._skip:
            if len(payload) <= self._skip:
                self._skip -= len(payload)
                self._start += len(payload)
                return []
            payload = payload[self._skip:]
            self._start += self._skip
            self._skip = 0
        if self.synced and not self._buf:
            return self._whole_frames(payload, ts, packet)
        self._marks.append((self._start + len(self._buf), ts, packet))
        self._buf += payload
        return self._frames(final=False)

    def _whole_frames(self, payload: bytes, ts: float, packet: int) -> list[Frame | Problem]:
        """The common case, in sync with nothing held: frames cut straight from the packet's bytes; only a
        frame continuing into later packets (or a bad size) goes through the buffer."""
        out: list[Frame | Problem] = []
        pos, end, start, limit = 0, len(payload), self._start, self.max_frame
        while end - pos >= 4:
            size = int.from_bytes(payload[pos:pos + 4], "big", signed=True)
            if size < 4 or size > limit or end - pos - 4 < size:
                break
            out.append(_new_tuple(Frame, (payload[pos + 4:pos + 4 + size], ts, packet, start + pos)))
            pos += 4 + size
        self.frames += len(out)
        self._start = start + pos
        self._marks = [(self._start, ts, packet)]
        if pos < end:
            self._buf += payload[pos:]
            out.extend(self._frames(final=False))
        return out

    def finish(self) -> list[Frame | Problem]:
        out = self._frames(final=True)
        if self._buf:
            out.append(Problem("kafka", f"the capture ends inside a {self.kind} ({len(self._buf)} bytes after the "
                               "last whole frame)", frame=self._marks[-1][2] if self._marks else None,
                               offset=self._start, stream=self.stream))
            self.dropped += 1
        return out

    def _frames(self, final: bool) -> list[Frame | Problem]:
        buf, out = self._buf, []
        pos, end = 0, len(buf)
        while True:
            if not self.synced:
                found, resume = self._resync(pos, end, final)
                if found is None:
                    pos = resume
                    break
                if found != pos:
                    out.append(Problem("kafka", f"skipped {found - pos} bytes to the next plausible {self.kind}",
                                       frame=self._packet_at(self._start + pos)[1], offset=self._start + pos,
                                       stream=self.stream))
                pos = found
                self.synced = True
            if end - pos < 4:
                break
            size = int.from_bytes(buf[pos:pos + 4], "big", signed=True)
            if size < 4 or size > self.max_frame:
                out.append(Problem("kafka", f"{self.kind} size {size} is out of range (4..{self.max_frame}); "
                                   "looking for the next plausible frame", frame=self._packet_at(self._start + pos)[1],
                                   offset=self._start + pos, stream=self.stream))
                self.synced = False
                pos += 1
                continue
            if end - pos - 4 < size:
                break
            ts, packet = self._packet_at(self._start + pos)
            out.append(Frame(bytes(buf[pos + 4:pos + 4 + size]), ts, packet, self._start + pos))
            self.frames += 1
            pos += 4 + size
        if pos:
            del buf[:pos]
            self._start += pos
            self._prune()
        return out

    def _resync(self, pos: int, end: int, final: bool) -> tuple[int | None, int]:
        """(where the next plausible frame starts, or None and the first offset still worth keeping).

        A candidate that cannot be judged yet (its header is not all here) does not block the scan: a later
        candidate confirmed by whole bytes wins, as after damage the next real frame usually sits whole in
        the packets at hand while the undecided one is the damaged frame's leftover."""
        buf, plausible, limit = self._buf, self.plausible, self.max_frame
        undecided = None
        for at in range(pos, end - 3):
            size = int.from_bytes(buf[at:at + 4], "big", signed=True)
            if size < 8 or size > limit:
                continue
            verdict = plausible(bytes(buf[at + 4:min(end, at + 4 + min(size, HEAD))]), size)
            if verdict:
                return at, at
            if verdict is None and undecided is None and not final:
                undecided = at
        if undecided is not None:
            return None, undecided
        return None, end if final else max(pos, end - 3)

    def _gap(self, gap: Gap) -> list[Frame | Problem]:
        """A hole at the end of what we hold: drop the frame it falls in, or lose sync if we cannot tell."""
        out = self._frames(final=False)
        where = dict(frame=gap.frame, offset=gap.offset, stream=self.stream)
        if self._skip:  # already discarding a damaged frame's rest
            if gap.size <= self._skip:
                self._skip -= gap.size
                self._start += gap.size
                return out
            gap = Gap(gap.size - self._skip, gap.offset + self._skip, gap.frame, gap.reason)
            self._start += self._skip
            self._skip = 0
        held = len(self._buf)
        if self.synced and held >= 4:
            size = int.from_bytes(self._buf[:4], "big", signed=True)
            rest = 4 + size - held  # bytes of the current frame still to come, the hole's included
            if 0 < gap.size <= rest:
                out.append(Problem("kafka", f"{gap.reason}; the {self.kind} of {size} bytes at stream byte "
                                   f"{self._start} is dropped", **where))
                self.dropped += 1
                self._skip = rest - gap.size
                self._start += held + gap.size
                self._buf.clear()
                self._prune()
                return out
        if held:
            self.dropped += 1
        out.append(Problem("kafka", f"{gap.reason}; {held} bytes held before it are dropped, looking for the next "
                           f"plausible {self.kind}", **where))
        self.synced = False
        self._start += held + gap.size
        self._buf.clear()
        self._prune()
        return out

    def _packet_at(self, offset: int) -> tuple[float, int]:
        marks = self._marks
        if not marks:
            return 0.0, 0
        i = max(0, bisect_right(marks, offset, key=_mark_offset) - 1)
        return marks[i][1], marks[i][2]

    def _prune(self) -> None:
        """Forget packet marks before the one holding the first byte still buffered."""
        marks, start = self._marks, self._start
        keep = 0
        for i, mark in enumerate(marks):
            if mark[0] <= start:
                keep = i
            else:
                break
        if keep:
            del marks[:keep]
