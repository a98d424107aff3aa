"""What a member's captured subscription and assignment say: the consumer-protocol metadata inside JoinGroup
and SyncGroup (decoded by the capture reader, or decoded here from its bytes), with the assignor's user data
and Kafka Streams' versions, onto the member's part in a round."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kafka_meta as km
from kafka_meta.analysis.timeline import MemberRound, TopicPartition


def _nested(value: Any, type_name: str) -> dict[str, Any] | None:
    """Member metadata as a dict: decoded by the reader already, or decoded here from its bytes."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, bytes | bytearray) and value:
        try:
            msg = km.decode(type_name, bytes(value))
        except km.KafkaMetaError as e:
            return {"_type": type_name, "_error": str(e), "_raw": bytes(value)}
        return msg.model_dump(by_alias=True) | {"_type": type_name, "_version": msg.version}
    return None


def _partitions(groups: Any) -> set[TopicPartition]:
    out: set[TopicPartition] = set()
    for g in groups or []:
        if isinstance(g, Mapping):
            out.update((str(g.get("topic")), int(p)) for p in g.get("partitions") or [])
    return out


def _user_data(member: MemberRound, user_data: Any, assignment: bool) -> None:
    if isinstance(user_data, Mapping):
        kind, version = user_data.get("_type"), user_data.get("_version")
        if user_data.get("_error"):
            member.errors.append(f"{kind or 'user data'}: {user_data['_error']}")
            return
        if kind == "SubscriptionInfo" and not assignment:
            member.streams_version, member.streams_latest = version, user_data.get("latestSupportedVersion")
        elif kind == "AssignmentInfo" and assignment:
            member.streams_assignment_version = version
            member.streams_common = user_data.get("commonlySupportedVersion")
        if kind and not assignment:
            member.user_data = f"{kind} v{version}"


def subscription(member: MemberRound, metadata: Any) -> None:
    sub = _nested(metadata, "ConsumerProtocolSubscription")
    if sub is None:
        return
    if sub.get("_error"):
        member.errors.append(f"subscription: {sub['_error']}")
        return
    member.subscription_version = sub.get("_version")
    member.topics = list(sub.get("topics") or [])
    if member.subscription_version is not None and member.subscription_version >= 1:
        member.owned = _partitions(sub.get("ownedPartitions"))
    _user_data(member, sub.get("userData"), assignment=False)


def assignment(member: MemberRound, value: Any) -> None:
    asg = _nested(value, "ConsumerProtocolAssignment")
    if asg is None:
        if value is not None:
            member.assigned = set()  # an empty assignment: nothing handed out
        return
    if asg.get("_error"):
        member.errors.append(f"assignment: {asg['_error']}")
        return
    member.assigned = _partitions(asg.get("assignedPartitions"))
    member.assignment_version = asg.get("_version")
    _user_data(member, asg.get("userData"), assignment=True)
