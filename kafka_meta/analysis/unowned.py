"""What a rebalance cost: the partitions that had no owner, from when to when.

A partition is unowned from the moment its owner gave it up (revoked it, left, or crashed) until its next owner
got it: nobody consumes it meanwhile. The rounds say when, by the protocol's own events:

* **classic, eager**: a member gives up everything it owns when it rejoins (its JoinGroup request) and gets its
  new assignment with its SyncGroup answer;
* **classic, cooperative** (KIP-429, Kafka Streams): only what moves is given up, when the revoking member learns
  its new assignment (its SyncGroup answer), and is owned again from the new owner's SyncGroup answer of the
  follow-up round;
* **KIP-848 consumer and KIP-1071 streams groups**: partition by partition, as the epochs builders record it
  (:attr:`~kafka_meta.analysis.timeline.MemberRound.released_at` / ``gained_at``): a heartbeat no longer listing
  a partition gave it up, the heartbeat answer (or the assignment record of ``__consumer_offsets``) handing it to
  another member gave it;
* **a member that went** (left, expired, fenced) gave up what it still owned at the last request the input has
  from it (:attr:`~kafka_meta.analysis.timeline.GroupTimeline.last_seen`); with none, at the round that noticed,
  and the gap is then a lower bound (``bound="at least"``);
* **classic groups from ``__consumer_offsets`` alone**: the record of a generation says when its assignment was
  written (the members have it then), not when the rebalance began: an eager round's gaps are lower bounds
  (``bound="at least"``, from that record); a cooperative one's run from the revoke round's record to the
  follow-up's. (The commits' seconds would bound an eager start better, but a one-pass reading counts commits
  per generation without them, and every reading must tell the same story.)

Share groups (KIP-932) share partitions and revoke nothing: they have no such cost.

Sans-IO: rounds in, gaps out, fed after the timeline is built; it keeps per round only the gaps it found.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.analysis.timeline import GroupTimeline, Round, TopicPartition, tp_label

RELEASE, GAIN = 0, 1  # at the same instant a release comes first: nobody owns a partition twice


@dataclass(frozen=True)
class Gap:
    """One partition without an owner."""

    partition: TopicPartition
    start: float
    end: float
    released_by: str  # the member that had it
    taken_by: str  # the member that got it next
    how: str  # "revoked", or the cause of the owner's going: "leave", "expiry", "poll-timeout", "departure" ...
    bound: str = ""  # "" measured; "at least": its start is not known, it began no later than said

    @property
    def seconds(self) -> float:
        return self.end - self.start

    def to_json(self) -> dict[str, Any]:
        return {"partition": tp_label(self.partition), "from": self.start, "to": self.end,
                "seconds": round(self.seconds, 3), "releasedBy": self.released_by, "takenBy": self.taken_by,
                "how": self.how, "bound": self.bound or None}


@dataclass
class GroupCost:
    """A group's gaps, per round (the round that handed the partition out again), and their sums."""

    by_round: dict[int, list[Gap]] = field(default_factory=dict)  # index in the group's rounds -> its gaps
    still_open: int = 0  # partitions given up and not owned again where the input ends (the group emptied)

    @property
    def gaps(self) -> list[Gap]:
        return [g for i in sorted(self.by_round) for g in self.by_round[i]]

    @property
    def partition_seconds(self) -> float:
        return sum(g.seconds for g in self.gaps)

    @property
    def longest(self) -> Gap | None:
        return max(self.gaps, key=lambda g: (g.seconds, -g.start), default=None)

    def round_seconds(self, index: int) -> float:
        return sum(g.seconds for g in self.by_round.get(index, []))

    def summary(self) -> str:
        """One line: the total and the longest gap."""
        longest = self.longest
        if longest is None:
            return "unowned: none"
        return (f"unowned: {self.partition_seconds:.1f} partition-s, longest {longest.seconds:.1f} s "
                f"({tp_label(longest.partition)})")


@dataclass(frozen=True)
class _Event:
    ts: float
    kind: int
    member: str
    partitions: frozenset[TopicPartition] | None  # None: everything the member still owns
    round: int
    how: str = "revoked"
    bound: str = ""


def _how(r: Round, member: str) -> str:
    return next((c.kind for c in r.causes if c.member == member and c.kind != "follow-up"), "gone")


def _per_partition(r: Round) -> bool:
    return any(m.epoch is not None or m.gained_at or m.released_at for m in r.members)


