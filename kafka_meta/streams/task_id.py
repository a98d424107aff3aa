"""Kafka Streams task ids as people read them, exactly as Java's ``TaskId.toString()`` prints them.

A task is a (subtopology, partition) pair, printed ``"0_1"``; a task of a named topology is printed with
the topology name in front, ``"orders_0_1"``. Partitions print as ``TopicPartition.toString()`` does:
``"topic-3"``.
"""

from __future__ import annotations

import re

_TASK = re.compile(r"^(?:(?P<topology>.+)_)?(?P<subtopology>-?\d+)_(?P<partition>-?\d+)$")


def task_id_text(subtopology: int, partition: int, named_topology: str | None = None) -> str:
    """``TaskId.toString()``: ``"0_1"``, or ``"name_0_1"`` for a named topology (an empty name counts as none)."""
    if named_topology:
        return f"{named_topology}_{subtopology}_{partition}"
    return f"{subtopology}_{partition}"


def parse_task_id(text: str) -> tuple[int, int, str | None]:
    """The inverse of :func:`task_id_text`: (subtopology, partition, named topology or None)."""
    match = _TASK.match(text)
    if match is None:
        raise ValueError(f"not a task id: {text!r} (expected e.g. '0_1' or 'topology_0_1')")
    return int(match["subtopology"]), int(match["partition"]), match["topology"]


def topic_partition_text(topic: str, partition: int) -> str:
    """``TopicPartition.toString()``: ``"topic-3"``."""
    return f"{topic}-{partition}"
