"""The sticky assignors' algorithm for members that all subscribe to the same topics ("constrained").

With ``P`` partitions over ``N`` members every member ends with ``P // N`` (the minimum quota) or one more
(the maximum quota), and exactly ``P % N`` members get the maximum. In subscription-map order each member
keeps what it owned (minus contested partitions and, with racks, partitions with no replica on its rack),
sorted by partition number then topic: all of it when under the minimum quota, the maximum quota's worth
while maximum-quota places are left, else the minimum quota's worth; what it gives up may move to another
member. Members still below the minimum, and members at the minimum while maximum places are left, are then
filled, in member id order: with racks first from partitions on their own rack, then round-robin over the
remaining partitions (ordered by topic and partition, with racks those with fewest members on their racks
first). A partition that ends with a member other than the one that gave it up, or that was contested, is
*transferring ownership*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kafka_meta.negotiation.assignor_facts import Member
from kafka_meta.negotiation.java_order import JavaOrderError
from kafka_meta.negotiation.outcomes import AssignmentFailed, JavaFailure
from kafka_meta.negotiation.rebalance_protocol import TopicPartition
from kafka_meta.negotiation.sticky_racks import StickyRacks

RAISED_BY = "AbstractStickyAssignor.ConstrainedAssignmentBuilder"


def _illegal_state(reason: str) -> AssignmentFailed:
    return AssignmentFailed(JavaFailure("IllegalStateException", RAISED_BY, reason))


class _Builder:
    def __init__(self, topics: Mapping[str, int], members: Sequence[Member], owned: Mapping[str, list[TopicPartition]],
                 contested: set[TopicPartition], racks: StickyRacks) -> None:
        self.topics = topics
        self.members = members
        self.owned = owned
        self.contested = contested
        self.racks = racks
        total = sum(topics.values())
        count = len(members)
        self.min_quota, self.max_quota = total // count, -(-total // count)
        self.expected_over = total % count
        self.over = 0
        self.assignment: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
        self.maybe_revoked: dict[TopicPartition, str] = {}
        self.under_min: list[str] = []
        self.exactly_min: list[str] = []
        self.assigned: list[TopicPartition] = []
        self.transferring: dict[TopicPartition, str] = {}

    def keep_owned(self) -> None:
        for m in self.members:
            consumer = m.member_id
            mine = []
            for tp in self.owned[consumer]:
                if self.racks.mismatch(consumer, tp):
                    self.maybe_revoked[tp] = consumer
                else:
                    mine.append(tp)
            mine.sort(key=lambda tp: (tp[1], tp[0]))
            for tp in self.contested:
                if tp in mine:
                    mine.remove(tp)
            kept = self.assignment[consumer]
            if len(mine) < self.min_quota:
                kept.extend(mine)
                self.assigned.extend(mine)
                self.under_min.append(consumer)
                continue
            if len(mine) >= self.max_quota and self.over < self.expected_over:
                self.over += 1
                if self.over == self.expected_over:
                    self.exactly_min.clear()
                quota = self.max_quota
            else:
                quota = self.min_quota
                if self.over < self.expected_over:
                    self.exactly_min.append(consumer)
            kept.extend(mine[:quota])
            self.assigned.extend(mine[:quota])
            for tp in mine[quota:]:
                self.maybe_revoked[tp] = consumer

    def unassigned(self) -> list[TopicPartition]:
        taken = set(self.assigned)
        return [(t, p) for t in sorted(self.topics) for p in range(self.topics[t]) if (t, p) not in taken]

    def give(self, tp: TopicPartition, consumer: str) -> int:
        mine = self.assignment[consumer]
        mine.append(tp)
        previous = self.maybe_revoked.get(tp)
        if (previous is not None and previous != consumer) or tp in self.contested:
            self.transferring[tp] = consumer
        return len(mine)

    def deal_on_racks(self, unassigned: list[TopicPartition]) -> list[TopicPartition]:
        if not self.racks.consumer_racks:
            return unassigned
        left = []
        next_index = 0
        for tp in unassigned:
            consumer = None
            index = self.racks.next_on_rack(tp, self.under_min, next_index)
            if index >= 0:
                consumer = self.under_min[index]
                count = len(self.assignment[consumer]) + 1
                if count >= self.min_quota:
                    self.under_min.remove(consumer)
                    if count < self.max_quota and self.over < self.expected_over:
                        self.exactly_min.append(consumer)
                else:
                    index += 1
                next_index = index % len(self.under_min) if self.under_min else 0
            elif self.exactly_min:
                first = self.racks.next_on_rack(tp, self.exactly_min, 0)
                if first >= 0:
                    consumer = self.exactly_min[first]
                    if len(self.assignment[consumer]) + 1 == self.max_quota:
                        del self.exactly_min[first]
                        self.over += 1
                        if self.over == self.expected_over:
                            self.exactly_min.clear()
            if consumer is None:
                left.append(tp)
            else:
                self.give(tp, consumer)
        return left

    def deal_round_robin(self, unassigned: list[TopicPartition]) -> None:
        # a Java iterator over the under-quota list: ``position`` is the next index, ``last`` the last returned
        position, last = 0, -1
        for tp in unassigned:
            if position < len(self.under_min):
                consumer = self.under_min[position]
                last, position = position, position + 1
            elif not self.under_min and not self.exactly_min:
                raise _illegal_state("No more unfilled consumers to be assigned.")
            elif not self.under_min:
                consumer = self.exactly_min.pop(0)
            else:
                consumer = self.under_min[0]
                last, position = 0, 1
            count = self.give(tp, consumer)
            if count == self.min_quota:
                if last < 0:
                    raise JavaOrderError("an iterator removal Java would refuse")
                del self.under_min[last]
                position, last = last, -1
                self.exactly_min.append(consumer)
            elif count == self.max_quota:
                self.over += 1

    def verify(self) -> None:
        if not self.under_min:
            return
        if self.over != self.expected_over:
            raise _illegal_state("We haven't reached the expected number of members with more than the minQuota "
                                 "partitions, but no more partitions to be assigned")
        for consumer in self.under_min:
            if len(self.assignment[consumer]) != self.min_quota:
                raise _illegal_state(f"Consumer: [{consumer}] doesn't reach minQuota partitions, and no more "
                                     "partitions to be assigned")


def constrained_assign(topics: Mapping[str, int], members: Sequence[Member], owned: Mapping[str, list[TopicPartition]],
                       contested: set[TopicPartition], racks: StickyRacks
                       ) -> tuple[dict[str, list[TopicPartition]], dict[TopicPartition, str]]:
    """The assignment and the partitions transferring ownership; ``members`` in subscription-map order."""
    builder = _Builder(topics, members, owned, contested, racks)
    builder.keep_owned()
    unassigned = builder.unassigned()
    builder.under_min.sort()
    builder.exactly_min.sort()
    unassigned = racks.by_rack_consumers(unassigned)
    unassigned = builder.deal_on_racks(unassigned)
    builder.deal_round_robin(unassigned)
    builder.verify()
    return builder.assignment, builder.transferring
