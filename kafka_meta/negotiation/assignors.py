"""Kafka's built-in consumer assignors, placing partitions the way the Java code does (no rack awareness).

* :func:`range_assign`: per topic, the subscribed members in ``MemberInfo`` order each take a contiguous range;
  the first ``partitions % members`` take one more (``RangeAssignor``).
* :func:`round_robin_assign`: every partition, sorted by topic and partition, dealt over the members in
  ``MemberInfo`` order, skipping members not subscribed to its topic (``RoundRobinAssignor``).
* :func:`sticky_assign`: ``AbstractStickyAssignor``'s algorithm for groups whose members all subscribe to the
  same topics (its "constrained" builder): settle conflicting ownership claims by generation, let each
  member keep its owned partitions up to the balanced quota, then deal the rest round-robin to the members
  still under quota. It also reports the partitions that change owner (``partitionsTransferringOwnership``).
* :func:`cooperative_sticky_assign`: the same, minus the partitions changing owner, which their new owner gets
  only in the follow-up rebalance, after the old owner revoked them (``CooperativeStickyAssignor``).

``MemberInfo`` order: members with a ``group.instance.id`` first, by instance id, then the others by member id.
Where Kafka's result depends on the iteration order of a ``java.util.HashMap`` keyed by member id (which
member keeps a larger share when several could), :func:`java_hash_map_order` reproduces that order, so a
given set of member ids gets the assignment Java computes for it (real member ids are random, so in a real
group that choice is effectively random too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.rebalance_protocol import TopicPartition

DEFAULT_GENERATION = -1
_HASH_MAP_CAPACITY = 16
_HASH_MAP_LOAD_FACTOR = 0.75


@dataclass(frozen=True)
class Member:
    """What an assignor reads from one member's subscription."""

    member_id: str
    topics: frozenset[str]
    owned: tuple[TopicPartition, ...] = ()
    generation: int = DEFAULT_GENERATION
    instance_id: str | None = None


@dataclass(frozen=True)
class StickyResult:
    assignment: dict[str, list[TopicPartition]]
    transferring: dict[TopicPartition, str]       # partition -> its new owner, while another member still owns it


