"""The broker's KIP-848 assignors (``group.consumer.assignors``): ``uniform`` and ``range``.

The coordinator runs them on the whole group (:class:`~kafka_meta.negotiation.server_group.GroupView`) and
they return every member's new target assignment.

* ``range`` ignores the current assignment. Members are ordered as the client ``RangeAssignor`` orders them
  (static members by instance id first, then by member id); per topic, each subscriber in that order takes
  the next contiguous range, the first ``partitions % subscribers`` one partition more.
* ``uniform``, when every member subscribes to the same topics: each member may keep ``P // N`` partitions,
  and ``P % N`` members one more; in member order, a member keeps what it has of subscribed topics up to its
  quota (topic by topic, partitions in the order of its set) and gives up the rest. A member takes an extra
  place only while enough members remain after it to fill the others. Partitions nobody holds (topics in the
  order of the first member's subscription set, then partition number), then those given up, go to the members
  still short, in member order.
* ``uniform`` with different subscriptions: :mod:`~kafka_meta.negotiation.server_uniform_balance`.

A topic a member subscribes to that the metadata does not know is skipped; what Kafka throws comes back as
:class:`~kafka_meta.negotiation.outcomes.AssignmentFailed` (``PartitionAssignorException``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence

from kafka_meta.negotiation.outcomes import AssignmentFailed, JavaFailure
from kafka_meta.negotiation.server_group import GroupView, ServerAssignment, ServerMember, ServerTopic
from kafka_meta.negotiation.server_uniform_balance import uniform_heterogeneous

SERVER_ASSIGNORS = ("uniform", "range")


def _failure(reason: str, raised_by: str) -> AssignmentFailed:
    return AssignmentFailed(JavaFailure("PartitionAssignorException", raised_by, reason))


def _result(view: GroupView, assignment: dict[str, dict[uuid.UUID, set[int]]]) -> ServerAssignment:
    return {m: {t: sorted(ps) for t, ps in assignment.get(m, {}).items() if ps} for m in view.members}


def uniform_assign(topics: Iterable[ServerTopic], members: Sequence[ServerMember]) -> ServerAssignment:
    """``UniformAssignor``."""
    view = GroupView(topics, members)
    if not members:
        return {}
    if not view.homogeneous:
        return _result(view, uniform_heterogeneous(view))
    return _result(view, _uniform_homogeneous(view))


def _uniform_homogeneous(view: GroupView) -> dict[str, dict[uuid.UUID, set[int]]]:
    subscribed = view.subscribed_id_set(view.member_ids[0])
    if not subscribed:
        return {}
    unassigned: list[tuple[uuid.UUID, int]] = []
    total = 0
    for tid in subscribed:
        count = view.partitions(tid)
        unassigned.extend((tid, p) for p in range(count) if not view.is_assigned(tid, p))
        total += count
    count = len(view.member_ids)
    min_quota, extra_left = divmod(total, count)
    target: dict[str, dict[uuid.UUID, set[int]]] = {}
    unfilled: list[tuple[str, int]] = []
    subscribed_set = set(subscribed)
    for index, member in enumerate(view.member_ids):
        quota = min_quota
        extra = extra_left > 0
        if extra:
            quota += 1
        kept: dict[uuid.UUID, set[int]] = {}
        for tid, partitions in view.assignment(member):
            if tid not in subscribed_set:
                continue
            if len(partitions) <= quota:
                quota -= len(partitions)
                kept[tid] = set(partitions)
                continue
            kept[tid] = set()
            for p in partitions:
                if quota > 0:
                    quota -= 1
                    kept[tid].add(p)
                else:
                    unassigned.append((tid, p))
        if quota > 0 and extra and count - index > extra_left:
            quota -= 1
            extra = False
        if quota > 0:
            unfilled.append((member, quota))
        if extra:
            extra_left -= 1
        target[member] = kept
    position = 0
    for member, quota in unfilled:
        for _ in range(quota):
            if position >= len(unassigned):
                break
            tid, p = unassigned[position]
            position += 1
            target[member].setdefault(tid, set()).add(p)
    if position < len(unassigned):
        raise _failure("Partitions were left unassigned", "UniformHomogeneousAssignmentBuilder")
    return target


def _instance_order(view: GroupView) -> list[str]:
    def key(member_id: str) -> tuple[bool, str]:
        instance = view.members[member_id].instance_id
        return instance is None, instance if instance is not None else member_id
    return sorted(view.member_ids, key=key)


def range_assign_server(topics: Iterable[ServerTopic], members: Sequence[ServerMember]) -> ServerAssignment:
    """The broker's ``RangeAssignor``."""
    view = GroupView(topics, members)
    if not members:
        return {}
    ordered = _instance_order(view)
    subscribers: dict[uuid.UUID, int] = {}
    if view.homogeneous:
        for tid in view.subscribed_ids(ordered[0]):
            subscribers[tid] = len(ordered)
    else:
        for member in ordered:
            for tid in view.subscribed_ids(member):
                subscribers[tid] = subscribers.get(tid, 0) + 1
    quotas = {tid: divmod(view.partitions(tid), n) for tid, n in subscribers.items()}
    next_start = dict.fromkeys(subscribers, 0)
    extra_left = {tid: q[1] for tid, q in quotas.items()}
    first_ids = view.subscribed_ids(ordered[0])
    target: dict[str, dict[uuid.UUID, set[int]]] = {}
    for member in ordered:
        mine: dict[uuid.UUID, set[int]] = {}
        for tid in (first_ids if view.homogeneous else view.subscribed_ids(member)):
            quota = quotas[tid][0]
            if extra_left[tid] > 0:
                quota += 1
                extra_left[tid] -= 1
            start = next_start[tid]
            end = min(start + quota, view.partitions(tid))
            next_start[tid] = end
            if start < end:
                mine[tid] = set(range(start, end))
        target[member] = mine
    return _result(view, target)
