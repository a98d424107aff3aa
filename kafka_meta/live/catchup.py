"""How far a watch is behind the end of the log it reads, and when it has caught up: sans-IO (positions, log ends
and the time in; the state and the news out), so the arithmetic is tested without a cluster and the client only
asks for numbers.

Behind is the sum over partitions of (log end offset - the reader's position). The log end is what a
``read_committed`` reader can reach (the last stable offset, as ListOffsets answers such a reader), so an open
transaction does not count as records still to read. The rates are over a moving window: the records read per
second (position gains) and the records the log grew by per second (log end gains), each counted only on
partitions present in consecutive samples, so a partition appearing later (a topic created after the watch
started, a partition added) does not look like a burst of reading. The time to catch up is what is behind over
the rate at which the gap closes (reading less growth); when it does not close there is no time to give.

Caught up is told once when it becomes true: nothing behind, or less than ``CAUGHT_UP_S`` of reading at the
current rate (the log end moves while it is asked, so a reader keeping up under load is rarely at zero). It
is behind again only when two looks in a row find more than ``FALLEN_BEHIND_S`` of reading at the read rate
(a reconnection's backlog, a reader that cannot keep up; a burst after a quiet spell is read by the next look),
so a watch keeping up does not flicker between the two. Everything kept is one number per partition and
a few samples.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.live.events import CATCHING_UP, CAUGHT_UP, Event

Place = tuple[str, int]  # topic, partition
RATE_WINDOW_S = 10.0  # the rates are over the samples of the last ten seconds
CAUGHT_UP_S = 1.0  # behind by less than a second of reading counts as caught up
FALLEN_BEHIND_S = 10.0  # once caught up, behind again only past ten seconds of reading


def count_text(n: int) -> str:
    """A count as a person reads it at a glance: 950, 41.2 k, 3.2 M."""
    if n >= 1_000_000:
        return f"{n / 1e6:.1f} M"
    if n >= 10_000:
        return f"{n / 1e3:.0f} k"
    if n >= 1_000:
        return f"{n / 1e3:.1f} k"
    return str(n)


def seconds_text(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min"


@dataclass(frozen=True)
class CatchUpState:
    """Where the reader stands against the log end, as of the last sample."""

    behind: int  # records between the positions and the log ends, summed over partitions
    read_rate: float  # records read per second over the window
    end_rate: float  # records per second the log ends grew by over the window
    eta_s: float | None  # seconds to reach the log end at the current rates; None when the gap does not close
    caught_up: bool
    unplaced: int  # partitions with a log end but no position yet (not counted in behind)
    rated: bool  # whether the rates are measured (two samples at least)

    def message(self) -> str:
        """``catching up: 3.2 M records behind, 41 s at the current rate`` or ``caught up``."""
        if self.caught_up:
            return "caught up"
        text = f"catching up: {count_text(self.behind)} records behind"
        if self.unplaced:
            text += f" ({self.unplaced} partition{'s' if self.unplaced > 1 else ''} not positioned yet)"
        if not self.rated:
            return text
        if self.eta_s is None:
            return f"{text}, not gaining at the current rate"
        return f"{text}, {seconds_text(self.eta_s)} at the current rate"

    def to_json(self) -> dict[str, Any]:
        return {"caughtUp": self.caught_up, "behind": self.behind, "readRate": round(self.read_rate, 1),
                "endRate": round(self.end_rate, 1),
                "etaS": None if self.eta_s is None else round(self.eta_s, 1), "message": self.message()}


@dataclass
class CatchUp:
    """Samples of (positions, log ends) in, :class:`CatchUpState` and the catching-up / caught-up news out."""

    window_s: float = RATE_WINDOW_S
    positions: dict[Place, int] = field(default_factory=dict)  # the last sample's
    ends: dict[Place, int] = field(default_factory=dict)
    read: int = 0  # records read since the first sample (position gains on partitions seen before)
    grown: int = 0  # records the log ends grew by since the first sample
    samples: deque[tuple[float, int, int]] = field(default_factory=deque)  # (at, read, grown), oldest first
    state: CatchUpState | None = None  # None before the first sample with a log end
    since: float | None = None  # when it last started catching up (the first sample, or falling behind)
    read_at_since: int = 0
    over: int = 0  # looks in a row, once caught up, that were well behind

    def update(self, positions: Mapping[Place, int], ends: Mapping[Place, int], at: float) -> list[Event]:
        """A sample at ``at`` (seconds): each partition's position (the next offset the reader hands over) and log
        end. A ``catching-up`` event when the reader is behind at the first sample or falls behind again, a
        ``caught-up`` event once when it reaches the log end."""
        self.read += _gains(self.positions, positions)
        self.grown += _gains(self.ends, ends)
        self.positions, self.ends = dict(positions), dict(ends)
        self.samples.append((at, self.read, self.grown))
        while len(self.samples) > 2 and at - self.samples[1][0] >= self.window_s:
            self.samples.popleft()
        if not ends:
            return []
        behind = sum(max(0, end - positions[p]) for p, end in ends.items() if p in positions)
        unplaced = sum(1 for p, end in ends.items() if p not in positions and end > 0)
        first_at, first_read, first_grown = self.samples[0]
        span = at - first_at
        read_rate = (self.read - first_read) / span if span > 0 else 0.0
        end_rate = (self.grown - first_grown) / span if span > 0 else 0.0
        closing = read_rate - end_rate
        eta = 0.0 if behind == 0 else (behind / closing if closing > 0 else None)
        was = self.state
        caught_up = self._caught_up(was, behind, unplaced, read_rate)
        self.state = CatchUpState(behind, read_rate, end_rate, eta, caught_up, unplaced, span > 0)
        if was is None or (was.caught_up and not caught_up):
            self.since, self.read_at_since = at, self.read
            if not caught_up:
                return [Event(CATCHING_UP, at, detail=self.state.to_json())]
        if caught_up and (was is None or not was.caught_up):
            self.over = 0
            took = at - self.since if self.since is not None else 0.0
            return [Event(CAUGHT_UP, at, detail={**self.state.to_json(), "tookS": round(took, 1),
                                                 "readWhileCatchingUp": self.read - self.read_at_since})]
        return []

    def _caught_up(self, was: CatchUpState | None, behind: int, unplaced: int, read_rate: float) -> bool:
        if unplaced:
            return False
        if behind == 0:
            return True
        if was is not None and was.caught_up:  # stays so until well behind at two looks in a row
            self.over = self.over + 1 if behind > FALLEN_BEHIND_S * max(read_rate, 1.0) else 0
            return self.over < 2
        return read_rate > 0 and behind < CAUGHT_UP_S * read_rate


def _gains(before: Mapping[Place, int], now: Mapping[Place, int]) -> int:
    """How far the offsets moved forward on the partitions in both samples (a partition new to the sample, or an
    offset gone back, as after a reset, moves nothing)."""
    return sum(max(0, offset - before[p]) for p, offset in now.items() if p in before)
