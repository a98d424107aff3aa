"""Decode what a group's records carry as opaque bytes: the whole nest in one call.

A classic group's GroupMetadataValue stores each member's JoinGroup subscription and SyncGroup
assignment as bytes. For protocolType "consumer" those are consumer-protocol messages, and their user
data is written by the assignor the group chose (its ``protocol``): StickyAssignor, CooperativeSticky,
Kafka Streams... KIP-848 groups keep classic members' subscriptions in ConsumerGroupMemberMetadataValue.
Every inner failure is reported on its member; the record itself is never lost.
"""

from __future__ import annotations

from typing import Any

import kafka_meta
from kafka_meta.errors import KafkaMetaError
from kafka_meta.models.base import Message
from kafka_meta.offsets.records import MemberNest, ProtocolNest

CONSUMER = "consumer"

# assignor name -> (subscription user data type, assignment user data type); None = not decoded
ASSIGNOR_USER_DATA: dict[str, tuple[str | None, str | None]] = {
    "sticky": ("StickyAssignorUserData", None),
    "cooperative-sticky": ("CooperativeStickyAssignorUserData", None),
    "stream": ("SubscriptionInfo", "AssignmentInfo"),
}


def _decode(type_name: str | None, data: bytes | None, what: str, errors: list[str]) -> Message | None:
    if type_name is None or not data or type_name not in kafka_meta.types():
        return None
    try:
        return kafka_meta.decode(type_name, data)
    except KafkaMetaError as e:
        errors.append(f"{what}: {e}")
        return None


def _user_data_types(assignor: str | None) -> tuple[str | None, str | None]:
    return ASSIGNOR_USER_DATA.get(assignor or "", (None, None))


def group_members(value: Any) -> list[MemberNest] | None:
    """Decode the members of a GroupMetadataValue, or None when the group is not a consumer group."""
    if value is None or value.protocol_type != CONSUMER:
        return None
    sub_type, asg_type = _user_data_types(value.protocol)
    out = []
    for member in value.members:
        errors: list[str] = []
        subscription = _decode("ConsumerProtocolSubscription", member.subscription, "subscription", errors)
        # a member that joined but has not been synced yet has an empty assignment
        assignment = _decode("ConsumerProtocolAssignment", member.assignment, "assignment", errors)
        out.append(MemberNest(
            member_id=member.member_id,
            subscription=subscription,
            assignment=assignment,
            subscription_user_data=_decode(sub_type, getattr(subscription, "user_data", None),
                                           f"{value.protocol} subscription user data", errors),
            assignment_user_data=_decode(asg_type, getattr(assignment, "user_data", None),
                                         f"{value.protocol} assignment user data", errors),
            errors=errors,
        ))
    return out


def classic_protocols(value: Any) -> list[ProtocolNest] | None:
    """Decode a KIP-848 group member's classic-protocol subscriptions, one per assignor it offered."""
    classic = getattr(value, "classic_member_metadata", None)
    if classic is None or not classic.supported_protocols:
        return None
    out = []
    for protocol in classic.supported_protocols:
        errors: list[str] = []
        subscription = _decode("ConsumerProtocolSubscription", protocol.metadata, "subscription", errors)
        out.append(ProtocolNest(
            name=protocol.name,
            subscription=subscription,
            subscription_user_data=_decode(_user_data_types(protocol.name)[0],
                                           getattr(subscription, "user_data", None),
                                           f"{protocol.name} subscription user data", errors),
            errors=errors,
        ))
    return out
