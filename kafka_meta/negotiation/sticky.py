"""Kafka's sticky assignors (``AbstractStickyAssignor``, ``StickyAssignor``, ``CooperativeStickyAssignor``).

Both start the same way: walk the members in the order Java's ``HashMap`` of subscriptions iterates them and
settle what each owned. A partition claimed by two members goes to the one of the higher generation, and is
taken from both when their generations are equal (Kafka compares the generation a member's assignor data
reports with the generation in the *subscription* of the member that claimed the partition first). Then:

* every member subscribes to the same topics: the *constrained* algorithm (:mod:`sticky_constrained`), which
  keeps owned partitions up to a balanced quota and deals the rest round-robin;
* otherwise the *general* algorithm (:mod:`sticky_general`), which assigns the rest to the least loaded
  eligible member and then moves partitions from members with more to members with fewer until no move
  helps, moving a partition back to its owner of an older generation when that member has room.

The cooperative assignor then leaves out every partition that changes owner (it goes to its new owner in the
follow-up rebalance, once its old owner has revoked it): the constrained algorithm reports those partitions
itself; for the general one they are the partitions that some member gains and another member owned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kafka_meta.negotiation.assignor_facts import (
    DEFAULT_GENERATION,
    Member,
    PartitionRacks,
    StickyResult,
    assignable_topics,
)
from kafka_meta.negotiation.java_order import hash_map_order, string_hash
from kafka_meta.negotiation.rebalance_protocol import TopicPartition
from kafka_meta.negotiation.sticky_constrained import constrained_assign
from kafka_meta.negotiation.sticky_general import general_assign
from kafka_meta.negotiation.sticky_racks import StickyRacks


@dataclass
class Claims:
    """Each member's owned partitions once conflicting claims are settled, in subscription-map order."""

    order: list[Member]
    owned: dict[str, list[TopicPartition]] = field(default_factory=dict)
    contested: set[TopicPartition] = field(default_factory=set)
    max_generation: int = DEFAULT_GENERATION


def subscription_order(members: Sequence[Member]) -> list[Member]:
    """The members as the leader's ``HashMap`` of subscriptions (filled in JoinGroup order) iterates them."""
    by_id = {m.member_id: m for m in members}
    return [by_id[mid] for mid in hash_map_order([m.member_id for m in members], string_hash)]


def subscriptions_equal(members: Sequence[Member]) -> bool:
    """``allSubscriptionsEqual`` in subscription-map order: each subscription is compared with the first
    non-empty one (so members subscribing to nothing do not count as different, and are then given partitions
    by the constrained algorithm like everybody else)."""
    reference: frozenset[str] = frozenset()
    for m in subscription_order(members):
        if not reference:
            reference = m.topics
        elif m.topics != reference:
            return False
    return True


def settle_claims(topics: Mapping[str, int], members: Sequence[Member]) -> Claims:
    claims = Claims(subscription_order(members))
    owner: dict[TopicPartition, str] = {}
    claimed_generation = {m.member_id: m.generation_claimed for m in members}
    for m in claims.order:
        claims.max_generation = max(claims.max_generation, m.generation)
        mine: list[TopicPartition] = []
        claims.owned[m.member_id] = mine
        for tp in m.owned:
            if tp[0] not in topics:
                continue
            other = owner.get(tp)
            if other is None:
                mine.append(tp)
                owner[tp] = m.member_id
                continue
            other_generation = claimed_generation[other]
            if m.generation == other_generation:
                claims.contested.add(tp)
            elif m.generation > other_generation:
                mine.append(tp)
            else:
                continue
            if tp in claims.owned[other]:
                claims.owned[other].remove(tp)
            owner[tp] = m.member_id
    return claims


def _run(partitions_per_topic: Mapping[str, int], members: Sequence[Member], racks: PartitionRacks | None
         ) -> StickyResult:
    if not members:
        return StickyResult({}, {})
    topics = assignable_topics(partitions_per_topic, members)
    rack_info = StickyRacks(topics, members, racks)
    claims = settle_claims(topics, members)
    if subscriptions_equal(members):
        assignment, transferring = constrained_assign(topics, claims.order, claims.owned, claims.contested, rack_info)
        return StickyResult(assignment, transferring)
    return StickyResult(general_assign(topics, claims.order, claims.owned, claims.max_generation, rack_info), None)


def sticky_assign(partitions_per_topic: Mapping[str, int], members: Sequence[Member],
                  racks: PartitionRacks | None = None) -> StickyResult:
    """``StickyAssignor`` (EAGER). ``members`` in the order the leader received them (the JoinGroup response
    order), which decides ties inside one hash bucket of Java's map."""
    return _run(partitions_per_topic, members, racks)


def cooperative_sticky_assign(partitions_per_topic: Mapping[str, int], members: Sequence[Member],
                              racks: PartitionRacks | None = None) -> StickyResult:
    """``CooperativeStickyAssignor``: the sticky assignment without the partitions that change owner."""
    result = _run(partitions_per_topic, members, racks)
    transferring = result.transferring
    if transferring is None:
        transferring = _changing_owner(members, result.assignment)
    assignment = {m: list(parts) for m, parts in result.assignment.items()}
    for tp, consumer in transferring.items():
        if tp in assignment[consumer]:
            assignment[consumer].remove(tp)
    return StickyResult(assignment, transferring)


def _changing_owner(members: Sequence[Member], assignment: Mapping[str, list[TopicPartition]]
                    ) -> dict[TopicPartition, str]:
    """Partitions a member is given that it did not own while some member owned and loses them."""
    added: dict[TopicPartition, str] = {}
    revoked: set[TopicPartition] = set()
    owned_by = {m.member_id: m.owned for m in members}
    for consumer in hash_map_order(list(assignment), string_hash):
        owned = set(owned_by[consumer])
        assigned = assignment[consumer]
        for tp in assigned:
            if tp not in owned:
                added[tp] = consumer
        revoked.update(tp for tp in owned_by[consumer] if tp not in set(assigned))
    return {tp: c for tp, c in added.items() if tp in revoked}
