"""Decode what a group's records carry as opaque bytes: the whole nest in one call.

A classic group's GroupMetadataValue stores each member's JoinGroup subscription and SyncGroup
assignment as bytes. For protocolType "consumer" those are consumer-protocol messages, and their user
data is written by the assignor the group chose (its ``protocol``): StickyAssignor, CooperativeSticky,
Kafka Streams... KIP-848 groups keep classic members' subscriptions in ConsumerGroupMemberMetadataValue.
Every inner failure is reported on its member; the record itself is never lost.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import kafka_meta
from kafka_meta.errors import KafkaMetaError
from kafka_meta.models.base import Message
from kafka_meta.offsets.records import MemberNest, ProtocolNest
from kafka_meta.spec.naming import snake_case

CONSUMER = "consumer"
SUBSCRIPTION, ASSIGNMENT = "ConsumerProtocolSubscription", "ConsumerProtocolAssignment"
GROUP_METADATA, CONSUMER_GROUP_MEMBER_METADATA = 2, 5  # the record types whose values carry a nest

# assignor name -> (subscription user data type, assignment user data type); None = not decoded
ASSIGNOR_USER_DATA: dict[str, tuple[str | None, str | None]] = {
    "sticky": ("StickyAssignorUserData", None),
    "cooperative-sticky": ("CooperativeStickyAssignorUserData", None),
    "stream": ("SubscriptionInfo", "AssignmentInfo"),
}
NO_USER_DATA: tuple[str | None, str | None] = (None, None)
SUBSCRIPTION_SIDE, ASSIGNMENT_SIDE = 0, 1  # which of an assignor's two user data types a message carries


@dataclass(frozen=True)
class NestedBytes:
    """A field of an item holding another message's bytes."""

    field: str  # the item's field, by Kafka's JSON name
    label: str  # what the bytes are, in a member's errors
    type_name: str
    side: int  # SUBSCRIPTION_SIDE or ASSIGNMENT_SIDE: the assignor's user data type its user data is


@dataclass(frozen=True)
class NestRule:
    """Where a record's value keeps messages as bytes, and which assignor wrote their user data.

    The one statement of the rule that every reader of records walks: the typed path
    (:func:`group_members`, :func:`classic_protocols`) on models, the plain one
    (:mod:`kafka_meta.offsets.plain_render`) on Kafka's JSON names.
    """

    items: tuple[str, ...]  # the path from the value to the list of items holding bytes (Kafka's JSON names)
    nested: tuple[NestedBytes, ...]
    protocol_type: str | None = None  # the value's protocol type the bytes need to be these messages
    group_assignor: str | None = None  # the value's field naming the assignor of every item
    item_assignor: str | None = None  # else each item's field naming its own
    none_when_empty: bool = False  # no items: nothing to nest (None), rather than no members ([])

    def items_of(self, value: Any, get: Callable[[Any, str], Any]) -> list[Any] | None:
        """The items of ``value`` that hold bytes, or None where the rule does not apply; ``get`` reads a
        field by its JSON name (:func:`model_field` of a model, :func:`json_field` of Kafka's JSON)."""
        if value is None or (self.protocol_type is not None and get(value, "protocolType") != self.protocol_type):
            return None
        holder = value
        for name in self.items:
            holder = get(holder, name)
            if holder is None:
                return None
        return None if self.none_when_empty and not holder else list(holder)

    def user_data_types(self, value: Any, item: Any, get: Callable[[Any, str], Any]) -> tuple[str | None, ...]:
        """The user data type of each nested field of ``item``, by the assignor that wrote it."""
        pair = ASSIGNOR_USER_DATA.get(self.assignor(value, item, get) or "", NO_USER_DATA)
        return tuple(pair[n.side] for n in self.nested)

    def assignor(self, value: Any, item: Any, get: Callable[[Any, str], Any]) -> str | None:
        return get(value, self.group_assignor) if self.group_assignor else get(item, self.item_assignor or "")


