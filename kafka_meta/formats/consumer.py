"""The classic consumer protocol (section 2 of the wire-format notes): subscription and assignment.

Besides the wire view (what the spec describes), each message offers ``client_view``: what Kafka's Java
consumer makes of the bytes (``ConsumerProtocol.deserializeSubscription/Assignment``). It flattens the
per-topic partition lists into (topic, partition) pairs, reports a negative generation as -1 (no
generation) and an empty rack as none, exactly as the assignors see them.
"""

from __future__ import annotations

from typing import Any

from pydantic import computed_field

from kafka_meta.codec.framing import ForwardPolicy, Int16Prefixed
from kafka_meta.formats.family import Family, FormatPlugin
from kafka_meta.models.base import KafkaModel, Message
from kafka_meta.models.values import KafkaBytes


class TopicPartitionRef(KafkaModel):
    topic: str
    partition: int


def flatten(groups: list[Any]) -> list[TopicPartitionRef]:
    return [TopicPartitionRef(topic=g.topic, partition=p) for g in groups for p in g.partitions]


class SubscriptionClientView(KafkaModel):
    topics: list[str]
    user_data: KafkaBytes | None
    owned_partitions: list[TopicPartitionRef]
    generation_id: int
    rack_id: str | None


class AssignmentClientView(KafkaModel):
    partitions: list[TopicPartitionRef]
    user_data: KafkaBytes | None


class SubscriptionBase(Message):
    @computed_field  # type: ignore[prop-decorator]
    @property
    def client_view(self) -> SubscriptionClientView:
        """The subscription as Kafka's consumer reads it."""
        d = self.__dict__
        return SubscriptionClientView(
            topics=list(d["topics"]),
            user_data=d["user_data"],
            owned_partitions=flatten(d["owned_partitions"]),
            generation_id=d["generation_id"] if d["generation_id"] >= 0 else -1,
            rack_id=d["rack_id"] or None,
        )


class AssignmentBase(Message):
    @computed_field  # type: ignore[prop-decorator]
    @property
    def client_view(self) -> AssignmentClientView:
        """The assignment as Kafka's consumer reads it."""
        d = self.__dict__
        return AssignmentClientView(partitions=flatten(d["assigned_partitions"]), user_data=d["user_data"])


MODEL_BASES: dict[str, type[Message]] = {
    "ConsumerProtocolSubscription": SubscriptionBase,
    "ConsumerProtocolAssignment": AssignmentBase,
}

PLUGIN = FormatPlugin("consumer", {"consumer": Family(lambda spec: Int16Prefixed(ForwardPolicy.CLAMP), MODEL_BASES)})