def events(tl: GroupTimeline) -> list[_Event]:
    """The releases and gains the rounds show, in no particular order."""
    out: list[_Event] = []
    previous: Round | None = None
    for i, r in enumerate(tl.rounds):
        now = {m.member_id for m in r.members}
        noticed = r.start if r.start is not None else r.end
        for pm in previous.members if previous is not None else []:
            if pm.member_id in now:
                continue
            seen = tl.last_seen.get(pm.member_id)
            at = seen if seen is not None else noticed
            if at is not None:
                out.append(_Event(at, RELEASE, pm.member_id, None, i, _how(r, pm.member_id),
                                  "" if seen is not None else "at least"))
        for m in r.members:
            if m.replaces and m.assigned:  # a static member back within its session timeout under a new id:
                # its old id had the same assignment, from the round's SyncGroup answers, until it went
                seen = tl.last_seen.get(m.replaces)
                got = min((o.synced_at for o in r.members if o is not m and o.synced_at is not None),
                          default=r.start)
                if seen is not None and got is not None and got <= seen:
                    out.append(_Event(got, GAIN, m.replaces, frozenset(m.assigned), i))
                    out.append(_Event(seen, RELEASE, m.replaces, None, i, "restart"))
            if _per_partition(r):
                out += [_Event(t, RELEASE, m.member_id, frozenset({tp}), i) for tp, t in m.released_at.items()]
                out += [_Event(t, GAIN, m.member_id, frozenset({tp}), i) for tp, t in m.gained_at.items()]
                continue
            cooperative = r.protocol in ("cooperative-sticky", "stream")
            if r.source == "offsets":
                if r.start is None:
                    continue
                if cooperative:
                    out.append(_Event(r.start, RELEASE, m.member_id, frozenset(m.revoked), i))
                else:  # when the rebalance began is not recorded: from the generation's record, a lower bound
                    out.append(_Event(r.start, RELEASE, m.member_id, None, i, bound="at least"))
                out.append(_Event(r.start, GAIN, m.member_id, frozenset(m.assigned or ()), i))
                continue
            if not cooperative and m.joined_at is not None:
                out.append(_Event(m.joined_at, RELEASE, m.member_id, None, i))
            if m.synced_at is None or m.assigned is None:
                continue
            if cooperative:
                out.append(_Event(m.synced_at, RELEASE, m.member_id, frozenset(m.revoked), i))
            out.append(_Event(m.synced_at, GAIN, m.member_id, frozenset(m.assigned), i))
        if r.members:
            previous = r
    return out


def group_cost(tl: GroupTimeline) -> GroupCost:
    """Every gap of the group: the events in time order, each partition's owner followed through them."""
    cost = GroupCost()
    if tl.kind.startswith("share"):
        return cost
    owner: dict[TopicPartition, str] = {}
    open_since: dict[TopicPartition, _Event] = {}
    found: dict[int, list[Gap]] = defaultdict(list)
    for e in sorted(events(tl), key=lambda e: (e.ts, e.kind)):
        if e.kind == RELEASE:
            tps = e.partitions if e.partitions is not None else [tp for tp, o in owner.items() if o == e.member]
            for tp in list(tps):
                if owner.get(tp) == e.member:
                    del owner[tp]
                    open_since[tp] = e
            continue
        for tp in sorted(e.partitions or ()):
            released = open_since.pop(tp, None)
            if released is not None:
                found[e.round].append(Gap(tp, released.ts, max(e.ts, released.ts), released.member, e.member,
                                          released.how, released.bound))
            owner[tp] = e.member
    cost.by_round = {i: sorted(gaps, key=lambda g: (g.start, g.partition)) for i, gaps in sorted(found.items())}
    cost.still_open = len(open_since)
    return cost


def cost_json(tl: GroupTimeline, cost: GroupCost) -> dict[str, Any]:
    """report.json's ``unowned`` of a group: the sums, the longest gap, and per round its gaps."""
    longest = cost.longest
    return {"partitionSeconds": round(cost.partition_seconds, 3),
            "longest": longest.to_json() if longest is not None else None, "stillOpen": cost.still_open,
            "rounds": [{"generation": tl.rounds[i].generation, "start": tl.rounds[i].start,
                        "partitionSeconds": round(cost.round_seconds(i), 3), "gaps": [g.to_json() for g in gaps]}
                       for i, gaps in sorted(cost.by_round.items())]}


__all__ = ["Gap", "GroupCost", "cost_json", "events", "group_cost"]
