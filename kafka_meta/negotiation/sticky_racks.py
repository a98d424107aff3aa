"""What the sticky assignors know of racks (``AbstractStickyAssignor.RackInfo``).

Rack awareness is on when some member's rack holds replicas and not every partition has replicas on every
rack. Then a member may not keep an owned partition with no replica on its rack, new partitions go to
members on a replica's rack first, and partitions with few members on their racks are placed first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kafka_meta.negotiation.assignor_facts import Member, PartitionRacks, replica_racks, use_rack_aware
from kafka_meta.negotiation.rebalance_protocol import TopicPartition


class StickyRacks:
    def __init__(self, topics: Mapping[str, int], members: Sequence[Member], racks: PartitionRacks | None) -> None:
        by_rack: dict[str, list[str]] = {}
        for m in members:
            if m.rack_id:
                by_rack.setdefault(m.rack_id, []).append(m.member_id)
        partition_racks: dict[TopicPartition, frozenset[str]] = {}
        if by_rack:
            partition_racks = {(t, p): replica_racks(racks, (t, p)) for t, n in topics.items() for p in range(n)}
        all_racks = set().union(*partition_racks.values()) if partition_racks else set()
        aware = use_rack_aware(set(by_rack), all_racks, partition_racks)
        self.consumer_racks: dict[str, str] = (
            {c: rack for rack, consumers in by_rack.items() for c in consumers} if aware else {})
        self.partition_racks: dict[TopicPartition, frozenset[str]] = partition_racks if aware else {}
        # counted whenever members have racks, even when rack awareness stays off
        self.consumers_on_racks = {tp: sum(len(by_rack.get(r, ())) for r in rs) for tp, rs in partition_racks.items()}

    def mismatch(self, consumer: str, tp: TopicPartition) -> bool:
        """The member has a rack and the partition has no replica on it."""
        rack = self.consumer_racks.get(consumer)
        return rack is not None and rack not in self.partition_racks.get(tp, frozenset())

    def by_rack_consumers(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        """Partitions with fewer members on their replicas' racks first (a stable sort)."""
        if not self.consumers_on_racks:
            return partitions
        return sorted(partitions, key=lambda tp: self.consumers_on_racks.get(tp, 0))

    def next_on_rack(self, tp: TopicPartition, consumers: list[str], first: int) -> int:
        """The index of the first of ``consumers`` from ``first`` on (wrapping) on a rack of ``tp``, or -1."""
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        for i in range(len(consumers)):
            index = (first + i) % len(consumers)
            if self.consumer_racks.get(consumers[index]) in racks:
                return index
        return -1
