"""What reading a ``__consumer_offsets`` record gives: a typed record, an unknown one, or a control marker."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SerializeAsAny

from kafka_meta.models.base import KafkaModel, Message
from kafka_meta.models.values import KafkaBytes


class ProtocolNest(KafkaModel):
    """One assignor's subscription as a member sent it, decoded (user data by the assignor it names)."""

    name: str
    subscription: SerializeAsAny[Message] | None = None
    subscription_user_data: SerializeAsAny[Message] | None = None
    errors: list[str] = Field(default_factory=list)


class MemberNest(KafkaModel):
    """A classic group member's opaque bytes, decoded: consumer-protocol subscription and assignment, and
    their user data as the group's assignor writes it. Failures are listed in ``errors`` and leave the
    other parts (and the record) intact."""

    member_id: str
    subscription: SerializeAsAny[Message] | None = None
    assignment: SerializeAsAny[Message] | None = None
    subscription_user_data: SerializeAsAny[Message] | None = None
    assignment_user_data: SerializeAsAny[Message] | None = None
    errors: list[str] = Field(default_factory=list)


class CoordinatorRecord(KafkaModel):
    """A record of a known type. ``value`` is None for a tombstone (a delete)."""

    record_type: int
    record_name: str
    key: SerializeAsAny[Message]
    value: SerializeAsAny[Message] | None = None
    value_version: int | None = None
    value_variant: str | None = None  # which layout read the value (see kafka_meta.formats.offsets)
    read_forward: bool = False  # the value's version is newer than any known: read with the newest layout
    retired: bool = False  # a record type Kafka no longer writes
    members: list[MemberNest] | None = None  # GroupMetadata of a consumer group, decoded
    classic_protocols: list[ProtocolNest] | None = None  # ConsumerGroupMemberMetadata of a classic member

    @property
    def tombstone(self) -> bool:
        return self.value is None

    @property
    def group_id(self) -> str | None:
        key: Any = self.key
        return getattr(key, "group", None) or getattr(key, "group_id", None)


class UnknownRecord(KafkaModel):
    """A record whose type this version of kafka_meta does not know (Kafka's loader skips these too)."""

    record_type: int | None
    key: KafkaBytes
    value: KafkaBytes | None = None
    reason: str

    @property
    def tombstone(self) -> bool:
        return self.value is None

    @property
    def group_id(self) -> str | None:
        return None


class ControlRecord(KafkaModel):
    """A transaction marker from a control batch (never an offset commit, though its key looks like one)."""

    key: SerializeAsAny[Message]
    value: SerializeAsAny[Message] | None = None
    marker: str  # "COMMIT", "ABORT", or "type N" for other control types

    @property
    def tombstone(self) -> bool:
        return self.value is None

    @property
    def group_id(self) -> str | None:
        return None


OffsetsRecord = CoordinatorRecord | UnknownRecord | ControlRecord
