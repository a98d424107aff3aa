"""Where each group stands: per partition its committed offset, when and by whom it was committed, the log end,
the lag in records and in time, and Burrow's status (:mod:`kafka_meta.analysis.burrow`).

:class:`LagState` is fed commits (group, topic, partition, offset, when, the generation in force) and log ends
(a partition's end offset with its bounded offset-to-time index, :class:`~kafka_meta.log.offset_times.OffsetTimes`)
in any order: offline the commits come from ``__consumer_offsets`` and the log ends from the batch headers of
the user topics' partitions in the same log directory; live, from the coordinator's records and ListOffsets
answers. Lag is worked out at the end (:meth:`LagState.standings`), when both are known:

* lag in records at a commit: the log end at the commit's time (from the index) minus the committed offset;
  now: the log end read minus the last committed offset (what ``kafka-consumer-groups.sh --describe`` says);
* lag in time at a commit: the commit's time minus the time of the record at the committed offset (the oldest
  record the group has not consumed), 0 when caught up.

What it keeps follows the groups and partitions, never the commits: per partition a window of the last
:data:`~kafka_meta.analysis.burrow.WINDOW` commits (what Burrow evaluates) and a history thinned to at most
``2 * keep_history`` points, so the lag chart spans the whole input: its points are the history's and the
window's, the last few commits exact. The history takes every ``stride``-th commit; when full it keeps every
other of them and the stride doubles, so its points stay evenly spread from the first commit to the last,
and most commits add nothing to it. A group of many partitions shares :data:`GROUP_HISTORY` points of
history among them (four each at least, beside the windows), and its standing shows at most that many
points in all (two a partition at least): one group's chart stays readable, and the report's size
follows the groups, not the partitions times the commits. The standing says how many points each partition
kept (``historyPoints``) when the budget cut it.
Two states fed disjoint groups and partitions (two processes reading different partitions of a log
directory) add up exactly (:meth:`LagState.merge`); a key both hold raises
:class:`~kafka_meta.analysis.generations.NotMergeable`.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kafka_meta.analysis.burrow import WINDOW, Evaluation, GroupEvaluation, WindowCommit, evaluate, group_status
from kafka_meta.analysis.generations import NotMergeable
from kafka_meta.log.offset_times import OffsetTimes

HISTORY = 16  # lag points per partition kept for the chart besides the window: 2 * HISTORY at most
GROUP_HISTORY = 512  # lag points of history a group's partitions share, and its standing shows in all
PartitionKey = tuple[str, str, int]  # group, topic, partition
Owner = Callable[[str, int | None, str, int], tuple[str | None, str | None, str | None]]


class CommitPoint(NamedTuple):
    """A commit in force: the offset, when (epoch ms), the generation (or epoch) in force, the member when the
    request named it (a capture). A tuple: one is made for every commit read, the commonest record of all."""

    offset: int
    ms: int | None
    generation: int | None
    member: str | None
    seq: int  # the how-manieth commit of its partition (a point of both the window and the history)


NO_TIME = -1  # a commit's time unknown, in the window's array of times


@dataclass(slots=True)
class PartitionCommits:
    """One group's commits of one partition: the window, the thinned history, and how many there were.

    The window is kept as two rings of machine integers (offsets and times), the generation and member of the
    newest commit beside them: it is what every partition of every group holds, so a point of it costs 16
    bytes rather than a tuple and its numbers; :attr:`window` gives its points."""

    size: int
    offsets: array[int] = field(init=False)
    times: array[int] = field(init=False)
    history: list[CommitPoint] = field(default_factory=list)
    count: int = 0
    generation: int | None = None
    member: str | None = None
    stride: int = 1  # the history takes every stride-th commit

    def __post_init__(self) -> None:
        self.offsets = array("q", bytes(8 * self.size))
        self.times = array("q", bytes(8 * self.size))

    def add(self, offset: int, ms: int | None, generation: int | None, member: str | None) -> None:
        """The next commit into the window (the oldest let go when it is full)."""
        at = self.count % self.size
        self.offsets[at] = offset
        self.times[at] = NO_TIME if ms is None else ms
        self.count += 1
        self.generation, self.member = generation, member

    @property
    def held(self) -> int:
        """The points it holds: the window's and the history's."""
        return min(self.count, self.size) + len(self.history)

    @property
    def window(self) -> list[CommitPoint]:
        """The window's commits, oldest first (the newest with its generation and member)."""
        n = min(self.count, self.size)
        out = []
        for seq in range(self.count - n + 1, self.count + 1):
            at = (seq - 1) % self.size
            ms = self.times[at]
            newest = seq == self.count
            out.append(CommitPoint(self.offsets[at], None if ms == NO_TIME else ms,
                                   self.generation if newest else None, self.member if newest else None, seq))
        return out

    def points(self, stride: int = 1, window: list[CommitPoint] | None = None) -> list[CommitPoint]:
        """The history (every ``stride``-th commit of it) and the window (given, or read) together, oldest
        first."""
        seen = {p.seq: p for p in self.history if p.seq % stride == 0}
        seen.update((p.seq, p) for p in (self.window if window is None else window))
        return [seen[k] for k in sorted(seen)]

    def thin(self) -> None:
        """The history full: every other point dropped, and from now on every other commit skipped."""
        self.stride *= 2
        self.history = [p for p in self.history if p.seq % self.stride == 0]


