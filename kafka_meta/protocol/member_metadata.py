"""Member metadata nested in JoinGroup and SyncGroup bodies, decoded in place of its bytes.

The bytes are opaque to the broker; what they hold follows the group's protocol type and the chosen (or
offered) protocol name:

* type ``consumer``: a ConsumerProtocolSubscription (JoinGroup) or ConsumerProtocolAssignment (SyncGroup);
  its ``userData`` is a StickyAssignorUserData (``sticky``), a CooperativeStickyAssignorUserData
  (``cooperative-sticky``), Kafka Streams' SubscriptionInfo / AssignmentInfo (``stream``), and opaque
  for every other assignor (``range``, ``roundrobin``, custom ones);
* any other protocol type (Connect, schema registry...): left as bytes;
* type unknown (the join that named it was not seen): read as the consumer protocol, the common case.

Each decoded value is a dict of Kafka's field names plus ``_type`` and ``_version``; bytes that do not
decode become ``{"_type": T, "_error": "...", "_raw": bytes}`` and never stop the rest of the exchange.
"""

from __future__ import annotations

from typing import Any

import kafka_meta as km
from kafka_meta.errors import KafkaMetaError
from kafka_meta.offsets.nest import ASSIGNOR_USER_DATA, CONSUMER
from kafka_meta.protocol.bodies import wire_uuids
from kafka_meta.protocol.tree_cache import TreeCache

SUBSCRIPTION = "ConsumerProtocolSubscription"
ASSIGNMENT = "ConsumerProtocolAssignment"
# which assignor writes which user data: the same table the __consumer_offsets reader nests by
USER_DATA_TYPES = ASSIGNOR_USER_DATA
# Where the nest_* functions below put decoded member metadata in place of its bytes: body type -> the path of
# the bytes field (through structs and arrays of structs) -> True for an assignment. Readers that give the
# bodies a fixed type (the Spark capture source) take their columns from here.
PLACES: dict[str, dict[tuple[str, ...], bool]] = {
    "JoinGroupRequest": {("protocols", "metadata"): False},
    "JoinGroupResponse": {("members", "metadata"): False},
    "SyncGroupRequest": {("assignments", "assignment"): True},
    "SyncGroupResponse": {("assignment",): True},
    "DescribeGroupsResponse": {("groups", "members", "memberMetadata"): False,
                               ("groups", "members", "memberAssignment"): True},
}
CACHED_PAYLOADS = 2048  # distinct payloads kept decoded; a group's members times a few generations


def as_dict(message: Any) -> dict[str, Any]:
    """A decoded message as Kafka's names, as ``kafka-meta decode`` prints it: the derived views
    (clientView, streamsView) included, so an exchange holds everything a decode of the bytes shows."""
    cls = type(message)
    out: dict[str, Any] = message.model_dump(by_alias=True)
    out["_type"] = message.kafka_type if hasattr(message, "kafka_type") else cls.__name__
    out["_version"] = getattr(message, "version", None)
    return out


def decode_nested(type_name: str, data: bytes) -> dict[str, Any]:
    """``data`` decoded as ``type_name``, or the error dict keeping the bytes.

    Member metadata repeats (a join's subscription comes back in the leader's JoinGroup response, members
    rejoin with the same bytes), and building the dict costs most of an exchange's decoding; so decoded
    values are cached and each caller gets its own copy of the tree (see :mod:`kafka_meta.protocol.tree_cache`).
    """
    key = (type_name, bytes(data))
    tree = _CACHE.get(key)
    return tree if tree is not None else _CACHE.put(key, _decoded(type_name, key[1]))


_CACHE = TreeCache(CACHED_PAYLOADS)


def _decoded(type_name: str, data: bytes) -> dict[str, Any]:
    try:
        message = km.decode(type_name, data)
    except KafkaMetaError as exc:
        return {"_type": type_name, "_error": str(exc), "_raw": data}
    out = wire_uuids(as_dict(message))
    out["_type"] = type_name
    return out


