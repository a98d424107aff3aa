"""The sticky assignors' algorithm for members with different subscriptions ("general").

1. Members keep what they owned of topics they still subscribe to (with racks: on their rack); if anything
   was dropped because a member no longer subscribes to its topic, a revocation is required.
2. Partitions owned by members of an older generation than the newest one are remembered with that owner
   (the newest generation that claimed them), as *previous* owners.
3. The rest, topics with the fewest subscribers first, each go to the least loaded subscribed member (fewest
   partitions, then member id; with racks, first to a member on one of the partition's racks).
4. Topics with a single subscriber, and members that cannot gain or lose anything, are set aside.
5. Balancing: while some member holds two more partitions than a member that could take one of them, walk
   the partitions and move one: back to its previous owner when the current owner holds two more than it,
   else to the least loaded subscribed member. A move that would undo an earlier move between the same two
   members of the same topic moves that earlier partition back instead (which partition Java picks follows
   its ``HashSet`` order, reproduced here). First over the unassigned partitions (unless a revocation is
   required), then over all of them; if the moves did not improve the balance score (the sum of the
   pairwise differences of assignment sizes) the assignment from before balancing is kept.

Kafka's balancing does not end on some groups: a partition goes back to its previous owner and the move is
undone, pass after pass. A pass depends only on who owns what and on the movement bookkeeping, so when a pass
starts from the same state as an earlier pass the loop can never end; :class:`AssignmentNeverEnds` is raised
then, and only then (every run that ends gives what it gave without the check).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from kafka_meta.negotiation.assignor_facts import Member
from kafka_meta.negotiation.java_order import JavaHashSet, topic_partition_hash
from kafka_meta.negotiation.outcomes import AssignmentFailed, AssignmentNeverEnds, JavaFailure
from kafka_meta.negotiation.rebalance_protocol import TopicPartition
from kafka_meta.negotiation.sticky_racks import StickyRacks

Pair = tuple[str, str]   # (from member, to member)
RAISED_BY = "AbstractStickyAssignor.GeneralAssignmentBuilder"


def _partition_hash(tp: TopicPartition) -> int:
    return topic_partition_hash(tp[0], tp[1])


class Movements:
    """``PartitionMovements``: which partitions moved between which two members, per topic."""

    def __init__(self) -> None:
        self.by_topic: dict[str, dict[Pair, JavaHashSet[TopicPartition]]] = {}
        self.moved: dict[TopicPartition, Pair] = {}

    def _forget(self, tp: TopicPartition) -> Pair:
        pair = self.moved.pop(tp)
        pairs = self.by_topic[tp[0]]
        pairs[pair].remove(tp)
        if not len(pairs[pair]):
            del pairs[pair]
        if not pairs:
            del self.by_topic[tp[0]]
        return pair

    def _record(self, tp: TopicPartition, pair: Pair) -> None:
        self.moved[tp] = pair
        pairs = self.by_topic.setdefault(tp[0], {})
        if pair not in pairs:
            pairs[pair] = JavaHashSet(_partition_hash)
        pairs[pair].add(tp)

    def move(self, tp: TopicPartition, old: str, new: str) -> None:
        if tp in self.moved:
            source = self._forget(tp)[0]
            if source != new:
                self._record(tp, (source, new))
        else:
            self._record(tp, (old, new))

    def actual_partition(self, tp: TopicPartition, old: str, new: str) -> TopicPartition:
        pairs = self.by_topic.get(tp[0])
        if pairs is None:
            return tp
        if tp in self.moved:
            old = self.moved[tp][0]
        reverse = pairs.get((new, old))
        return tp if reverse is None else next(iter(reverse))

    def state(self) -> Hashable:
        """Everything later moves read: per topic and pair of members, the moved partitions with their
        ``HashSet``'s table (its order decides which one a reversed move takes). ``moved`` follows from it."""
        return tuple(sorted((topic, tuple(sorted((pair, moved.table()) for pair, moved in pairs.items())))
                            for topic, pairs in self.by_topic.items()))


