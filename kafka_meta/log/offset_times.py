"""When each stretch of a partition was written, told by batch headers and kept in a bounded index.

Lag in time needs the time of the record at a committed offset, and lag at a past commit needs where the log
ended then. A batch header says both for its records without inflating them: its last offset
(``baseOffset + lastOffsetDelta``) and its ``maxTimestamp``. :class:`OffsetTimes` keeps one point per batch,
``(last offset, newest timestamp up to it)``, and when the points reach twice :attr:`OffsetTimes.keep` it drops
every other one (the newest always stays), so a partition of any size costs at most ``2 * keep`` points and the
points stay spread over the whole partition, densest nowhere in particular.

The timestamp kept is the running maximum of ``maxTimestamp``: CreateTime comes from the producers' clocks
and need not grow with the offsets, and the running maximum gives the two answers a bound that holds whatever
the clocks did: :meth:`time_at` never says a record is older than it is (lag in time is never overstated) and
:meth:`end_at` never says the log was longer than it was (lag in records at a past time is never overstated).
With the points thinned, each answer is off by at most the stretch between two kept points.

Sans-IO: offsets and milliseconds in, answers out. The header walk
(:class:`~kafka_meta.log.partitions.PartitionScan`) feeds it offline, a live reader feeds it ListOffsets
answers (the log end and when it was asked) through the same :meth:`add`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

KEEP = 256  # points per partition after thinning: 2 * KEEP at most, a few kilobytes


class OffsetTimes:
    """A partition's ``(last offset, newest timestamp so far)`` points, in offset order, bounded."""

    __slots__ = ("keep", "offsets", "times")

    def __init__(self, keep: int = KEEP) -> None:
        if keep < 1:
            raise ValueError("an offset index keeps at least one point")
        self.keep = keep
        self.offsets: list[int] = []  # last offset of each kept stretch, ascending
        self.times: list[int] = []  # the newest timestamp (ms) of any record up to it, non-decreasing

    def add(self, last_offset: int, timestamp: int) -> None:
        """A batch (or a ListOffsets answer): records up to ``last_offset`` were written by ``timestamp`` ms
        (a negative timestamp, magic 0's "none", says nothing). Batches come in offset order; one that does not
        move the end on (a copy read twice) is ignored."""
        if timestamp < 0 or (self.offsets and last_offset <= self.offsets[-1]):
            return
        if self.times and timestamp < self.times[-1]:
            timestamp = self.times[-1]
        self.offsets.append(last_offset)
        self.times.append(timestamp)
        if len(self.offsets) >= 2 * self.keep:
            # every other point, counted back from the newest, which always stays
            start = (len(self.offsets) - 1) % 2
            self.offsets = self.offsets[start::2]
            self.times = self.times[start::2]

    def time_at(self, offset: int) -> int | None:
        """The time (ms) of the record at ``offset``, at the latest: the newest timestamp of the kept stretch
        holding it; None past the last point (nothing written there yet, as far as known)."""
        i = bisect_left(self.offsets, offset)
        return self.times[i] if i < len(self.offsets) else None

    def end_at(self, ms: int) -> int | None:
        """The log end offset at ``ms``, at most: one past the last kept stretch written by then; None when
        nothing kept was written by then."""
        i = bisect_right(self.times, ms)
        return self.offsets[i - 1] + 1 if i else None

    def end_near(self, ms: int) -> int | None:
        """The log end offset at ``ms``, read between the kept points as if the stretch between two of them was
        written at an even pace: :meth:`end_at` is a step that holds the end still from one point to the next
        (a ListOffsets answer every few seconds, or points thinned apart), so lags read off it would fall
        between points and jump at each; this keeps a consumer that falls behind steadily reading as one (for
        points that are answers, not batch headers, which say where the end stepped).
        Never past the next point's end; None when nothing kept was written by then."""
        i = bisect_right(self.times, ms)
        if not i:
            return None
        end = self.offsets[i - 1] + 1
        if i == len(self.offsets) or self.times[i] == self.times[i - 1]:
            return end
        pace = (ms - self.times[i - 1]) / (self.times[i] - self.times[i - 1])
        return end + int((self.offsets[i] + 1 - end) * pace)

    def merge(self, later: OffsetTimes) -> None:
        """The points of the batches after this one's (the next segments of the partition) added in order."""
        for offset, ms in zip(later.offsets, later.times, strict=True):
            self.add(offset, ms)

    def to_json(self) -> list[list[int]]:
        return [[o, t] for o, t in zip(self.offsets, self.times, strict=True)]

    @classmethod
    def from_json(cls, points: object, keep: int = KEEP) -> OffsetTimes:
        """The index of a partition row's ``offsetTimes`` (pairs of last offset and ms); anything else is
        no point."""
        index = cls(keep)
        for point in points if isinstance(points, list) else []:
            if (isinstance(point, list | tuple) and len(point) == 2
                    and all(type(x) is int for x in point)):
                index.add(point[0], point[1])
        return index
