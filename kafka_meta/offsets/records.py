"""What reading a ``__consumer_offsets`` record gives: a typed record, an unknown one, or a control marker."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SerializeAsAny

from kafka_meta.models.base import KafkaModel, Message
from kafka_meta.models.values import KafkaBytes
from kafka_meta.spec.naming import json_name, snake_case


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


# the key field naming a record's group, in the older specs' naming and in the newer ("GroupId")
GROUP_FIELDS = ("group", "GroupId")
GROUP_PY_NAMES = tuple(snake_case(f) for f in GROUP_FIELDS)
GROUP_JSON_NAMES = tuple(json_name(f) for f in GROUP_FIELDS)


def group_of(fields: Any, names: tuple[str, ...]) -> str | None:
    """The group of a key given as a mapping keyed by ``names`` (``GROUP_PY_NAMES`` or ``GROUP_JSON_NAMES``);
    an empty group id is a group id."""
    for name in names:
        if name in fields:
            return fields[name]
    return None


class RecordBase(KafkaModel):
    """What every record read from the topic answers: is it a delete, and whose group is it."""

    value: Any = None

    @property
    def tombstone(self) -> bool:
        return self.value is None

    @property
    def group_id(self) -> str | None:
        return None


class CoordinatorRecord(RecordBase):
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
    def group_id(self) -> str | None:
        """The key's group (``group`` in the older specs' naming, ``GroupId`` in the newer); may be empty."""
        return group_of(self.key.__dict__, GROUP_PY_NAMES)


class UnknownRecord(RecordBase):
    """A record whose type this version of kafka_meta does not know (Kafka's loader skips these too)."""

    record_type: int | None
    key: KafkaBytes
    value: KafkaBytes | None = None
    reason: str


class ControlRecord(RecordBase):
    """A transaction marker from a control batch (never an offset commit, though its key looks like one)."""

    key: SerializeAsAny[Message]
    value: SerializeAsAny[Message] | None = None
    marker: str  # "COMMIT", "ABORT", or "type N" for other control types


OffsetsRecord = CoordinatorRecord | UnknownRecord | ControlRecord