NEST_RULES: dict[int, NestRule] = {
    # a classic group's members: their JoinGroup subscription and SyncGroup assignment, for consumer groups
    GROUP_METADATA: NestRule(
        items=("members",), protocol_type=CONSUMER, group_assignor="protocol",
        nested=(NestedBytes("subscription", "subscription", SUBSCRIPTION, SUBSCRIPTION_SIDE),
                NestedBytes("assignment", "assignment", ASSIGNMENT, ASSIGNMENT_SIDE))),
    # a KIP-848 group's member on the classic protocol: a subscription per assignor it offered
    CONSUMER_GROUP_MEMBER_METADATA: NestRule(
        items=("classicMemberMetadata", "supportedProtocols"), item_assignor="name", none_when_empty=True,
        nested=(NestedBytes("metadata", "subscription", SUBSCRIPTION, SUBSCRIPTION_SIDE),)),
}


@functools.cache
def _attribute(json_name: str) -> str:
    return snake_case(json_name)


def model_field(model: Any, json_name: str) -> Any:
    """A model's field by its JSON name."""
    return getattr(model, _attribute(json_name))


def json_field(document: dict[str, Any], json_name: str) -> Any:
    """A field of Kafka's JSON of a message."""
    return document.get(json_name)


def _decode(type_name: str | None, data: bytes | None, what: str, errors: list[str]) -> Message | None:
    if type_name is None or not data or type_name not in kafka_meta.types():
        return None
    try:
        return kafka_meta.decode(type_name, data)
    except KafkaMetaError as e:
        errors.append(f"{what}: {e}")
        return None


def _nest_item(rule: NestRule, value: Any, item: Any) -> tuple[dict[str, tuple[Message | None, Message | None]],
                                                             list[str]]:
    """Each nested field of a model item decoded, with its user data, and what failed."""
    errors: list[str] = []
    assignor = rule.assignor(value, item, model_field)
    decoded = {}
    for nested, user_data_type in zip(rule.nested, rule.user_data_types(value, item, model_field), strict=True):
        message = _decode(nested.type_name, model_field(item, nested.field), nested.label, errors)
        user_data = _decode(user_data_type, getattr(message, "user_data", None),
                            f"{assignor} {nested.label} user data", errors)
        decoded[nested.field] = (message, user_data)
    return decoded, errors


def _nested_items(record_name: str, value: Any) -> list[tuple[Any, dict[str, Any], list[str]]] | None:
    """Each item of a record value that nests metadata (its rule in :data:`NEST_RULES`), with what was decoded
    of it and the errors; None when the value nests none (a group that is not a consumer group)."""
    rule = NEST_RULES[record_name]
    items = rule.items_of(value, model_field)
    if items is None:
        return None
    return [(item, *_nest_item(rule, value, item)) for item in items]


def group_members(value: Any) -> list[MemberNest] | None:
    """Decode the members of a GroupMetadataValue, or None when the group is not a consumer group.

    A member that joined but has not been synced yet has an empty assignment (nothing decoded)."""
    items = _nested_items(GROUP_METADATA, value)
    if items is None:
        return None
    out = []
    for member, decoded, errors in items:
        (subscription, sub_data), (assignment, asg_data) = decoded["subscription"], decoded["assignment"]
        out.append(MemberNest(member_id=member.member_id, subscription=subscription, assignment=assignment,
                              subscription_user_data=sub_data, assignment_user_data=asg_data, errors=errors))
    return out


def classic_protocols(value: Any) -> list[ProtocolNest] | None:
    """Decode a KIP-848 group member's classic-protocol subscriptions, one per assignor it offered."""
    items = _nested_items(CONSUMER_GROUP_MEMBER_METADATA, value)
    if items is None:
        return None
    out = []
    for protocol, decoded, errors in items:
        subscription, sub_data = decoded["metadata"]
        out.append(ProtocolNest(name=protocol.name, subscription=subscription, subscription_user_data=sub_data,
                                errors=errors))
    return out
