"""Rounds of the groups with a server-side protocol (KIP-848 consumer groups, KIP-932 share groups, KIP-1071
streams groups) from the records their coordinator writes to ``__consumer_offsets``.

The coordinator keeps each such group as records: one per member (its metadata; a tombstone when it goes),
the group's epoch, each member's target assignment with the epoch it was computed at, and each member's
current assignment with its member epoch. One heartbeat that changes the group is written as one batch, in
this order: the member's metadata, the new group epoch, the new targets, the member's current assignment.
So a group epoch record opens a round whose members are the members recorded so far (those written just
before it in the same batch included); target records fill in what each member is to get; a current
assignment record says what a member owns at its member epoch, which is the round of that epoch. A member
whose records are tombstoned left or was fenced (the log does not say which).

Topics are named by id in these records. Offset commits carry both the name and, since Kafka 4.1, the id, so
names are taken from them (any group's commits: topic ids are cluster-wide); an id never seen in a commit
shows as its first 8 characters.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kafka_meta.analysis import timeline as model
from kafka_meta.analysis.causes import Cause, ClientMemory


@dataclass(frozen=True)
class Family:
    kind: str  # the timeline's kind of group
    protocol_type: str
    metadata: int  # record types of the family's group epoch, members, targets and current assignments
    member: int
    target_metadata: int
    target_member: int
    current: int


FAMILIES = (
    Family("consumer (KIP-848)", "consumer", 3, 5, 6, 7, 8),
    Family("share (KIP-932)", "share", 11, 10, 12, 13, 14),
    Family("streams (KIP-1071)", "streams", 17, 19, 20, 21, 22),
)
PENDING = ("partitions_pending_revocation", "active_tasks_pending_revocation")
BY_RECORD_TYPE = {number: f for f in FAMILIES for number in (f.metadata, f.member, f.target_metadata,
                                                                  f.target_member, f.current)}


def _units(value: Any, *names: str) -> set[model.TopicPartition]:
    """Partitions (topic id, partition) or, for streams groups, active tasks (subtopology id, partition)."""
    out: set[model.TopicPartition] = set()
    for name in names:
        for group in getattr(value, name, None) or []:
            owner = getattr(group, "topic_id", None)
            if owner is None:
                owner = getattr(group, "subtopology_id", None)
            out.update((str(owner), int(p)) for p in getattr(group, "partitions", None) or [])
    return out


def _assigned(value: Any) -> set[model.TopicPartition]:
    return _units(value, "assigned_partitions", "active_tasks")


def _target(value: Any) -> set[model.TopicPartition]:
    return _units(value, "topic_partitions", "active_tasks")


class EpochGroupLog:
    """One server-side-protocol group, fed its records in log order."""

    def __init__(self, timeline: model.GroupTimeline, family: Family) -> None:
        self.timeline = timeline
        self.family = family
        timeline.kind = family.kind
        self.members: dict[str, model.MemberRound] = {}  # the members recorded so far, as the coordinator has them
        self.targets: dict[str, set[model.TopicPartition]] = {}
        self.owned: dict[str, set[model.TopicPartition]] = {}  # member -> what its latest record says it owns
        self.rounds: dict[int, model.Round] = {}
        self.current: model.Round | None = None
        self.memory = ClientMemory()
        self.arrivals: list[Cause] = []  # since the last group epoch
        self.departures: list[Cause] = []

    def read(self, number: int, key: Any, value: Any, ts: float | None, where: model.Evidence) -> None:
        f = self.family
        if number == f.metadata:
            if value is not None:
                self.epoch(value.epoch, ts, where)
            return
        member_id = getattr(key, "member_id", None) or ""
        if number == f.member:
            self.member(member_id, value, where)
        elif number == f.target_member and value is not None:
            self.targets[member_id] = _target(value)
        elif number == f.target_metadata and value is not None:
            r = self.rounds.get(value.assignment_epoch)
            for waiting in r.members if r is not None else []:
                if waiting.member_id in self.targets:
                    waiting.target = set(self.targets[waiting.member_id])
        elif number == f.current and value is not None:
            owned = _assigned(value)
            before = self.owned.get(member_id, set())
            self.owned[member_id] = owned
            r = self.rounds.get(value.member_epoch)
            m = r.member(member_id) if r is not None else None
            if m is None and r is not None and member_id in self.members:  # recorded after its epoch (compacted)
                m = self.copy(member_id)
                r.members.append(m)
            if m is not None and ts is not None:  # the record's time: when the member gave up or got each
                for tp in before - owned:
                    m.released_at.setdefault(tp, ts)
                for tp in owned - before:
                    m.gained_at.setdefault(tp, ts)
            if m is not None and not m.reconciled:  # once settled at an epoch, what follows is the next one's
                m.epoch, m.assigned, m.owned = value.member_epoch, owned, owned
                m.reconciled = m.target is not None and owned == m.target and not any(
                    getattr(value, name, None) for name in PENDING)

    def member(self, member_id: str, value: Any, where: model.Evidence) -> None:
        if value is None:  # a tombstone: the member left or was fenced
            gone = self.members.pop(member_id, None)
            self.targets.pop(member_id, None)
            self.owned.pop(member_id, None)
            if gone is not None:
                static = gone.instance_id
                kind = "expiry" if static else "departure"
                self.memory.departure(_key(gone), kind)
                self.departures.append(Cause(kind, member_id, f"static member {static}" if static else ""))
            return
        m = self.members.get(member_id)
        if m is None:
            m = model.MemberRound(member_id, evidence=where)
            self.members[member_id] = m
            m.client_id, m.client = getattr(value, "client_id", None), getattr(value, "client_host", None)
            m.instance_id = getattr(value, "instance_id", None)
            kind = self.memory.arrival(_key(m))
            self.memory.arrived(_key(m))
            self.arrivals.append(Cause(kind, member_id, f"client {m.client_id}" if m.client_id else ""))
        m.topics = list(getattr(value, "subscribed_topic_names", None) or [])

    def copy(self, member_id: str) -> model.MemberRound:
        """The member as recorded so far, for a new round: what it owns now, what it is to get."""
        m, owned = self.members[member_id], self.owned.get(member_id)
        return model.MemberRound(member_id, client_id=m.client_id, client=m.client, instance_id=m.instance_id,
                                 topics=m.topics, owned=owned, assigned=owned, target=self.targets.get(member_id),
                                 evidence=m.evidence)

    def epoch(self, epoch: int, ts: float | None, where: model.Evidence) -> None:
        known = self.rounds.get(epoch)
        if known is not None:  # written again (a compacted copy, the same records in another partition)
            if ts is not None and (known.start is None or ts < known.start):
                known.start = ts
            known.members += [self.copy(m) for m in self.members if known.member(m) is None]
            self.current = known
            self.arrivals, self.departures = [], []
            return
        previous = self.current
        r = model.Round(self.timeline.group, "offsets", generation=epoch, start=ts,
                        protocol_type=self.family.protocol_type, evidence=where)
        r.members = [self.copy(member_id) for member_id in self.members]
        causes = [*self.arrivals, *self.departures]
        if previous is None and not causes:
            causes = [Cause("first")]
        r.causes = causes or [Cause("epoch")]
        if not r.members and previous is not None:
            r.causes = [Cause("emptied", None, ", ".join(str(c) for c in causes))]
        r.triggers = [str(c) for c in r.causes]
        r.trigger_member = next((c.member for c in r.causes if c.member), None)
        self.arrivals, self.departures = [], []
        self.rounds[epoch] = r
        self.current = r
        self.timeline.rounds.append(r)

    def finish(self) -> None:
        rounds = self.timeline.rounds
        for i, r in enumerate(rounds):
            before = {m.member_id: m for m in rounds[i - 1].members} if i else {}
            for m in r.members:
                had = (before[m.member_id].owned if m.member_id in before else None) or set()
                now = m.target if m.target is not None else m.assigned
                if now is not None:
                    m.revoked, m.added = had - now, now - had
                    r.moved |= m.revoked | m.added
            r.complete = not r.members or all(m.reconciled for m in r.members)
            r.superseded = not r.complete and i + 1 < len(rounds)  # the next epoch came before all reconciled


def _key(m: model.MemberRound) -> str | None:
    return ClientMemory.key(m.instance_id, m.client_id, m.client)


def name_topics(timelines: Iterable[model.GroupTimeline], names: dict[str, str]) -> None:
    """Topic ids to names in the rounds of these groups (streams groups' subtopologies are left as they are)."""

    def named(units: set[model.TopicPartition] | None) -> set[model.TopicPartition] | None:
        if units is None:
            return None
        return {(names.get(t, t if len(t) <= 8 or t.isdigit() else t[:8]), p) for t, p in units}

    for tl in timelines:
        if tl.kind.startswith("streams ("):
            continue
        for r in tl.rounds:
            r.moved = named(r.moved) or set()
            for m in r.members:
                m.owned, m.assigned, m.target = named(m.owned), named(m.assigned), named(m.target)
                m.revoked, m.added = named(m.revoked) or set(), named(m.added) or set()
                m.gained_at = {next(iter(named({tp}) or {tp})): t for tp, t in m.gained_at.items()}
                m.released_at = {next(iter(named({tp}) or {tp})): t for tp, t in m.released_at.items()}
