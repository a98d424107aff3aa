"""Kafka's ``RangeAssignor``, rack awareness included.

Per topic, the subscribed members in ``MemberInfo`` order (static members by instance id, then the others
by member id) each take a contiguous range of partitions; the first ``partitions % members`` take one more.

With racks (some member has ``client.rack`` on which replicas live, and partitions do not all have
replicas on every rack), a first pass prefers partitions on the member's own rack before the ranges are
dealt:

* topics subscribed by the same members with the same number of partitions are *co-partitioned*: partition
  ``p`` of all of them goes to the first member (in member order) whose rack has every one of them and who
  still has room in each, so joins on ``p`` stay on one member;
* any other topic that needs it gives each member, in order, as many of its still unassigned partitions on
  that member's rack as the member's share allows.

Whatever is left is then dealt in ranges, each member taking up to its share of what remains in partition
order; members keep the quota rule throughout: at most ``partitions // members`` plus one while members
with an extra partition are still owed. With racks the lists come out sorted by topic and partition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from kafka_meta.negotiation.assignor_facts import (
    Member,
    PartitionRacks,
    assignable_topics,
    member_order,
    replica_racks,
    use_rack_aware,
)
from kafka_meta.negotiation.rebalance_protocol import TopicPartition


class _TopicState:
    """One topic's consumers, what is left of it, and each consumer's remaining share."""

    def __init__(self, topic: str, count: int, consumers: list[Member], racks: PartitionRacks | None) -> None:
        self.topic = topic
        self.consumers = [m.member_id for m in consumers]
        self.rack_of = {m.member_id: m.rack_id for m in consumers}
        self.unassigned: list[TopicPartition] = [(topic, p) for p in range(count)]
        self.assigned_count = {c: 0 for c in self.consumers}
        self.per_consumer = count // len(self.consumers) if self.consumers else 0
        self.extra_left = count % len(self.consumers) if self.consumers else 0
        consumer_racks = {r for r in self.rack_of.values() if r}
        self.partition_racks: dict[TopicPartition, frozenset[str]] = {}
        if consumer_racks:
            self.partition_racks = {tp: replica_racks(racks, tp) for tp in self.unassigned}
        all_racks = set().union(*self.partition_racks.values()) if self.partition_racks else set()
        self.needs_racks = use_rack_aware(consumer_racks, all_racks, self.partition_racks)

    def racks_match(self, consumer: str, tp: TopicPartition) -> bool:
        rack = self.rack_of[consumer]
        return rack is None or rack in self.partition_racks.get(tp, frozenset())

    def max_assignable(self, consumer: str) -> int:
        room = self.per_consumer + (1 if self.extra_left > 0 else 0) - self.assigned_count[consumer]
        return max(0, room)

    def on_assigned(self, consumer: str, partitions: list[TopicPartition]) -> None:
        self.assigned_count[consumer] += len(partitions)
        if self.assigned_count[consumer] > self.per_consumer:
            self.extra_left -= 1
        taken = set(partitions)
        self.unassigned = [tp for tp in self.unassigned if tp not in taken]


def _give(out: dict[str, list[TopicPartition]], state: _TopicState, consumer: str,
          partitions: list[TopicPartition]) -> None:
    out[consumer].extend(partitions)
    state.on_assigned(consumer, partitions)


def _deal_ranges(out: dict[str, list[TopicPartition]], state: _TopicState,
                 may_assign: Callable[[str, TopicPartition], bool]) -> None:
    for consumer in state.consumers:
        if not state.unassigned:
            break
        limit = state.max_assignable(consumer)
        chosen = [tp for tp in state.unassigned if may_assign(consumer, tp)][:limit]
        if chosen:
            _give(out, state, consumer, chosen)


def _co_partitioned(out: dict[str, list[TopicPartition]], consumers: list[str], count: int,
                    states: list[_TopicState]) -> None:
    remaining = list(consumers)
    for p in range(count):
        match = next((c for c in remaining
                      if all(s.racks_match(c, (s.topic, p)) and s.max_assignable(c) > 0 for s in states)), None)
        if match is None:
            continue
        for s in states:
            _give(out, s, match, [(s.topic, p)])
        if not any(s.max_assignable(match) > 0 for s in states):
            remaining.remove(match)
            if not remaining:
                break


def _match_racks(out: dict[str, list[TopicPartition]], states: list[_TopicState]) -> None:
    groups: dict[tuple[tuple[str, str | None], ...], dict[int, list[_TopicState]]] = {}
    for s in states:
        key = tuple(sorted((c, s.rack_of[c]) for c in s.consumers))
        groups.setdefault(key, {}).setdefault(len(s.partition_racks), []).append(s)
    for by_count in groups.values():
        for count, same in by_count.items():
            if len(same) > 1:
                _co_partitioned(out, same[0].consumers, count, same)
            elif same[0].needs_racks:
                _deal_ranges(out, same[0], same[0].racks_match)


def range_assign(partitions_per_topic: Mapping[str, int], members: Sequence[Member],
                 racks: PartitionRacks | None = None) -> dict[str, list[TopicPartition]]:
    out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    states = [_TopicState(topic, count, member_order(m for m in members if topic in m.topics), racks)
              for topic, count in assignable_topics(partitions_per_topic, members).items()]
    rack_aware = any(s.needs_racks for s in states)
    if rack_aware:
        _match_racks(out, states)
    for s in states:
        _deal_ranges(out, s, lambda consumer, tp: True)
    if rack_aware:
        for parts in out.values():
            parts.sort()
    return out
