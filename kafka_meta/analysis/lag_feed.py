"""The report's rows fed to :class:`~kafka_meta.analysis.lag.LagState`: the commits in force of
``__consumer_offsets`` (decoded once, handed over by the timeline as its
:class:`~kafka_meta.analysis.generations.RecordObserver`), user topics' partition summaries for the log ends,
and at the end the timeline for who owned each partition.

A commit counts as the group's committed offset when it stands as written (:func:`~kafka_meta.log.rows.in_force`:
no transaction, or one that committed); an aborted transaction's commit never does and an open one's not yet,
as Kafka's admin client lists them. A commit's time is its record's timestamp (the coordinator's clock when it
appended it). The generation a commit counts for is the one in force where it was written, the last
generation or group epoch record of its group before it in the same partition; the member is the one the
timeline's round of that generation gave the partition (or, when a capture holds the OffsetCommit request,
the member that sent it).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from kafka_meta.analysis.assemble import Timeline
from kafka_meta.analysis.generations import (
    COMMITS,
    GENERATION_RECORD_TYPES,
    GROUP_METADATA,
    NotMergeable,
    holds_offsets_row,
    log_order,
    read_offsets_row,
    scope_of,
)
from kafka_meta.analysis.lag import GroupStanding, LagState, Owner
from kafka_meta.analysis.timeline import GroupTimeline
from kafka_meta.errors import KafkaMetaError
from kafka_meta.log.rows import in_force
from kafka_meta.offsets.commit_view import CommitView
from kafka_meta.offsets.records import CoordinatorRecord, OffsetsRecord


def _ms(value: Any) -> int | None:
    if isinstance(value, dt.datetime):
        return int(value.timestamp() * 1000)
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return int(value)
    return None


class LagFeed:
    """Records and partition summaries in, each group's standing out (:meth:`finish`)."""

    def __init__(self, state: LagState | None = None) -> None:
        self.state = state if state is not None else LagState()
        self.in_force: dict[tuple[Any, str], int | None] = {}  # (partition log, group) -> generation in force

    def record(self, row: Mapping[str, Any], position: int, record: OffsetsRecord | CommitView, key: bytes,
               value: bytes | None) -> None:
        if type(record) is CommitView:  # the commonest record of all: read with as little as it takes
            self._commit(row, record.key.group, record.key.topic, record.key.partition, record.value)
            return
        if not isinstance(record, CoordinatorRecord):
            return
        group, number = record.group_id, record.record_type
        if number in COMMITS:
            key_of = record.key
            self._commit(row, group, getattr(key_of, "topic", None), getattr(key_of, "partition", None),
                         record.value)
            return
        self.state.seen(_ms(row.get("timestamp")))
        if group and number in GENERATION_RECORD_TYPES:
            name = "generation" if number == GROUP_METADATA else "epoch"
            self.in_force[(scope_of(row), group)] = getattr(record.value, name, None)

    def _commit(self, row: Mapping[str, Any], group: str | None, topic: Any, partition: Any, value: Any) -> None:
        ms = row.get("timestamp")
        if type(ms) is not int or ms < 0:
            ms = _ms(ms)
        if not group or type(topic) is not str or type(partition) is not int:
            self.state.seen(ms)
            return
        if value is None:
            self.state.seen(ms)
            self.state.forget(group, topic, partition)
            return
        offset = getattr(value, "offset", None)
        if type(offset) is not int or not in_force(row.get("transaction")):
            self.state.seen(ms)
            return
        self.state.commit(group, topic, partition, offset, ms, self.in_force.get((scope_of(row), group)))

    def unreadable(self, row: Mapping[str, Any], error: Exception) -> None:
        """A row the timeline could not read: counted there, nothing to the lag."""

    def partition(self, row: Mapping[str, Any]) -> None:
        self.state.partition_row(dict(row))

    def merge(self, later: LagFeed) -> None:
        if set(self.in_force) & set(later.in_force):
            raise NotMergeable("both read one group's generations in one partition")
        self.state.merge(later.state)
        self.in_force.update(later.in_force)

    def finish(self, timeline: Timeline | None) -> dict[str, GroupStanding]:
        """Each group's standing; the timeline names the members (and gives the commits of groups known only
        from captures, whose requests name their members)."""
        groups = {g.group: g for g in (timeline.groups if timeline is not None else [])}
        logged = set(self.state.groups())
        for name, tl in groups.items():
            if name not in logged:
                _captured_commits(self.state, tl)
        return self.state.standings(owner=owner_in(groups))


def standings_of(rows: Iterable[Mapping[str, Any]], partitions: Iterable[Mapping[str, Any]] = (),
                 timeline: Timeline | None = None) -> dict[str, GroupStanding]:
    """Each group's standing from rows held in memory (``__consumer_offsets`` records in any order, sorted into
    log order here; user topics' partition summaries), as the report's one pass tells it."""
    feed = LagFeed()
    for n, row in log_order(rows):
        if not holds_offsets_row(row):
            continue
        try:
            read = read_offsets_row(row, counting=True)
        except (KafkaMetaError, ValueError):
            continue
        if read is not None:
            feed.record(row, n, read[2], read[0], read[1])
    for row in partitions:
        feed.partition(row)
    return feed.finish(timeline)


def _captured_commits(state: LagState, tl: GroupTimeline) -> None:
    """A group's commits read from a capture's OffsetCommit requests (they name the member), oldest first; a
    request the coordinator refused (an error code in its answer) committed nothing."""
    for commit in sorted((c for c in tl.commits if c.member_id and c.offsets
                          and not any(code for code in c.error_codes)),
                         key=lambda c: c.in_force if c.in_force is not None else 0.0):
        ms = None if commit.in_force is None else int(commit.in_force * 1000)
        for place, offset in sorted(commit.offsets.items()):
            topic, _, number = place.rpartition("-")
            if topic and number.isdigit():
                state.commit(tl.group, topic, int(number), offset, ms, commit.generation, commit.member_id)


def owner_in(groups: Mapping[str, GroupTimeline]) -> Owner:
    """Who owned a partition in a generation: the member the round of that generation assigned it to (its
    member id, client id and host), by the timeline."""
    cache: dict[tuple[str, int | None], dict[tuple[str, int], tuple[str | None, str | None, str | None]]] = {}

    def owner(group: str, generation: int | None, topic: str, partition: int
              ) -> tuple[str | None, str | None, str | None]:
        key = (group, generation)
        if key not in cache:
            table: dict[tuple[str, int], tuple[str | None, str | None, str | None]] = {}
            tl = groups.get(group)
            rounds = [r for r in (tl.rounds if tl is not None else []) if r.generation == generation]
            for r in rounds[-1:]:
                for m in r.members:
                    for tp in m.assigned or ():
                        table[(tp[0], int(tp[1]))] = (m.member_id, m.client_id, m.client)
            cache[key] = table
        return cache[key].get((topic, partition), (None, None, None))

    return owner


class Observers:
    """Two observers of the timeline's records as one (a row is decoded once for both)."""

    def __init__(self, *observers: Any) -> None:
        self.observers = observers

    def record(self, row: Any, position: int, record: OffsetsRecord | CommitView, key: bytes,
               value: bytes | None) -> None:
        for o in self.observers:
            o.record(row, position, record, key, value)

    def unreadable(self, row: Any, error: Exception) -> None:
        for o in self.observers:
            o.unreadable(row, error)
