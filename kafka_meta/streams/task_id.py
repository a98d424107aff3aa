"""Kafka Streams task ids as people read them, exactly as Java's ``TaskId.toString()`` prints them.

A task is a (subtopology, partition) pair, printed ``"0_1"``; a task of a named topology is printed with
the topology name and Kafka's ``NAMED_TOPOLOGY_DELIMITER`` (``"__"``) in front, ``"orders__0_1"``. Partitions
print as ``TopicPartition.toString()`` does: ``"topic-3"``.
"""

from __future__ import annotations

import re

NAMED_TOPOLOGY_DELIMITER = "__"  # TaskId.NAMED_TOPOLOGY_DELIMITER
_TASK = re.compile(r"^(?P<subtopology>-?\d+)_(?P<partition>-?\d+)$")


def task_id_text(subtopology: int, partition: int, named_topology: str | None = None) -> str:
    """``TaskId.toString()``: ``"0_1"``, or ``"name__0_1"`` for a named topology (an empty name counts as none,
    as Java's TaskId takes one)."""
    if named_topology:
        return f"{named_topology}{NAMED_TOPOLOGY_DELIMITER}{subtopology}_{partition}"
    return f"{subtopology}_{partition}"


def parse_task_id(text: str) -> tuple[int, int, str | None]:
    """The inverse of :func:`task_id_text`, as ``TaskId.parse``: (subtopology, partition, named topology or None);
    the named topology ends at the first ``"__"``."""
    topology, delimiter, rest = text.partition(NAMED_TOPOLOGY_DELIMITER)
    match = _TASK.match(rest if delimiter else text)
    if match is None or (delimiter and not topology):
        raise ValueError(f"not a task id: {text!r} (expected e.g. '0_1' or 'topology__0_1')")
    return int(match["subtopology"]), int(match["partition"]), topology if delimiter else None


def topic_partition_text(topic: str, partition: int) -> str:
    """``TopicPartition.toString()``: ``"topic-3"``."""
    return f"{topic}-{partition}"
