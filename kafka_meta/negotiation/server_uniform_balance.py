"""The broker's ``uniform`` assignor for members with different subscriptions.

1. Every member keeps what it holds of topics it still subscribes to (however much that is).
2. Topics are taken in order of most partitions per subscriber first (then fewer subscribers, then topic
   id); each partition nobody holds goes to the subscriber with the fewest partitions overall (ties: the
   member listed first), the members cycling through each load level in turn.
3. Balancing, over the topics with at least two subscribers in the same order: within one topic, while its
   most and least loaded subscribers differ by more than one partition, the most loaded subscriber gives its
   highest-numbered partition of that topic to the least loaded one (a subscriber holding none of the topic
   is passed over). The topics are revisited, at most 16 rounds, until a full round moves nothing.
"""

from __future__ import annotations

import uuid

from kafka_meta.negotiation.java_order import uuid_order
from kafka_meta.negotiation.outcomes import AssignmentFailed, JavaFailure
from kafka_meta.negotiation.server_group import GroupView

MAX_ROUNDS = 16


class _Balancer:
    """``MemberAssignmentBalancer``: walks one topic's subscribers from least and from most loaded."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.members: list[int] = []

    def initialize(self, members: list[int]) -> int:
        if not members:
            raise AssignmentFailed(JavaFailure("IllegalArgumentException", "UniformHeterogeneousAssignmentBuilder",
                                               "Cannot balance an empty subscriber list."))
        self.members = sorted(members, key=lambda i: (self.sizes[i], i))
        self.least_end = 0
        self.least_count = self.sizes[self.members[0]] - 1
        self.next_least = 0
        self.most_start = len(self.members)
        self.most_end = len(self.members)
        self.most_count = self.sizes[self.members[-1]] + 1
        self.next_most = len(self.members) - 1
        return self.sizes[self.members[-1]] - self.sizes[self.members[0]]

    def least_loaded(self) -> int:
        if self.next_least >= self.least_end:
            self.least_count += 1
            while self.least_end < len(self.members) and self.sizes[self.members[self.least_end]] == self.least_count:
                self.least_end += 1
            self.next_least = 0
        member = self.members[self.next_least]
        self.next_least += 1
        return member

    def most_loaded(self) -> int:
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = self.sizes[self.members[self.most_start - 1]]
            else:
                self.most_count -= 1
            while self.most_start > 0 and self.sizes[self.members[self.most_start - 1]] == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = self.members[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        i, last = self.next_most + 1, self.most_end - 1
        self.members[i], self.members[last] = self.members[last], self.members[i]
        self.most_end -= 1

    def balanced(self) -> bool:
        return self.most_count - self.least_count <= 1


class _Builder:
    def __init__(self, view: GroupView) -> None:
        self.view = view
        self.members = list(view.member_ids)
        self.index = {m: i for i, m in enumerate(self.members)}
        self.subscribers: dict[uuid.UUID, list[int]] = {}
        self.subscribed: set[uuid.UUID] = set()
        for i, member in enumerate(self.members):
            for tid in view.subscribed_ids(member):
                self.subscribed.add(tid)
                self.subscribers.setdefault(tid, []).append(i)
        self.sizes = [0] * len(self.members)
        self.owners = {tid: [-1] * view.partitions(tid) for tid in self.subscribed}
        self.target: dict[str, dict[uuid.UUID, set[int]]] = {}

    def topic_key(self, tid: uuid.UUID) -> tuple[float, int, tuple[int, int]]:
        per_subscriber = self.view.partitions(tid) / len(self.subscribers[tid])
        return -per_subscriber, len(self.subscribers[tid]), uuid_order(tid)

    def keep_subscribed(self) -> None:
        for member in self.members:
            i = self.index[member]
            subscribed = set(self.view.subscribed_ids(member))
            kept: dict[uuid.UUID, set[int]] = {}
            for tid, partitions in self.view.assignment(member):
                if tid not in subscribed:
                    continue
                kept[tid] = set(partitions)
                self.sizes[i] += len(partitions)
                for p in partitions:
                    self.owners[tid][p] = i
            self.target[member] = kept

    def place(self, tid: uuid.UUID, partition: int, i: int) -> None:
        old = self.owners[tid][partition]
        if old != -1:
            parts = self.target[self.members[old]].get(tid)
            if parts is not None:
                parts.discard(partition)
            self.sizes[old] -= 1
        self.target[self.members[i]].setdefault(tid, set()).add(partition)
        self.owners[tid][partition] = i
        self.sizes[i] += 1

    def assign_unheld(self) -> None:
        unheld = {tid: [p for p, o in enumerate(self.owners[tid]) if o == -1] for tid in self.subscribed}
        balancer = _Balancer(self.sizes)
        for tid in sorted((t for t, ps in unheld.items() if ps), key=self.topic_key):
            balancer.initialize(self.subscribers[tid])
            for p in unheld[tid]:
                self.place(tid, p, balancer.least_loaded())

    def balance_topic(self, tid: uuid.UUID, balancer: _Balancer) -> int:
        moved = 0
        owners = self.owners[tid]
        if balancer.initialize(self.subscribers[tid]) <= 1:
            return moved
        partitions = sorted(range(len(owners)), key=lambda p: (owners[p], p))
        start: dict[int, int] = {}
        end: dict[int, int] = {}
        for i, p in enumerate(partitions):
            start.setdefault(owners[p], i)
            end[owners[p]] = i + 1
        while not balancer.balanced():
            while True:
                most = balancer.most_loaded()
                if most == -1:
                    return moved
                if most in end and end[most] - start[most] > 0:
                    partition = partitions[end[most] - 1]
                    end[most] -= 1
                    least = balancer.least_loaded()
                    if balancer.balanced():
                        return moved
                    self.place(tid, partition, least)
                    moved += 1
                    break
                balancer.exclude_most_loaded()
        return moved

    def balance(self) -> None:
        topics = sorted((t for t in self.subscribed if len(self.subscribers[t]) >= 2), key=self.topic_key)
        if not topics:
            return
        balancer = _Balancer(self.sizes)
        last = -1
        for _ in range(MAX_ROUNDS):
            for i, tid in enumerate(topics):
                if i == last:
                    return
                if self.balance_topic(tid, balancer) > 0 or last == -1:
                    last = i


def uniform_heterogeneous(view: GroupView) -> dict[str, dict[uuid.UUID, set[int]]]:
    builder = _Builder(view)
    if not builder.subscribed:
        return {}
    builder.keep_subscribed()
    builder.assign_unheld()
    builder.balance()
    return builder.target