def member_order(members: Iterable[Member]) -> list[Member]:
    """``MemberInfo.compareTo``: static members (by instance id) before dynamic ones (by member id)."""
    return sorted(members, key=lambda m: (m.instance_id is None, m.instance_id or m.member_id))


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` as an unsigned 32-bit value."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


def java_hash_map_order(keys: Sequence[str]) -> list[str]:
    """The iteration order of a ``new HashMap<>()`` filled with ``keys`` in this order: by bucket of the final
    table (capacity doubled from 16 while the size exceeds three quarters of it), insertion order within one."""
    capacity = _HASH_MAP_CAPACITY
    while len(keys) > capacity * _HASH_MAP_LOAD_FACTOR:
        capacity *= 2

    def bucket(key: str) -> int:
        h = java_string_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)

    return [k for _, _, k in sorted((bucket(k), i, k) for i, k in enumerate(keys))]


def _partitions(partitions_per_topic: Mapping[str, int], topics: Iterable[str] | None = None) -> list[TopicPartition]:
    wanted = set(partitions_per_topic if topics is None else topics)
    return [(t, p) for t in sorted(partitions_per_topic) if t in wanted for p in range(partitions_per_topic[t])]


def range_assign(partitions_per_topic: Mapping[str, int], members: Sequence[Member]) -> dict[str, list[TopicPartition]]:
    out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    for topic in partitions_per_topic:
        consumers = [m.member_id for m in member_order(m for m in members if topic in m.topics)]
        count = partitions_per_topic[topic]
        if not consumers or not count:
            continue
        per, extra = divmod(count, len(consumers))
        start = 0
        for i, consumer in enumerate(consumers):
            n = per + (1 if i < extra else 0)
            out[consumer].extend((topic, p) for p in range(start, start + n))
            start += n
    return out


def round_robin_assign(partitions_per_topic: Mapping[str, int],
                       members: Sequence[Member]) -> dict[str, list[TopicPartition]]:
    out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    ordered = member_order(members)
    if not ordered:
        return out
    subscribed = set().union(*(m.topics for m in members))
    i = 0
    for tp in _partitions(partitions_per_topic, subscribed):
        while tp[0] not in ordered[i % len(ordered)].topics:
            i += 1
        out[ordered[i % len(ordered)].member_id].append(tp)
        i += 1
    return out


def _settle_claims(partitions: set[TopicPartition], members: Sequence[Member]
                   ) -> tuple[dict[str, list[TopicPartition]], set[TopicPartition]]:
    """``allSubscriptionsEqual``: a partition claimed by two members goes to the higher generation; equal
    generations invalidate it for both."""
    owned: dict[str, list[TopicPartition]] = {}
    owner: dict[TopicPartition, str] = {}
    contested: set[TopicPartition] = set()
    generation = {m.member_id: m.generation for m in members}
    for m in members:
        mine: list[TopicPartition] = []
        owned[m.member_id] = mine
        for tp in m.owned:
            if tp not in partitions:
                continue
            other = owner.get(tp)
            if other is None:
                mine.append(tp)
                owner[tp] = m.member_id
            elif m.generation == generation[other]:
                contested.add(tp)
                if tp in owned[other]:
                    owned[other].remove(tp)
                owner[tp] = m.member_id
            elif m.generation > generation[other]:
                mine.append(tp)
                if tp in owned[other]:
                    owned[other].remove(tp)
                owner[tp] = m.member_id
    return owned, contested


def sticky_assign(partitions_per_topic: Mapping[str, int], members: Sequence[Member]) -> StickyResult:
    """``AbstractStickyAssignor`` for members with equal subscriptions. ``members`` in the order the leader
    received them (the JoinGroup response order), which decides ties inside one hash bucket."""
    if not members:
        return StickyResult({}, {})
    topics = members[0].topics
    if any(m.topics != topics for m in members):
        raise NegotiationError("sticky_assign implements Kafka's algorithm for equal subscriptions only")
    partitions = _partitions(partitions_per_topic, topics)
    total = len(partitions)
    ordered = [next(m for m in members if m.member_id == mid)
               for mid in java_hash_map_order([m.member_id for m in members])]
    owned, contested = _settle_claims(set(partitions), ordered)
    n = len(members)
    min_quota, max_quota = total // n, -(-total // n)
    expected_over = total % n
    over = 0
    assignment: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    maybe_revoked: dict[TopicPartition, str] = {}
    under_min: list[str] = []
    exactly_min: list[str] = []
    for m in ordered:
        mine = sorted((tp for tp in owned[m.member_id] if tp not in contested), key=lambda tp: (tp[1], tp[0]))
        if len(mine) < min_quota:
            assignment[m.member_id].extend(mine)
            under_min.append(m.member_id)
        elif len(mine) >= max_quota and over < expected_over:
            over += 1
            if over == expected_over:
                exactly_min.clear()
            assignment[m.member_id].extend(mine[:max_quota])
            maybe_revoked.update((tp, m.member_id) for tp in mine[max_quota:])
        else:
            assignment[m.member_id].extend(mine[:min_quota])
            maybe_revoked.update((tp, m.member_id) for tp in mine[min_quota:])
            if over < expected_over:
                exactly_min.append(m.member_id)
    placed = {tp for parts in assignment.values() for tp in parts}
    unassigned = [tp for tp in partitions if tp not in placed]
    under_min.sort()
    exactly_min.sort()
    transferring: dict[TopicPartition, str] = {}
    cursor = 0
    for tp in unassigned:
        if cursor < len(under_min):
            consumer = under_min[cursor]
        elif not under_min and not exactly_min:
            raise NegotiationError("no more unfilled consumers to be assigned (IllegalStateException in Kafka)")
        elif not under_min:
            consumer = exactly_min.pop(0)
        else:
            cursor = 0
            consumer = under_min[0]
        assignment[consumer].append(tp)
        if (tp in maybe_revoked and maybe_revoked[tp] != consumer) or tp in contested:
            transferring[tp] = consumer
        count = len(assignment[consumer])
        if count == min_quota and consumer in under_min:
            under_min.remove(consumer)
            exactly_min.append(consumer)
        else:
            if count == max_quota:
                over += 1
            if consumer in under_min:
                cursor += 1
    return StickyResult(assignment, transferring)


def cooperative_sticky_assign(partitions_per_topic: Mapping[str, int], members: Sequence[Member]) -> StickyResult:
    """``CooperativeStickyAssignor``: the sticky assignment without the partitions that change owner."""
    result = sticky_assign(partitions_per_topic, members)
    assignment = {m: list(parts) for m, parts in result.assignment.items()}
    for tp, consumer in result.transferring.items():
        assignment[consumer].remove(tp)
    return StickyResult(assignment, result.transferring)