def history_cap(window_history: int, group_history: int, partitions: int) -> int:
    """The points of history one partition of a group of ``partitions`` keeps before thinning: ``2 *
    keep_history``, or its share of the group's budget when the group has many partitions (four at least)."""
    return max(4, min(2 * window_history, group_history // max(1, partitions)))


def history_stride(count: int, cap: int) -> int:
    """Which commits a history of at most ``cap`` points holds after ``count`` commits: every ``stride``-th,
    the smallest power of two that leaves fewer than ``cap`` of them. Thinning as commits come reaches it,
    and the analyze job, which counts the commits first, selects by it: both readings keep the same points."""
    return 1 << (count // cap).bit_length()


def thinned(points: list[CommitPoint], most: int) -> list[CommitPoint]:
    """At most ``most`` (two at least) of ``points`` (oldest first), evenly spread from the oldest to the newest,
    both kept: one rule for every reading's standing (the report's one pass and the analyze job)."""
    if len(points) <= most:
        return points
    last = len(points) - 1
    return [points[round(i * last / (most - 1))] for i in range(most)]


@dataclass(slots=True)
class LogEnd:
    """A partition's log end offset, its first offset, and when its records were written."""

    end: int
    first: int | None = None
    times: OffsetTimes = field(default_factory=OffsetTimes)

    # fed ListOffsets answers (live): the end moved somewhere between two answers, so it is read between them
    # at an even pace; a log directory's batch headers say where it stepped, and are read as steps
    paced: bool = False

    def end_at(self, ms: int | None) -> int | None:
        """The log end at ``ms`` (None: unknown); before the first record kept, the log's first offset."""
        if ms is None:
            return None
        found = self.times.end_near(ms) if self.paced else self.times.end_at(ms)
        if found is None:
            return self.first if self.times.offsets else None
        return min(found, self.end)


@dataclass(frozen=True, slots=True)
class LagPoint:
    """The lag at one commit: when, the offset, the lag in records and seconds (None: not known)."""

    ms: int | None
    offset: int
    records: int | None
    seconds: float | None

    def to_json(self) -> dict[str, Any]:
        return {"ts": None if self.ms is None else self.ms / 1000, "offset": self.offset, "lagRecords": self.records,
                "lagSeconds": self.seconds}


@dataclass(frozen=True, slots=True)
class PartitionStanding:
    """A row of the group's table, as ``kafka-consumer-groups.sh --describe`` has it and more."""

    topic: str
    partition: int
    offset: int
    committed_ms: int | None
    generation: int | None
    member: str | None
    client_id: str | None
    host: str | None
    log_end: int | None
    lag_records: int | None
    lag_seconds: float | None
    evaluation: Evaluation
    commits: int
    history: tuple[LagPoint, ...]
    window_ms: int | None = None  # when the window Burrow judged began (its oldest commit's time)
    history_limit: int | None = None  # the points the group's budget let it show (None: not cut)

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "currentOffset": self.offset,
                "committedAt": None if self.committed_ms is None else self.committed_ms / 1000,
                "generation": self.generation, "consumerId": self.member, "clientId": self.client_id,
                "host": self.host, "logEndOffset": self.log_end, "lag": self.lag_records,
                "lagSeconds": self.lag_seconds, "status": self.evaluation.status, "rule": self.evaluation.rule,
                "complete": self.evaluation.complete, "commits": self.commits,
                "history": [p.to_json() for p in self.history]} | (
                    {} if self.history_limit is None else {"historyPoints": self.history_limit})


@dataclass(frozen=True, slots=True)
class GroupStanding:
    """Where one group stands: its partitions' rows and Burrow's status of the group."""

    group: str
    partitions: tuple[PartitionStanding, ...]
    status: GroupEvaluation

    @property
    def total_lag(self) -> int | None:
        lags = [p.lag_records for p in self.partitions if p.lag_records is not None]
        return sum(lags) if lags else None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status.status, "rule": self.status.rule,
                "statusPartitions": list(self.status.partitions),
                "totalLag": self.total_lag, "partitions": [p.to_json() for p in self.partitions]}


def _no_owner(group: str, generation: int | None, topic: str, partition: int
              ) -> tuple[str | None, str | None, str | None]:
    return None, None, None


class LagState:
    """Commits and log ends in, :class:`GroupStanding` s out; bounded per partition (see the module)."""

    def __init__(self, window: int = WINDOW, keep_history: int = HISTORY, group_history: int = GROUP_HISTORY
                 ) -> None:
        self.window, self.keep_history, self.group_history = window, keep_history, group_history
        self.commits: dict[PartitionKey, PartitionCommits] = {}
        self.partitions_of: dict[str, int] = {}  # group -> how many of its partitions hold a commit
        self.caps: dict[str, int] = {}  # group -> history_cap(group), kept as its partitions come and go
        self.ends: dict[tuple[str, int], LogEnd] = {}
        self.group_last: dict[str, int] = {}  # group -> its newest commit's ms
        self.latest_ms: int | None = None  # the newest time seen: "now" for an offline evaluation

    def seen(self, ms: int | None) -> None:
        """A record's time (ms), whatever it holds: the newest one is "now" for an offline evaluation."""
        if ms is not None and (self.latest_ms is None or ms > self.latest_ms):
            self.latest_ms = ms

    def commit(self, group: str, topic: str, partition: int, offset: int, ms: int | None,
               generation: int | None = None, member: str | None = None) -> None:
        """An offset commit in force (never an aborted or still open transaction's)."""
        key = (group, topic, partition)
        entry = self.commits.get(key)
        if entry is None:
            entry = self.commits[key] = PartitionCommits(self.window)
            self._partitions(group, 1)
        entry.add(offset, ms, generation, member)
        if entry.count % entry.stride == 0:
            history = entry.history
            history.append(CommitPoint(offset, ms, generation, member, entry.count))
            if len(history) >= self.caps[group]:
                entry.thin()
        if ms is not None:
            if ms > self.group_last.get(group, -1):
                self.group_last[group] = ms
            if self.latest_ms is None or ms > self.latest_ms:
                self.latest_ms = ms

    def forget(self, group: str, topic: str, partition: int) -> None:
        """A tombstone: the group's offset of the partition expired or was deleted; nothing stands committed."""
        if self.commits.pop((group, topic, partition), None) is not None:
            self._partitions(group, -1)

    def history_cap(self, group: str) -> int:
        """The points of history one of ``group``'s partitions keeps before thinning (:func:`history_cap`)."""
        return history_cap(self.keep_history, self.group_history, self.partitions_of.get(group, 1))

    def restore(self, group: str, topic: str, partition: int, points: list[CommitPoint], count: int) -> None:
        """A partition's commits as the analyze job selects them (every :func:`history_stride`-th of the
        ``count`` and the window), oldest first, each ``seq`` its place among them."""
        entry = self.commits.get((group, topic, partition))
        if entry is None:
            entry = self.commits[(group, topic, partition)] = PartitionCommits(self.window)
            self._partitions(group, 1)
        entry.count, entry.history = count, list(points)
        for point in points:
            if point.seq > count - entry.size:
                at = (point.seq - 1) % entry.size
                entry.offsets[at] = point.offset
                entry.times[at] = NO_TIME if point.ms is None else point.ms
        if points:
            newest = points[-1]
            entry.generation, entry.member = newest.generation, newest.member
            if newest.ms is not None:
                self.group_last[group] = max(newest.ms, self.group_last.get(group, -1))
                self.seen(newest.ms)

    def _partitions(self, group: str, more: int) -> None:
        self.partitions_of[group] = self.partitions_of.get(group, 0) + more
        self.caps[group] = self.history_cap(group)

    def log_end(self, topic: str, partition: int, end: int, ms: int | None = None, first: int | None = None,
                times: OffsetTimes | None = None) -> None:
        """A partition's log end offset: offline with the index of its batch headers (``times``), live a
        ListOffsets answer at ``ms`` (added to the partition's index, so later commits find it)."""
        known = self.ends.get((topic, partition))
        if known is None:
            known = self.ends[(topic, partition)] = LogEnd(end, first, times if times is not None else OffsetTimes())
        elif times is not None:
            known.times.merge(times)
        known.end = max(known.end, end) if times is None else end
        if first is not None:
            known.first = first
        if ms is not None and end > 0:
            known.times.add(end - 1, ms)
            known.paced = known.paced or times is None
        self.seen(ms)
        if times is not None and times.times:
            self.seen(times.times[-1])

    def partition_row(self, row: dict[str, Any]) -> None:
        """A user topic's partition summary (:func:`kafka_meta.inputs.segment.partition_row`)."""
        topic, partition, end = row.get("topic"), row.get("partition"), row.get("logEndOffset")
        if type(topic) is str and type(partition) is int and type(end) is int:
            first = row.get("firstOffset")
            self.log_end(topic, partition, end, first=first if type(first) is int else None,
                         times=OffsetTimes.from_json(row.get("offsetTimes")))

    def merge(self, later: LagState) -> None:
        """A state fed other groups and partitions added to this one, exactly."""
        shared = set(self.commits) & set(later.commits)
        if shared or set(self.ends) & set(later.ends):
            raise NotMergeable("both read the commits or the log of one partition")
        self.commits.update(later.commits)
        for group, n in later.partitions_of.items():
            self._partitions(group, n)
        self.ends.update(later.ends)
        for group, ms in later.group_last.items():
            self.group_last[group] = max(ms, self.group_last.get(group, ms))
        self.seen(later.latest_ms)

    def groups(self) -> list[str]:
        return sorted({k[0] for k in self.commits})

    def standings(self, now_ms: int | None = None, owner: Owner = _no_owner) -> dict[str, GroupStanding]:
        """Each group's table and status, evaluated at ``now_ms`` (default: the newest time the state saw)."""
        now = self.latest_ms if now_ms is None else now_ms
        rows: dict[str, list[PartitionStanding]] = {}
        for (group, topic, partition), entry in sorted(self.commits.items()):
            most = max(2, self.group_history // self.partitions_of[group])  # the group's share, shown
            rows.setdefault(group, []).append(self._standing(group, topic, partition, entry, now, owner, most))
        return {group: GroupStanding(group, tuple(parts), group_status((p.name, p.evaluation) for p in parts))
                for group, parts in rows.items()}

    def _standing(self, group: str, topic: str, partition: int, entry: PartitionCommits, now: int | None,
                  owner: Owner, most: int) -> PartitionStanding:
        end = self.ends.get((topic, partition))
        in_window = entry.window
        last = in_window[-1]
        lag = None if end is None else max(0, end.end - last.offset)
        seconds = None if end is None else seconds_behind(end, last.offset, last.ms, lag)
        window = [WindowCommit(p.offset, p.ms, lag_at(end, p.offset, p.ms)[1]) for p in in_window]
        waiting = end.times.time_at(last.offset) if end is not None else None
        evaluation = evaluate(window, lag, now, self.group_last.get(group), waiting, self.window)
        member, client_id, host = owner(group, last.generation, topic, partition)
        member = last.member or member
        stride = max(entry.stride, history_stride(entry.count, self.history_cap(group)))
        points = entry.points(stride, in_window)
        shown = thinned(points, most)
        history = tuple(LagPoint(p.ms, p.offset, *lag_at(end, p.offset, p.ms)[1:]) for p in shown)
        return PartitionStanding(topic, partition, last.offset, last.ms, last.generation, member, client_id, host,
                                 None if end is None else end.end, lag, seconds, evaluation,
                                 entry.count, history, in_window[0].ms,
                                 most if len(shown) < len(points) else None)


def lag_at(end: LogEnd | None, offset: int, ms: int | None) -> tuple[int | None, int | None, float | None]:
    """A commit's lag then: the log end at its time, the records behind it, and the seconds since the record at
    the committed offset was written (0 when caught up; None where the log end or a time is unknown). One rule
    for the report's standings and the analyze job's ``lag/`` table."""
    if end is None:
        return None, None, None
    at = end.end_at(ms)
    lag = None if at is None else max(0, at - offset)
    return at, lag, seconds_behind(end, offset, ms, lag)


def seconds_behind(end: LogEnd, offset: int, ms: int | None, lag: int | None) -> float | None:
    """Lag in time at a commit: its time minus the time of the record at the committed offset."""
    if lag == 0:
        return 0.0
    written = end.times.time_at(offset)
    if written is None or ms is None:
        return None
    return max(0.0, (ms - written) / 1000)


def status_rows(standings: dict[str, GroupStanding]) -> Iterator[tuple[str, str, str, tuple[str, ...]]]:
    """(group, status, rule, partitions) for each group whose status is not OK: what findings are made of."""
    for group, standing in sorted(standings.items()):
        if standing.status.status != "OK":
            yield group, standing.status.status, standing.status.rule, standing.status.partitions
