"""TCP reassembly of one direction of a connection: segments in, contiguous bytes and holes out.

Sans-IO and per direction. Segments are placed by sequence number (32-bit, wrapping): a retransmission of
bytes already delivered is dropped, an overlap is trimmed to its new bytes, a segment ahead of the next
expected byte waits until the hole before it is filled. A hole that is never filled (the packet was not
captured) is declared as soon as the peer acknowledges past it, else once enough later data is waiting or
at the end of the capture, and passed on as a
``Gap`` with its position in the byte stream, so the framer drops only the frames it touches.
"""

from __future__ import annotations

from typing import NamedTuple

from kafka_meta.capture.links import FIN, SYN

MOD = 1 << 32
HALF = 1 << 31
MAX_WAITING_BYTES = 4 << 20  # later data held back waiting for a hole to fill, before the hole is declared
MAX_WAITING_SEGMENTS = 256


class Data(NamedTuple):
    """Bytes continuing the stream, from packet ``frame`` at time ``ts``."""

    payload: bytes
    ts: float
    frame: int


class Gap(NamedTuple):
    """``size`` bytes of the stream that were not captured, starting at stream ``offset``; ``frame`` is the
    packet after which the hole was noticed."""

    size: int
    offset: int
    frame: int
    reason: str


class HalfStream:
    """One direction's reassembler. ``offset`` counts the stream's bytes from the first one seen."""

    __slots__ = ("_fin", "_next", "_waiting", "_waiting_bytes", "offset", "retransmitted", "started_at_syn")

    def __init__(self) -> None:
        self._next: int | None = None
        self._waiting: dict[int, tuple[bytes, int, float, int]] = {}
        self._waiting_bytes = 0
        self.offset = 0
        self.retransmitted = 0  # bytes seen again and dropped
        self.started_at_syn = False
        self._fin: int | None = None  # the sequence number of the FIN, once seen

    def segment(self, seq: int, flags: int, payload: bytes, missing: int, ts: float, frame: int) -> list:
        """The Data and Gap events this segment releases, in stream order."""
        if flags & SYN:
            if self._next is None:
                self._next = (seq + 1) % MOD
                self.started_at_syn = True
            return []
        length = len(payload) + missing
        if flags & FIN:
            self._fin = (seq + length) % MOD
        if not length:
            return []
        if self._next is None:
            self._next = seq
        out: list = []
        ahead = (seq - self._next) % MOD
        if ahead >= HALF:  # starts before the next expected byte: a retransmission or an overlap
            behind = MOD - ahead
            if behind >= length:
                self.retransmitted += length
                return out
            self.retransmitted += behind
            payload, missing = _trim(payload, missing, behind)
            ahead = 0
        if ahead == 0:
            self._deliver(payload, missing, ts, frame, out)
            if self._waiting:
                self._drain(out)
            return out
        held = self._waiting.get(seq)
        if held is None or len(held[0]) + held[1] < length:
            self._waiting[seq] = (payload, missing, ts, frame)
            self._waiting_bytes += length - (len(held[0]) + held[1] if held else 0)
        if self._waiting_bytes > MAX_WAITING_BYTES or len(self._waiting) > MAX_WAITING_SEGMENTS:
            self._skip_hole(frame, out)
        return out

    def in_order(self, seq: int, length: int) -> bool:
        """The fast path: if this segment is exactly the next bytes and nothing waits, take it (True) and let
        the caller deliver its payload; otherwise leave it to ``segment``."""
        if seq != self._next or self._waiting:
            return False
        self._next = (seq + length) % MOD
        self.offset += length
        return True

    @property
    def complete(self) -> bool:
        """The sender closed its side and every byte before its FIN has been delivered."""
        return self._fin is not None and self._next == self._fin and not self._waiting

    @property
    def waiting(self) -> bool:
        """Whether segments are held back behind a hole."""
        return bool(self._waiting)

    def acked(self, ack: int) -> list:
        """The peer acknowledged up to ``ack``: a hole it acknowledged past, with data behind it waiting, was
        received but not captured; declare it now rather than after ``MAX_WAITING_BYTES``."""
        if self._next is None or not self._waiting:
            return []
        reach = (ack - self._next) % MOD
        if reach == 0 or reach >= HALF:
            return []
        nearest = min((s - self._next) % MOD for s in self._waiting)
        if reach < nearest:
            return []
        out: list = []
        self._skip_hole(0, out)
        return out

    def finish(self, frame: int) -> list:
        """At the end of the capture: every hole still open is declared, the data behind it released."""
        out: list = []
        while self._waiting:
            self._skip_hole(frame, out)
        return out

    def _deliver(self, payload: bytes, missing: int, ts: float, frame: int, out: list) -> None:
        if payload:
            out.append(Data(payload, ts, frame))
        if missing:
            out.append(Gap(missing, self.offset + len(payload), frame,
                           f"{missing} bytes of the segment were cut off by the capture's snap length"))
        self.offset += len(payload) + missing
        self._next = (self._next + len(payload) + missing) % MOD  # type: ignore[operator]

    def _drain(self, out: list) -> None:
        while self._waiting:
            progressed = False
            for seq in list(self._waiting):
                ahead = (seq - self._next) % MOD  # type: ignore[operator]
                if ahead != 0 and ahead < HALF:
                    continue
                payload, missing, ts, frame = self._waiting.pop(seq)
                self._waiting_bytes -= len(payload) + missing
                if ahead >= HALF:
                    behind = MOD - ahead
                    if behind >= len(payload) + missing:
                        self.retransmitted += len(payload) + missing
                        continue
                    payload, missing = _trim(payload, missing, behind)
                self._deliver(payload, missing, ts, frame, out)
                progressed = True
            if not progressed:
                return

    def _skip_hole(self, frame: int, out: list) -> None:
        nearest = min(self._waiting, key=lambda s: (s - self._next) % MOD)  # type: ignore[operator]
        size = (nearest - self._next) % MOD  # type: ignore[operator]
        out.append(Gap(size, self.offset, self._waiting[nearest][3],
                       f"{size} bytes of the stream were not captured"))
        self.offset += size
        self._next = nearest
        self._drain(out)


def _trim(payload: bytes, missing: int, cut: int) -> tuple[bytes, int]:
    """Drop the first ``cut`` bytes of a segment (captured bytes first, then the snap-length-cut ones)."""
    if cut <= len(payload):
        return payload[cut:], missing
    return b"", missing - (cut - len(payload))
