"""Kafka's built-in consumer assignors, placing partitions exactly as the Java code does, racks included.

* :func:`range_assign` (``RangeAssignor``, :mod:`~kafka_meta.negotiation.range_assignor`): per topic, the
  subscribed members in ``MemberInfo`` order each take a contiguous range; the first
  ``partitions % members`` take one more. With racks, partitions on a member's own rack first.
* :func:`round_robin_assign` (``RoundRobinAssignor``): every partition, sorted by topic and partition, dealt
  over the members in ``MemberInfo`` order, skipping members not subscribed to its topic. It has no racks.
* :func:`sticky_assign` and :func:`cooperative_sticky_assign` (``StickyAssignor``,
  ``CooperativeStickyAssignor``, :mod:`~kafka_meta.negotiation.sticky`): keep what members owned as far
  as balance allows, with Kafka's two algorithms (all subscriptions equal, or not) and its racks.

``MemberInfo`` order: members with a ``group.instance.id`` first, by instance id, then the others by member
id. Where Kafka's result depends on the iteration order of a ``java.util.HashMap`` or ``HashSet`` (which
member keeps a larger share when several could, which moved partition moves back), that order is
reproduced (:mod:`~kafka_meta.negotiation.java_order`), so a given set of member ids gets the assignment
Java computes for it; real member ids are random, so in a real group that choice is effectively random too.
``racks`` gives the racks of each partition's replicas; a member's rack is ``Member.rack``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kafka_meta.negotiation.assignor_facts import (
    DEFAULT_GENERATION,
    Member,
    PartitionRacks,
    StickyResult,
    assignable_topics,
    member_order,
)
from kafka_meta.negotiation.java_order import hash_map_order, string_hash
from kafka_meta.negotiation.range_assignor import range_assign
from kafka_meta.negotiation.rebalance_protocol import TopicPartition
from kafka_meta.negotiation.sticky import cooperative_sticky_assign, sticky_assign

__all__ = [
    "DEFAULT_GENERATION",
    "Member",
    "PartitionRacks",
    "StickyResult",
    "cooperative_sticky_assign",
    "java_hash_map_order",
    "java_string_hash",
    "member_order",
    "range_assign",
    "round_robin_assign",
    "sticky_assign",
]


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` as an unsigned 32-bit value."""
    return string_hash(text) & 0xFFFFFFFF


def java_hash_map_order(keys: Sequence[str]) -> list[str]:
    """The iteration order of a ``new HashMap<>()`` filled with these member ids in this order."""
    return hash_map_order(keys, string_hash)


def round_robin_assign(partitions_per_topic: Mapping[str, int], members: Sequence[Member],
                       racks: PartitionRacks | None = None) -> dict[str, list[TopicPartition]]:
    """``RoundRobinAssignor`` (``racks`` is accepted for a uniform signature; the assignor ignores racks)."""
    out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    ordered = member_order(members)
    topics = assignable_topics(partitions_per_topic, members)
    i = 0
    for topic in sorted(topics):
        for p in range(topics[topic]):
            while topic not in ordered[i % len(ordered)].topics:
                i += 1
            out[ordered[i % len(ordered)].member_id].append((topic, p))
            i += 1
    return out
