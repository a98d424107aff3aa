"""Kafka Streams AssignmentInfo v1-v11: the hand-written Java layout, declared from kafka_meta constructs.

No message spec describes it (Java writes it with ``DataOutputStream``), so the layout is a table: each
struct lists its fields in wire order with the versions that carry them, and
:class:`~kafka_meta.codec.declared.DeclaredStruct` builds the construct tree of any version from it.

Wire facts the table encodes (wire-format notes, section 4.3):

* the body starts with the int32 version; v3+ follow it with commonlySupportedVersion (-1 before v3);
* strings are Java modified UTF-8 with a u16 length; v10+ task ids carry the named topology as UTF-16
  characters (count 0 = none);
* v5+ host maps name topics by index into a topic dictionary written first, in hash-map order (kept as
  a list, so re-encoding reproduces it); standby tasks always spell topics out;
* errCode from v4, standbyPartitionsByHost from v6, nextRebalanceMs from v7.

Writing a version that lacks a field drops the field's value, as Java's writer does, except a named
topology, which cannot be written below v10 (dropping it would merge distinct tasks). The
topicDictionary must name every topic of the host maps when writing v5+
(:func:`with_topic_dictionary` builds one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import AliasChoices, AliasGenerator, ConfigDict, Field, StrictStr, computed_field
from pydantic.alias_generators import to_camel

from kafka_meta.codec.declared import DeclaredField, DeclaredFormat, DeclaredModels, DeclaredStruct
from kafka_meta.codec.framing import Companion, ForwardPolicy, LeadingVersion
from kafka_meta.java_hash import JavaHashMap, JavaHashSet, JavaOrderError, string_hash, topic_partition_hash
from kafka_meta.models.base import KafkaModel, Message
from kafka_meta.models.values import int_type
from kafka_meta.spec.versions import MAX_VERSION, Versions
from kafka_meta.streams.protocol import LATEST_SUPPORTED_VERSION, NO_NEXT_REBALANCE, UNKNOWN
from kafka_meta.streams.task_id import task_id_text
from kafka_meta.streams.views import AssignmentView, assignment_view
from kafka_meta.wire.composite import KArray
from kafka_meta.wire.dictionary import Dictionary, DictRef
from kafka_meta.wire.javaio import ModifiedUtf8, Utf16Chars
from kafka_meta.wire.primitives import Fixed

TYPE_NAME = "AssignmentInfo"
VERSIONS = Versions(1, LATEST_SUPPORTED_VERSION)
FRAMING = LeadingVersion("int32", "version", ForwardPolicy.PROBE, [Companion("commonlySupportedVersion", since=3)])
TOPICS = "topicDictionary"  # the binding host maps resolve topic indices through
STANDBY_HOSTS_VERSION = 6  # the first version that writes standbyPartitionsByHost

Int32 = int_type("int32")
Int64 = int_type("int64")
CAMEL = ConfigDict(alias_generator=AliasGenerator(serialization_alias=to_camel, validation_alias=to_camel))


# ---------------------------------------------------------------------------------------------- models
class TaskId(KafkaModel):
    """A task: subtopology (``topicGroupId``), partition and, from v10, its named topology (None: none)."""

    model_config = CAMEL
    topic_group_id: Int32 = 0
    partition: Int32 = 0
    named_topology: StrictStr | None = None

    def __str__(self) -> str:
        return task_id_text(self.topic_group_id, self.partition, self.named_topology)


class TopicPartition(KafkaModel):
    model_config = CAMEL
    topic: StrictStr = ""
    partition: Int32 = 0

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


class StandbyTask(KafkaModel):
    """A standby task and the input partitions it keeps state for."""

    model_config = CAMEL
    task: TaskId = Field(default_factory=TaskId)
    partitions: list[TopicPartition] = Field(default_factory=list)


class HostPartitions(KafkaModel):
    """An ``application.server`` endpoint and the partitions whose (active or standby) state it holds."""

    model_config = CAMEL
    host: StrictStr = ""
    port: Int32 = 0
    partitions: list[TopicPartition] = Field(default_factory=list)


class TopicIndex(KafkaModel):
    """One topic-dictionary entry (v5+)."""

    model_config = CAMEL
    index: Int32 = 0
    topic: StrictStr = ""


class AssignmentInfo(Message):
    """Kafka Streams AssignmentInfo: the consumer-protocol assignment's UserData for a Streams member.

    Lists keep wire order: ``active_tasks`` pairs with the member's sorted partitions, the dictionary and
    the maps are in the writer's hash order. ``version`` mirrors the version written.
    """

    model_config = CAMEL
    version_: Int32 = Field(0, serialization_alias="version", validation_alias=AliasChoices("version", "version_"))
    # left out, what Kafka's own constructor without it writes (the leader's error assignments are built so):
    # the newest version; reading v1-v2, which lack the field, gives UNKNOWN (-1) as Java's decode does
    commonly_supported_version: Int32 = LATEST_SUPPORTED_VERSION
    active_tasks: list[TaskId] = Field(default_factory=list)
    standby_tasks: list[StandbyTask] = Field(default_factory=list)
    topic_dictionary: list[TopicIndex] = Field(default_factory=list)
    partitions_by_host: list[HostPartitions] = Field(default_factory=list)
    standby_partitions_by_host: list[HostPartitions] = Field(default_factory=list)
    err_code: Int32 = 0
    next_rebalance_ms: Int64 = NO_NEXT_REBALANCE

    @computed_field  # type: ignore[prop-decorator]
    @property
    def streams_view(self) -> AssignmentView:
        """Task ids and partitions as Kafka Streams prints them, the error code by name."""
        return assignment_view(self)


AssignmentInfo.kafka_type = TYPE_NAME
AssignmentInfo.newest_version = VERSIONS.high

MODELS = DeclaredModels(AssignmentInfo, {
    TYPE_NAME: AssignmentInfo, "TaskId": TaskId, "TopicPartition": TopicPartition, "StandbyTask": StandbyTask,
    "HostPartitions": HostPartitions, "TopicIndex": TopicIndex,
})


# ---------------------------------------------------------------------------------------------- layout
def since(version: int) -> Versions:
    return Versions(version, MAX_VERSION)


def fixed(kind: str) -> Callable[[int], Fixed]:
    return lambda version: Fixed(kind)


def array_of(struct: DeclaredStruct | Callable[[int], DeclaredStruct]) -> Callable[[int], KArray]:
    def build(version: int) -> KArray:
        shape = struct if isinstance(struct, DeclaredStruct) else struct(version)
        return KArray(shape.at(version), compact=False, nullable=False)
    return build


def wire_field(py: str, versions: Versions, wire: Callable[[int], Any], default: Any = None, kind: str = "int32",
          ignorable: bool = True) -> DeclaredField:
    return DeclaredField(py, to_camel(py), versions, wire, default, kind, ignorable)


ALL = since(1)
TASK_ID = DeclaredStruct(TYPE_NAME, "TaskId", [
    wire_field("topic_group_id", ALL, fixed("int32"), 0),
    wire_field("partition", ALL, fixed("int32"), 0),
    wire_field("named_topology", since(10), lambda v: Utf16Chars(), None, "string", ignorable=False),
])
TOPIC_PARTITION = DeclaredStruct(TYPE_NAME, "TopicPartition", [
    wire_field("topic", ALL, lambda v: ModifiedUtf8(), "", "string"),
    wire_field("partition", ALL, fixed("int32"), 0),
])
INDEXED_TOPIC_PARTITION = DeclaredStruct(TYPE_NAME, "TopicPartition", [  # v5+ host maps: topic by index
    wire_field("topic", ALL, lambda v: DictRef(TOPICS), "", "string"),
    wire_field("partition", ALL, fixed("int32"), 0),
])
STANDBY_TASK = DeclaredStruct(TYPE_NAME, "StandbyTask", [
    DeclaredField("task", "task", ALL, TASK_ID.at, None, "struct"),
    wire_field("partitions", ALL, array_of(TOPIC_PARTITION), [], "array"),
])
HOST_PARTITIONS = DeclaredStruct(TYPE_NAME, "HostPartitions", [
    wire_field("host", ALL, lambda v: ModifiedUtf8(), "", "string"),
    wire_field("port", ALL, fixed("int32"), 0),
    wire_field("partitions", ALL, array_of(lambda v: INDEXED_TOPIC_PARTITION if v >= 5 else TOPIC_PARTITION), [],
               "array"),
])
TOPIC_INDEX = DeclaredStruct(TYPE_NAME, "TopicIndex", [
    wire_field("index", ALL, fixed("int32"), 0),
    wire_field("topic", ALL, lambda v: ModifiedUtf8(), "", "string"),
])
ROOT = DeclaredStruct(TYPE_NAME, TYPE_NAME, [
    DeclaredField("version_", "version", ALL, lambda v: FRAMING.field_construct("version", v), 0),
    wire_field("commonly_supported_version", since(3), fixed("int32"), UNKNOWN),
    wire_field("active_tasks", ALL, array_of(TASK_ID), [], "array"),
    wire_field("standby_tasks", ALL, array_of(STANDBY_TASK), [], "array"),
    wire_field("topic_dictionary", since(5), lambda v: Dictionary(TOPIC_INDEX.at(v), "index", "topic", TOPICS), [],
               "array"),
    wire_field("partitions_by_host", since(2), array_of(HOST_PARTITIONS), [], "array"),
    wire_field("standby_partitions_by_host", since(STANDBY_HOSTS_VERSION), array_of(HOST_PARTITIONS), [], "array"),
    wire_field("err_code", since(4), fixed("int32"), 0),
    wire_field("next_rebalance_ms", since(7), fixed("int64"), NO_NEXT_REBALANCE, "int64"),
])


def assignment_format() -> DeclaredFormat:
    return DeclaredFormat(TYPE_NAME, FRAMING, VERSIONS, ROOT.at, MODELS, family="streams")


def with_topic_dictionary(message: AssignmentInfo, version: int | None = None, *,
                          exact: bool = False) -> AssignmentInfo:
    """A copy whose topic dictionary names every topic of the host maps written at ``version`` (None: the
    newest; version 5 writes the active host map only, the standby one comes at 6), so it can be written at v5+.

    The topics missing from the dictionary are added as Kafka Streams' writer builds its dictionary, so that an
    assignment built by hand writes the bytes Kafka writes for it: the host maps' partitions gathered in a hash
    set, each new topic numbered (after the indices already used) in the order that set iterates, and the new
    entries in the order of a hash map of topic names. Entries already there are kept, first. Where Java's
    order cannot be reproduced (a hash bucket Java would turn into a tree), the new topics come in the order
    they are first seen; with ``exact`` it raises :class:`~kafka_meta.java_hash.JavaOrderError` instead, for a
    caller that must know its bytes are Kafka's (a tree bucket's order can rest on identity hash codes, so even
    Kafka's own writer need not repeat it).
    """
    copy = message.model_copy(deep=True)
    known = {entry.topic for entry in copy.topic_dictionary}
    next_index = max((entry.index for entry in copy.topic_dictionary), default=-1) + 1
    hosts = [*copy.partitions_by_host]
    if version is None or version >= STANDBY_HOSTS_VERSION:
        hosts += copy.standby_partitions_by_host
    seen = [(tp.topic, tp.partition) for host in hosts for tp in host.partitions]
    try:
        partitions: JavaHashSet[tuple[str, int]] = JavaHashSet(lambda tp: topic_partition_hash(*tp), items=seen)
        indices: JavaHashMap[str, int] = JavaHashMap(string_hash)
        for topic, _ in partitions:
            if topic not in known and topic not in indices:
                indices.put(topic, next_index)
                next_index += 1
        added = indices.items()
    except JavaOrderError:
        if exact:
            raise
        added = []
        for topic, _ in seen:
            if topic not in known and topic not in dict(added):
                added.append((topic, next_index))
                next_index += 1
    copy.topic_dictionary += [TopicIndex(index=index, topic=topic) for topic, index in added]
    return copy