def clear_cache() -> None:
    """Forget the decoded payloads (benchmarks start each pass cold)."""
    _CACHE.clear()


def _with_user_data(decoded: dict[str, Any], user_data_type: str | None) -> dict[str, Any]:
    data = decoded.get("userData")
    if user_data_type is not None and isinstance(data, bytes) and data:
        decoded["userData"] = decode_nested(user_data_type, data)
    return decoded


def decode_member_metadata(data: Any, protocol_type: str | None, protocol_name: str | None,
                           *, assignment: bool) -> Any:
    """Decode one embedded subscription (``assignment=False``) or assignment; other protocol types and
    empty or null bytes are returned unchanged (an empty assignment is how followers sync)."""
    if not isinstance(data, bytes) or not data:
        return data
    if protocol_type is not None and protocol_type != CONSUMER:
        return data
    decoded = decode_nested(ASSIGNMENT if assignment else SUBSCRIPTION, data)
    if "_error" in decoded:
        return decoded
    subscription_type, assignment_type = USER_DATA_TYPES.get(protocol_name or "", (None, None))
    return _with_user_data(decoded, assignment_type if assignment else subscription_type)


def nested_errors(value: Any, path: str) -> list[str]:
    """The errors of a nested value (and of its user data), each with its place in the body."""
    if not isinstance(value, dict):
        return []
    if "_error" in value:
        return [f"{path}: {value['_error']}"]
    return nested_errors(value.get("userData"), f"{path}.userData")


def _nest_each(body: dict[str, Any], items: str, field: str, protocol_type: str | None, protocol_name: str | None,
               *, assignment: bool, name_field: str | None = None) -> list[str]:
    """Decode ``field`` of every entry of ``body[items]`` in place, by the protocol ``protocol_name`` or, with
    ``name_field``, the one each entry names; returns the errors, each with its place in the body."""
    errors: list[str] = []
    for i, item in enumerate(body.get(items) or ()):
        name = item.get(name_field) if name_field is not None else protocol_name
        item[field] = value = decode_member_metadata(item.get(field), protocol_type, name, assignment=assignment)
        errors += nested_errors(value, f"{items}[{i}].{field}")
    return errors


def nest_join_request(body: dict[str, Any]) -> list[str]:
    return _nest_each(body, "protocols", "metadata", body.get("protocolType"), None, assignment=False,
                      name_field="name")


def nest_join_response(body: dict[str, Any], protocol_type: str | None) -> list[str]:
    return _nest_each(body, "members", "metadata", body.get("protocolType") or protocol_type,
                      body.get("protocolName"), assignment=False)


def nest_sync_request(body: dict[str, Any], protocol_type: str | None, protocol_name: str | None) -> list[str]:
    return _nest_each(body, "assignments", "assignment", body.get("protocolType") or protocol_type,
                      body.get("protocolName") or protocol_name, assignment=True)


def nest_sync_response(body: dict[str, Any], protocol_type: str | None, protocol_name: str | None) -> list[str]:
    protocol_type = body.get("protocolType") or protocol_type
    protocol_name = body.get("protocolName") or protocol_name
    body["assignment"] = value = decode_member_metadata(body.get("assignment"), protocol_type, protocol_name,
                                                        assignment=True)
    return nested_errors(value, "assignment")


def nest_describe_groups(body: dict[str, Any]) -> list[str]:
    """DescribeGroups responses carry each member's subscription and assignment for the group's protocol
    (``protocolData`` is the protocol name)."""
    errors: list[str] = []
    for g, group in enumerate(body.get("groups") or ()):
        kind, name = group.get("protocolType") or None, group.get("protocolData") or None
        if kind is None:  # a group without members (Empty, Dead): nothing to decode
            continue
        for m, member in enumerate(group.get("members") or ()):
            for field, assignment in (("memberMetadata", False), ("memberAssignment", True)):
                member[field] = value = decode_member_metadata(member.get(field), kind, name, assignment=assignment)
                errors += nested_errors(value, f"groups[{g}].members[{m}].{field}")
    return errors
