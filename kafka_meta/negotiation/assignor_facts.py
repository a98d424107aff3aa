"""The facts Kafka's consumer assignors read: members' subscriptions, and the topics as the leader's metadata
shows them (partition counts and the racks of each partition's replicas).

The leader's ``AbstractPartitionAssignor.assign`` keeps only the subscribed topics that exist and have
partitions (:func:`assignable_topics`); everything else an assignor sees (owned partitions of a deleted
topic, a subscription to a topic not created yet) is filtered against that set.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from kafka_meta.negotiation.rebalance_protocol import TopicPartition

DEFAULT_GENERATION = -1

PartitionRacks = Mapping[TopicPartition, Collection[str]]
"""The racks of the brokers holding each partition's replicas (a partition missing here has none)."""


@dataclass(frozen=True)
class Member:
    """What an assignor reads from one member's subscription.

    ``owned`` and ``generation`` are what the assignor takes as the member's previous assignment and its
    generation: ``ownedPartitions`` and the subscription's generation for the cooperative assignors, the user
    data for ``StickyAssignor`` (-1 when there is none). When two members claim one partition the sticky
    assignors compare the generation *in the subscription* of the member that claimed it first
    (``claim_generation``; None: the same as ``generation``, as with consumer protocol v2+ and
    cooperative-sticky; -1 for a subscription without one). ``rack`` is ``client.rack`` (empty means none).
    """

    member_id: str
    topics: frozenset[str]
    owned: tuple[TopicPartition, ...] = ()
    generation: int = DEFAULT_GENERATION
    instance_id: str | None = None
    rack: str | None = None
    claim_generation: int | None = None

    @property
    def rack_id(self) -> str | None:
        """The rack the assignors use: none for an empty ``client.rack``."""
        return self.rack or None

    @property
    def generation_claimed(self) -> int:
        return self.generation if self.claim_generation is None else self.claim_generation


@dataclass(frozen=True)
class StickyResult:
    """A sticky assignment and ``partitionsTransferringOwnership`` (partition -> its new owner while another
    member still owns it); the latter is None where Kafka leaves it null (eager sticky, unequal subscriptions)."""

    assignment: dict[str, list[TopicPartition]]
    transferring: dict[TopicPartition, str] | None


def member_order(members: Iterable[Member]) -> list[Member]:
    """``MemberInfo.compareTo``: static members (by instance id) before dynamic ones (by member id)."""
    return sorted(members, key=lambda m: (m.instance_id is None, m.instance_id or m.member_id))


def assignable_topics(partitions_per_topic: Mapping[str, int], members: Sequence[Member]) -> dict[str, int]:
    """The topics an assignor works on: subscribed by someone, known to the metadata, with partitions."""
    subscribed = set().union(*(m.topics for m in members)) if members else set()
    return {t: n for t, n in partitions_per_topic.items() if t in subscribed and n > 0}


def replica_racks(racks: PartitionRacks | None, tp: TopicPartition) -> frozenset[str]:
    if racks is None:
        return frozenset()
    return frozenset(r for r in racks.get(tp, ()) if r is not None)


def use_rack_aware(consumer_racks: Collection[str], all_partition_racks: Collection[str],
                   racks_per_partition: Mapping[TopicPartition, frozenset[str]]) -> bool:
    """``AbstractPartitionAssignor.useRackAwareAssignment``: only when some consumer's rack holds replicas,
    and not every partition has replicas on every rack (then every placement would be as good)."""
    if not consumer_racks or not set(consumer_racks) & set(all_partition_racks):
        return False
    everywhere = frozenset(all_partition_racks)
    return not all(r == everywhere for r in racks_per_partition.values())