class _Builder:
    def __init__(self, topics: Mapping[str, int], members: Sequence[Member], owned: Mapping[str, list[TopicPartition]],
                 max_generation: int, racks: StickyRacks) -> None:
        self.topics = topics
        self.members = members
        self.racks = racks
        self.max_generation = max_generation
        self.subscribers: dict[str, list[str]] = {t: [] for t in topics}
        self.subscribed: dict[str, list[str]] = {}
        for m in members:
            mine = [t for t in sorted(m.topics) if t in topics]
            self.subscribed[m.member_id] = mine
            for t in mine:
                self.subscribers[t].append(m.member_id)
        self.assignment: dict[str, list[TopicPartition]] = {m.member_id: list(owned[m.member_id]) for m in members}
        self.owner: dict[TopicPartition, str] = {tp: c for c, parts in self.assignment.items() for tp in parts}
        self.sorted_topics = sorted(topics, key=lambda t: (len(self.subscribers[t]), t))
        self.all_partitions = [(t, p) for t in self.sorted_topics for p in range(topics[t])]
        self.in_order: set[str] = set()    # the members of Java's TreeSet, ordered on demand by (size, id)
        self.movements = Movements()
        self.revocation_required = False
        self.total = sum(topics.values())

    # -- the TreeSet of members by assignment size -------------------------------------------------------------
    def ordered(self) -> list[str]:
        return sorted(self.in_order, key=lambda c: (len(self.assignment[c]), c))

    def size(self, consumer: str) -> int:
        parts = self.assignment.get(consumer)
        if parts is None:
            raise AssignmentFailed(JavaFailure("NullPointerException", RAISED_BY,
                                               f"member {consumer} was set aside before balancing"))
        return len(parts)

    # -- steps -------------------------------------------------------------------------------------------------
    def previous_owners(self) -> dict[TopicPartition, tuple[str, int]]:
        previous: dict[TopicPartition, tuple[str, int]] = {}
        for m in self.members:
            if m.generation < self.max_generation:   # an absent generation counts as -1
                for tp in m.owned:
                    if tp not in previous or m.generation > previous[tp][1]:
                        previous[tp] = (m.member_id, m.generation)
        return previous

    def keep_owned(self) -> list[TopicPartition]:
        kept = []
        for m in self.members:
            consumer = m.member_id
            keep = []
            for tp in self.assignment[consumer]:
                if tp[0] not in self.topics:
                    self.owner.pop(tp, None)
                elif tp[0] in m.topics and not self.racks.mismatch(consumer, tp):
                    keep.append(tp)
                    kept.append(tp)
                else:
                    self.revocation_required = True
            self.assignment[consumer] = keep
        return kept

    def max_size(self, consumer: str) -> int:
        topics = self.subscribed[consumer]
        if len(topics) == len(self.topics):
            return self.total
        return sum(self.topics[t] for t in topics)

    def assign_to_least_loaded(self, tp: TopicPartition, check_racks: bool) -> bool:
        for consumer in self.ordered():
            if tp[0] in self.subscribed[consumer] and not (check_racks and self.racks.mismatch(consumer, tp)):
                self.in_order.discard(consumer)
                self.assignment[consumer].append(tp)
                self.owner[tp] = consumer
                self.in_order.add(consumer)
                return True
        return False

    def can_take_part(self, consumer: str) -> bool:
        parts = self.assignment[consumer]
        if len(parts) < self.max_size(consumer):
            return True
        return any(len(self.subscribers[tp[0]]) >= 2 for tp in parts)

    def is_balanced(self) -> bool:
        ordered = self.ordered()
        if len(self.assignment[ordered[0]]) >= len(self.assignment[ordered[-1]]) - 1:
            return True
        fullest: dict[str, int] = {}
        for parts in self.assignment.values():
            for tp in parts:
                fullest[tp[0]] = max(fullest.get(tp[0], 0), len(parts))
        for consumer in ordered:
            count = len(self.assignment[consumer])
            if count == self.max_size(consumer):
                continue
            if any(fullest.get(t, 0) > count + 1 for t in self.subscribed[consumer]):
                return False
        return True

    def balance_score(self) -> int:
        sizes = [len(parts) for parts in self.assignment.values()]
        return sum(abs(a - b) for i, a in enumerate(sizes) for b in sizes[i + 1:])

    def move(self, tp: TopicPartition, new: str) -> None:
        actual = self.movements.actual_partition(tp, self.owner[tp], new)
        old = self.owner[actual]
        self.in_order.discard(old)
        self.in_order.discard(new)
        self.movements.move(actual, old, new)
        self.assignment[old].remove(actual)
        self.assignment[new].append(actual)
        self.owner[actual] = new
        self.in_order.add(new)
        self.in_order.add(old)

    def move_to_least_loaded(self, tp: TopicPartition) -> None:
        new = next(c for c in self.ordered() if tp[0] in self.subscribed[c])
        self.move(tp, new)

    def pass_state(self) -> Hashable:
        """What a balancing pass reads and changes: each partition's owner (which fixes every member's
        assignment as a set; the order inside a member's list is never read while balancing) and the movement
        bookkeeping. The rest it reads (subscriptions, racks, previous owners, which members take part) stays
        the same throughout."""
        return tuple(self.owner.get(tp) for tp in self.all_partitions), self.movements.state()

    def reassign(self, partitions: list[TopicPartition], previous: Mapping[TopicPartition, tuple[str, int]]) -> bool:
        """Kafka's ``while (modified)`` loop over ``partitions``. A pass is a function of :meth:`pass_state`, so a
        pass starting where an earlier one started means the loop repeats forever: raise instead of looping."""
        performed = False
        modified = True
        seen: set[Hashable] = set()
        while modified:
            self._stop_if_seen(seen)
            modified = False
            for tp in partitions:
                if self.is_balanced():
                    break
                consumer = self.owner[tp]
                before = previous.get(tp)
                if before is not None and self.size(consumer) > self.size(before[0]) + 1:
                    self.move(tp, before[0])
                    performed = modified = True
                    continue
                if self._move_within_rack(tp, consumer) or self._move_anywhere(tp, consumer):
                    performed = modified = True
        return performed

    def _stop_if_seen(self, seen: set[Hashable]) -> None:
        state = self.pass_state()
        if state in seen:
            raise AssignmentNeverEnds(len(self.members), self.total)
        seen.add(state)

    def _move_within_rack(self, tp: TopicPartition, consumer: str) -> bool:
        rack = self.racks.consumer_racks.get(consumer)
        racks = self.racks.partition_racks.get(tp)
        if rack is None or not racks or rack not in racks:
            return False
        for other in self.subscribers[tp[0]]:
            other_rack = self.racks.consumer_racks.get(other)
            if other_rack is not None and other_rack in racks and self.size(consumer) > self.size(other) + 1:
                self.move_to_least_loaded(tp)
                return True
        return False

    def _move_anywhere(self, tp: TopicPartition, consumer: str) -> bool:
        for other in self.subscribers[tp[0]]:
            if self.size(consumer) > self.size(other) + 1:
                self.move_to_least_loaded(tp)
                return True
        return False

    def balance(self, previous: Mapping[TopicPartition, tuple[str, int]], unassigned: list[TopicPartition]) -> None:
        initializing = not self.assignment[self.ordered()[-1]]
        if self.racks.consumer_racks:
            unassigned_left = [tp for tp in unassigned if not (self.subscribers[tp[0]]
                                                                and self.assign_to_least_loaded(tp, True))]
        else:
            unassigned_left = unassigned
        for tp in unassigned_left:
            if self.subscribers[tp[0]]:
                self.assign_to_least_loaded(tp, False)
        fixed_topics = {t for t in self.topics if len(self.subscribers[t]) < 2}
        reassignable = [tp for tp in self.all_partitions if tp[0] not in fixed_topics]
        unassigned = [tp for tp in unassigned if tp[0] not in fixed_topics]
        set_aside: dict[str, list[TopicPartition]] = {}
        for consumer in list(self.subscribed):
            if not self.can_take_part(consumer):
                self.in_order.discard(consumer)
                set_aside[consumer] = self.assignment.pop(consumer)
        before = {c: list(parts) for c, parts in self.assignment.items()}
        before_owner = dict(self.owner)
        if not self.revocation_required:
            self.reassign(unassigned, previous)
        performed = self.reassign(reassignable, previous)
        if not initializing and performed and self.balance_score() >= _score(before):
            self.assignment = before
            self.owner = before_owner
        self.assignment.update(set_aside)


def _score(assignment: Mapping[str, list[TopicPartition]]) -> int:
    sizes = [len(parts) for parts in assignment.values()]
    return sum(abs(a - b) for i, a in enumerate(sizes) for b in sizes[i + 1:])


def general_assign(topics: Mapping[str, int], members: Sequence[Member], owned: Mapping[str, list[TopicPartition]],
                   max_generation: int, racks: StickyRacks) -> dict[str, list[TopicPartition]]:
    """``members`` in subscription-map order; ``owned`` as settled between conflicting claims."""
    builder = _Builder(topics, members, owned, max_generation, racks)
    previous = builder.previous_owners()
    kept = set(builder.keep_owned())
    unassigned = [tp for tp in builder.all_partitions if tp not in kept]
    builder.in_order.update(builder.assignment)
    builder.balance(previous, unassigned)
    return {m.member_id: builder.assignment[m.member_id] for m in members}
