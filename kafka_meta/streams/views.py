"""What Kafka Streams makes of its rebalance metadata, in a form a person can read.

The decoded messages keep the wire's structure and order (so they re-encode byte for byte); the views
here say what Java's ``SubscriptionInfo`` / ``AssignmentInfo`` accessors would say: task ids as
``TaskId.toString()`` prints them (``"0_1"``, ``"orders__0_1"``), partitions as ``"topic-3"``, v1-v6 task
lists and v7+ offset sums mapped onto each other, error codes by name. :func:`active_task_partitions`
pairs a member's active tasks with the partitions its consumer-protocol assignment gave it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafka_meta.errors import KafkaMetaError
from kafka_meta.models.base import KafkaModel
from kafka_meta.streams.protocol import (
    LATEST_OFFSET,
    MIN_NAMED_TOPOLOGY_VERSION,
    MIN_OFFSET_SUM_VERSION,
    UNKNOWN_OFFSET_SUM,
    assignor_error_name,
)
from kafka_meta.streams.task_id import task_id_text, topic_partition_text
from kafka_meta.wire.runtime import java_utf8


class StreamsAssignmentError(KafkaMetaError, ValueError):
    """An assignment Kafka Streams cannot use (e.g. active tasks and assigned partitions do not pair up)."""


class TaskOffset(KafkaModel):
    task: str
    offset_sum: int


class SubscriptionView(KafkaModel):
    """A subscription as Kafka Streams' ``SubscriptionInfo`` accessors report it."""

    process_id: str
    user_end_point: str | None
    task_offset_sums: list[TaskOffset]
    prev_tasks: list[str]
    standby_tasks: list[str]
    client_tags: dict[str, str]
    error: str


class StandbyTaskView(KafkaModel):
    task: str
    partitions: list[str]


class HostView(KafkaModel):
    host: str
    partitions: list[str]


class AssignmentView(KafkaModel):
    """An assignment as Kafka Streams' ``AssignmentInfo`` accessors report it (wire order kept)."""

    active_tasks: list[str]
    standby_tasks: list[StandbyTaskView]
    partitions_by_host: list[HostView]
    standby_partitions_by_host: list[HostView]
    error: str


class ActiveTaskPartition(KafkaModel):
    """One assigned partition and the active task that processes it."""

    task: str
    topic: str
    partition: int


def task_text(task: Any) -> str:
    """A task struct of either message (``topic_group_id``, ``partition``, maybe ``named_topology``)."""
    return task_id_text(task.topic_group_id, task.partition, getattr(task, "named_topology", None))


def _utf8(data: bytes) -> str:
    return java_utf8(data)  # as Java's new String(bytes, UTF_8): invalid bytes as U+FFFD, cut as Java cuts them


def task_offset_sums(message: Any) -> list[TaskOffset]:
    """``SubscriptionInfo.taskOffsetSums()`` in wire order; v1-v6 task lists map to -2 (active) and -3."""
    version = message.version if message.version is not None else message.newest_version
    if version < MIN_OFFSET_SUM_VERSION:
        return ([TaskOffset(task=task_text(t), offset_sum=LATEST_OFFSET) for t in message.prev_tasks]
                + [TaskOffset(task=task_text(t), offset_sum=UNKNOWN_OFFSET_SUM) for t in message.standby_tasks])
    out = []
    for entry in message.task_offset_sums:
        if version >= MIN_NAMED_TOPOLOGY_VERSION:
            text = task_id_text(entry.topic_group_id, entry.partition, entry.named_topology)
            out.append(TaskOffset(task=text, offset_sum=entry.offset_sum))
        else:
            out += [TaskOffset(task=task_id_text(entry.topic_group_id, p.partition), offset_sum=p.offset_sum)
                    for p in entry.partition_to_offset_sum]
    return out


def subscription_view(message: Any) -> SubscriptionView:
    sums = task_offset_sums(message)
    return SubscriptionView(
        process_id=str(message.process_id),
        user_end_point=_utf8(message.user_end_point) or None,
        task_offset_sums=sums,
        prev_tasks=[s.task for s in sums if s.offset_sum == LATEST_OFFSET],
        standby_tasks=[s.task for s in sums if s.offset_sum != LATEST_OFFSET],
        client_tags={_utf8(t.key): _utf8(t.value) for t in message.client_tags},
        error=assignor_error_name(message.error_code),
    )


def _partitions(partitions: Iterable[Any]) -> list[str]:
    return [topic_partition_text(p.topic, p.partition) for p in partitions]


def _hosts(hosts: Iterable[Any]) -> list[HostView]:
    return [HostView(host=f"{h.host}:{h.port}", partitions=_partitions(h.partitions)) for h in hosts]


def assignment_view(message: Any) -> AssignmentView:
    return AssignmentView(
        active_tasks=[task_text(t) for t in message.active_tasks],
        standby_tasks=[StandbyTaskView(task=task_text(s.task), partitions=_partitions(s.partitions))
                       for s in message.standby_tasks],
        partitions_by_host=_hosts(message.partitions_by_host),
        standby_partitions_by_host=_hosts(message.standby_partitions_by_host),
        error=assignor_error_name(message.err_code),
    )


def _assigned_pairs(assigned: Any) -> list[tuple[str, int]]:
    view = getattr(assigned, "client_view", None)  # a decoded ConsumerProtocolAssignment
    items = view.partitions if view is not None else assigned
    pairs = []
    for item in items:
        if isinstance(item, (tuple, list)):
            topic, partition = item
        else:
            topic, partition = item.topic, item.partition
        pairs.append((topic, partition))
    return pairs


def active_task_partitions(assignment: Any, assigned: Any) -> list[ActiveTaskPartition]:
    """Pair each partition the member was assigned with the active task that owns it.

    ``assignment`` is a decoded AssignmentInfo; ``assigned`` the member's consumer-protocol assignment (a
    decoded ``ConsumerProtocolAssignment``, or (topic, partition) pairs). As the Streams member does, the
    partitions are sorted by (topic, partition) and the i-th active task owns the i-th partition; when the
    two lists differ in length Kafka Streams fails the assignment, and so does this function.
    """
    partitions = sorted(_assigned_pairs(assigned))
    tasks = [task_text(t) for t in assignment.active_tasks]
    if len(tasks) != len(partitions):
        raise StreamsAssignmentError(
            f"the AssignmentInfo lists {len(tasks)} active tasks but the member was assigned {len(partitions)} "
            "partitions; Kafka Streams pairs them one to one and treats a mismatch as a fatal assignment error")
    return [ActiveTaskPartition(task=task, topic=topic, partition=partition)
            for task, (topic, partition) in zip(tasks, partitions, strict=True)]
