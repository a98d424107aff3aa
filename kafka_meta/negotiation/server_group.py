"""A KIP-848 consumer group as the broker's assignors see it: members, their subscriptions and current target
assignments, and the topics in the metadata image (``GroupSpec`` and ``SubscribedTopicDescriber``).

The group coordinator builds these the same way every time, and Java's hash collections decide part of
the outcome, so the views here keep that order: the members as the coordinator's ``HashMap`` of member specs
iterates them (filled in the order the group lists its members), each subscription as the ``TopicIds`` view
over the ``HashSet`` of subscribed names (names not in the metadata are skipped), each current assignment as
read back from its target-assignment record (a ``HashMap`` of topic id to a ``HashSet`` of partitions). The
group is *homogeneous* when every member subscribes to the same names.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kafka_meta.negotiation.java_order import JavaHashMap, JavaHashSet, hash_map_order, string_hash, uuid_hash

PartitionSet = tuple[int, ...]


@dataclass(frozen=True)
class ServerTopic:
    name: str
    topic_id: uuid.UUID
    partitions: int


@dataclass(frozen=True)
class ServerMember:
    """One member: its subscribed topic names (as it sent them), its current target assignment (topic id and
    partitions, in the order of its target-assignment record), ``group.instance.id`` and rack."""

    member_id: str
    topics: tuple[str, ...]
    assignment: tuple[tuple[uuid.UUID, PartitionSet], ...] = ()
    instance_id: str | None = None
    rack: str | None = None


ServerAssignment = dict[str, dict[uuid.UUID, list[int]]]


def _int_hash(value: int) -> int:
    return value


class GroupView:
    """``GroupSpec`` and ``SubscribedTopicDescriber`` over one group and one metadata image."""

    def __init__(self, topics: Iterable[ServerTopic], members: Sequence[ServerMember]) -> None:
        self.by_name = {t.name: t for t in topics}
        self.by_id = {t.topic_id: t for t in self.by_name.values()}
        self.members = {m.member_id: m for m in members}
        self.member_ids: list[str] = hash_map_order([m.member_id for m in members], string_hash)
        names = {n for m in members for n in m.topics}
        counts = {n: sum(1 for m in members if n in m.topics) for n in names}
        self.homogeneous = all(c == len(members) for c in counts.values())
        self.owner = {(tid, p): m.member_id for m in members for tid, parts in m.assignment for p in parts}

    def subscribed_names(self, member_id: str) -> list[str]:
        """The ``HashSet`` of subscribed names, in its iteration order."""
        topics = self.members[member_id].topics
        return list(JavaHashSet.copy_of(string_hash, topics))

    def subscribed_ids(self, member_id: str) -> list[uuid.UUID]:
        """``TopicIds``: the ids of the subscribed names the metadata knows, in the names' order."""
        return [self.by_name[n].topic_id for n in self.subscribed_names(member_id) if n in self.by_name]

    def subscribed_id_set(self, member_id: str) -> list[uuid.UUID]:
        """``new HashSet<>(topicIds)``: sized for every name, filled in ``TopicIds`` order."""
        size = len(set(self.members[member_id].topics))
        return list(JavaHashSet.copy_of(uuid_hash, self.subscribed_ids(member_id), size))

    def assignment(self, member_id: str) -> list[tuple[uuid.UUID, list[int]]]:
        """The current target assignment as the record reads back: ``HashMap`` of ``HashSet``s."""
        table: JavaHashMap[uuid.UUID, list[int]] = JavaHashMap(uuid_hash)
        for tid, parts in self.members[member_id].assignment:
            table.put(tid, list(JavaHashSet.copy_of(_int_hash, parts)))
        return table.items()

    def partitions(self, topic_id: uuid.UUID) -> int:
        topic = self.by_id.get(topic_id)
        return -1 if topic is None else topic.partitions

    def is_assigned(self, topic_id: uuid.UUID, partition: int) -> bool:
        return (topic_id, partition) in self.owner
