"""From captured bytes to the facts the rules read: the thin adapters in front of :mod:`.explain`.

A captured group is what a JoinGroup/SyncGroup capture or a ``__consumer_offsets`` GroupMetadata record
holds: for each member its consumer-protocol subscription bytes and (once synced) its assignment bytes, plus
the group's chosen assignor and leader. Each input line is one of:

* a member: ``{"member": "c1", "subscription": HEX_OR_BASE64, "assignment": ..., "release": "3.9",
  "leader": true, "protocol": "stream", "group": "app"}`` (only ``subscription`` is required);
* a payload: ``{"type": "ConsumerProtocolSubscription", "group": "app", "member": "c1", "hex": ...}`` (an
  assignment payload is that member's assignment);
* a ``__consumer_offsets`` record: ``{"key": ..., "value": ...}``; the last GroupMetadata record of each group
  wins, a tombstone removes the group.

Captured exchanges give their groups through :func:`groups_from_exchanges` (or :class:`NewestGenerations`, fed
one exchange at a time).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import kafka_meta
from kafka_meta.errors import KafkaMetaError
from kafka_meta.negotiation.explain import ConsumerMember, Explanation, explain_consumer, explain_streams
from kafka_meta.negotiation.facts import assignment_facts, subscription_facts
from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.rebalance_protocol import STREAMS_ASSIGNOR
from kafka_meta.negotiation.static_membership import (
    FIRST_STATIC_MEMBERSHIP_RELEASE,
    decide_restart,
    session_timeout_ms,
)
from kafka_meta.negotiation.streams_versions import streams_code
from kafka_meta.payload_text import PayloadTextError, text_bytes

SUBSCRIPTION, ASSIGNMENT = "ConsumerProtocolSubscription", "ConsumerProtocolAssignment"
JOIN_GROUP, SYNC_GROUP = 11, 14
SUBSCRIPTION_INFO = "SubscriptionInfo"
ASSIGNMENT_INFO = "AssignmentInfo"


@dataclass
class CapturedMember:
    member_id: str
    subscription: bytes
    assignment: bytes | None = None
    release: str | None = None
    instance_id: str | None = None           # group.instance.id (static membership)
    session_timeout_ms: int | None = None


@dataclass
class CapturedGroup:
    group_id: str | None
    protocol: str | None = None
    leader: str | None = None
    members: list[CapturedMember] = field(default_factory=list)


def _bytes(value: Any, what: str, encoding: str = "auto") -> bytes | None:
    """A field's bytes: as they are, or text read by the readers' one rule (:mod:`kafka_meta.payload_text`)."""
    if value is None or value == "":
        return None if value is None else b""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if not isinstance(value, str):
        raise NegotiationError(f"{what}: expected the bytes as a string")
    try:
        return text_bytes(value, encoding)
    except PayloadTextError as e:
        raise NegotiationError(f"{what}: {e}") from None


def read_groups(lines: Iterable[Mapping[str, Any]], problems: list[str] | None = None) -> list[CapturedGroup]:
    """Groups from parsed JSON Lines of members, payloads and/or ``__consumer_offsets`` records, in first-seen
    order.

    Byte values are ``bytes`` or hex or base64 text, read by the readers' one rule
    (:mod:`kafka_meta.payload_text`); a payload row says its encoding by its key (``hex``, ``base64``;
    ``blob``: either). A row of another kind raises :class:`NegotiationError`, as does
    damage, unless ``problems`` is given: then each is a line there (``line N: why``) and reading goes on."""
    groups: dict[str | None, CapturedGroup] = {}
    for number, line in enumerate(lines, 1):
        where = f"{line['_file']} line {line['_line']}" if "_line" in line else f"line {number}"
        try:
            if "key" in line:
                _offsets_line(groups, line, where)
            elif "subscription" in line:
                _member_line(groups, line, where)
            elif "type" in line and any(k in line for k in PAYLOAD_KEYS):
                _payload_line(groups, line, where)
            else:
                raise NegotiationError(f"{where}: expected a member (with 'subscription'), a payload ('type' and "
                                       f"'hex') or a record ('key')")
        except NegotiationError as e:
            if problems is None:
                raise
            problems.append(str(e))
    return [g for g in groups.values() if g.members]


def _member_line(groups: dict[str | None, CapturedGroup], line: Mapping[str, Any], where: str) -> None:
    gid = line.get("group")
    group = groups.setdefault(gid, CapturedGroup(gid))
    subscription = _bytes(line["subscription"], f"{where} subscription")
    instance = line.get("groupInstanceId", line.get("instanceId"))
    timeout = line.get("sessionTimeout")
    member = CapturedMember(str(line.get("member") or line.get("memberId") or f"member-{len(group.members) + 1}"),
                            subscription or b"", _bytes(line.get("assignment"), f"{where} assignment"),
                            line.get("release"), None if instance is None else str(instance),
                            timeout if isinstance(timeout, int) else None)
    group.members.append(member)
    if line.get("leader") is True:
        group.leader = member.member_id
    if line.get("protocol"):
        group.protocol = str(line["protocol"])


PAYLOAD_KEYS = ("hex", "base64", "blob")  # how a payload row holds its bytes; "blob": hex or base64


def _payload_line(groups: dict[str | None, CapturedGroup], line: Mapping[str, Any], where: str) -> None:
    """A payload row naming its group and member: a subscription makes (or replaces) the member, an
    assignment is that member's; payloads of other types (Streams' own user data) are no member's whole
    metadata and are passed over."""
    kind = line.get("type")
    if kind not in (SUBSCRIPTION, ASSIGNMENT):
        return
    encoding = next(k for k in PAYLOAD_KEYS if k in line)
    data = _bytes(line[encoding], f"{where} {encoding}", "auto" if encoding == "blob" else encoding)
    member_id = str(line.get("member") or line.get("memberId") or "")
    gid = line.get("group")
    group = groups.setdefault(gid, CapturedGroup(gid))
    known = next((m for m in group.members if m.member_id == member_id), None)
    if kind == ASSIGNMENT:
        if known is not None:
            known.assignment = data
        return
    if known is not None:
        group.members.remove(known)
    group.members.append(CapturedMember(member_id or f"member-{len(group.members) + 1}", data or b""))


def groups_from_exchanges(exchanges: Iterable[Mapping[str, Any]]) -> list[CapturedGroup]:
    """The newest generation of each consumer-protocol group in captured exchanges (the capture layer's
    ``Exchange.to_dict()`` shape, or its JSON form): the members and subscriptions its leader's JoinGroup
    response lists, and the assignments the leader's SyncGroup request hands out for that generation."""
    newest = NewestGenerations()
    for exchange in exchanges:
        newest.feed(exchange)
    return newest.groups()


class NewestGenerations:
    """:func:`groups_from_exchanges` fed one exchange at a time, for a reader that meets the exchanges among
    other rows: a capture holds every heartbeat, fetch and commit of its clients, and of those this keeps only
    each group's newest JoinGroup response with members and the SyncGroup assignments of that generation or a
    later one (a later one's JoinGroup response may come next), never the exchanges."""

    def __init__(self) -> None:
        self.joins: dict[str, tuple[int, Mapping[str, Any]]] = {}  # group -> its newest generation's response
        self.syncs: dict[str, dict[int, list[Mapping[str, Any]]]] = {}  # group -> generation -> assignments

    def feed(self, ex: Mapping[str, Any]) -> None:
        api_key = ex.get("apiKey")
        if api_key != JOIN_GROUP and api_key != SYNC_GROUP:
            return
        request, response = ex.get("request") or {}, ex.get("response") or {}
        gid = request.get("groupId") or ex.get("groupId")
        if gid is None:
            return
        if api_key == JOIN_GROUP and response.get("members") and not response.get("errorCode"):
            if request.get("protocolType", "consumer") == "consumer":
                generation = int(response.get("generationId", -1))
                if generation >= self.joins.get(gid, (-2, {}))[0]:
                    self.joins[gid] = (generation, response)
                    syncs = self.syncs.get(gid, {})
                    for older in [g for g in syncs if g < generation]:
                        del syncs[older]
        elif api_key == SYNC_GROUP and request.get("assignments"):
            generation = int(request.get("generationId", -1))
            if generation >= self.joins.get(gid, (-2, {}))[0]:
                self.syncs.setdefault(gid, {})[generation] = request["assignments"]

    def groups(self) -> list[CapturedGroup]:
        """Each group's newest generation, in the order the groups were first met."""
        groups = []
        for gid, (generation, response) in self.joins.items():
            assigned = {a.get("memberId"): a.get("assignment")
                        for a in self.syncs.get(gid, {}).get(generation, [])}
            members = [CapturedMember(str(m.get("memberId")),
                                      _metadata_bytes(m.get("metadata"), SUBSCRIPTION) or b"",
                                      _metadata_bytes(assigned.get(m.get("memberId")), ASSIGNMENT),
                                      instance_id=m.get("groupInstanceId"))
                       for m in response["members"]]
            groups.append(CapturedGroup(gid, response.get("protocolName") or None, response.get("leader") or None,
                                        members))
        return groups


def _metadata_bytes(value: Any, type_name: str) -> bytes | None:
    """Member metadata back as its bytes: as captured (bytes, or in JSON the base64 text Kafka's JSON gives
    bytes as: read as base64, though it may look like hex), the bytes kept beside
    metadata that did not decode (``_raw``), or the decoded message encoded again at the version it was read
    at (exact: the consumer protocol's user data is taken from its client view, which keeps it as bytes)."""
    if value is None or isinstance(value, bytes | bytearray):
        return None if value is None else bytes(value)
    if isinstance(value, str):
        return _bytes(value, type_name, "base64")
    if not isinstance(value, Mapping):
        return None
    if "_raw" in value:
        return _metadata_bytes(value["_raw"], type_name)
    fields = {k: v for k, v in value.items() if not k.startswith("_") and k not in ("clientView", "streamsView")}
    view_data = (value.get("clientView") or {}).get("userData")
    if "userData" in fields:
        fields["userData"] = _metadata_bytes(view_data if view_data is not None else fields["userData"],
                                             type_name)
    try:
        message = kafka_meta.model(value.get("_type") or type_name).model_validate(fields)
        return kafka_meta.encode(message, value.get("_version"))
    except (KafkaMetaError, ValueError):  # pydantic's ValidationError is a ValueError
        return None


def _offsets_line(groups: dict[str | None, CapturedGroup], line: Mapping[str, Any], where: str) -> None:
    from kafka_meta.offsets import decode_record

    if line.get("control"):
        return
    key = _bytes(line["key"], f"{where} key")
    value = _bytes(line.get("value"), f"{where} value")
    try:
        record = decode_record(key or b"", value)
    except KafkaMetaError as e:
        raise NegotiationError(f"{where}: {e}") from None
    if getattr(record, "record_name", None) != "GroupMetadata":
        return
    gid = record.group_id
    if record.value is None:
        groups.pop(gid, None)
        return
    v = record.value
    if v.protocol_type != "consumer":
        groups.pop(gid, None)
        return
    groups.pop(gid, None)   # the newest record of a group replaces the older ones
    groups[gid] = CapturedGroup(gid, v.protocol or None, v.leader or None, [
        CapturedMember(m.member_id, bytes(m.subscription), bytes(m.assignment) or None, None,
                       getattr(m, "group_instance_id", None), m.session_timeout) for m in v.members])


def explain_group(group: CapturedGroup, releases: Mapping[str, str] | None = None,
                  leader_release: str | None = None) -> Explanation:
    """Decode a captured group with kafka_meta's codecs and explain it."""
    releases = {**{m.member_id: m.release for m in group.members if m.release}, **(releases or {})}
    subs = {}
    for m in group.members:
        try:
            subs[m.member_id] = kafka_meta.decode("ConsumerProtocolSubscription", m.subscription)
        except KafkaMetaError as e:
            raise NegotiationError(f"{m.member_id}: {e}") from None
    streams = group.protocol == STREAMS_ASSIGNOR or (group.protocol is None and _looks_like_streams(subs))
    if streams:
        explanation = _explain_streams_group(group, subs, releases, leader_release)
    else:
        explanation = _explain_consumer_group(group, subs, leader_release)
    explanation.details.extend(_restart_notes(group, releases))
    if group.group_id:
        explanation.summary = f"group {group.group_id}: {explanation.summary}"
    return explanation


def _restart_notes(group: CapturedGroup, releases: Mapping[str, str]) -> list[str]:
    """What restarting each member would cost: static members (with a group.instance.id, so 2.3+ clients)
    come back without a rebalance within their session timeout."""
    notes = []
    for m in group.members:
        if m.instance_id is None:
            continue
        release = str(streams_code(releases.get(m.member_id) or FIRST_STATIC_MEMBERSHIP_RELEASE).release)
        timeout = m.session_timeout_ms if m.session_timeout_ms is not None else session_timeout_ms(release)
        soon = decide_restart(release, m.instance_id, max(timeout - 1, 0), timeout)
        late = decide_restart(release, m.instance_id, timeout, timeout)
        if not soon.static:
            notes.append(f"{m.member_id}: {soon.reason}")
            continue
        notes.append(f"{m.member_id}: static member (group.instance.id {m.instance_id}); a restart back within its "
                     f"session timeout ({timeout} ms) costs {soon.rebalances} rebalances, a longer one "
                     f"{late.rebalances}")
    return notes


def _looks_like_streams(subs: Mapping[str, Any]) -> bool:
    if SUBSCRIPTION_INFO not in kafka_meta.types():
        return False
    for sub in subs.values():
        data = sub.user_data
        if not data:
            return False
        try:
            kafka_meta.decode(SUBSCRIPTION_INFO, bytes(data))
        except KafkaMetaError:
            return False
    return True


def _explain_streams_group(group: CapturedGroup, subs: Mapping[str, Any], releases: Mapping[str, str],
                           leader_release: str | None) -> Explanation:
    if SUBSCRIPTION_INFO not in kafka_meta.types():
        raise NegotiationError("explaining a Streams group needs the SubscriptionInfo/AssignmentInfo codecs")
    facts = []
    assignments = {}
    for m in group.members:
        data = subs[m.member_id].user_data
        if not data:
            raise NegotiationError(f"{m.member_id}: a Streams subscription without SubscriptionInfo user data")
        try:
            facts.append(subscription_facts(m.member_id, kafka_meta.decode(SUBSCRIPTION_INFO, bytes(data))))
            if m.assignment:
                asg = kafka_meta.decode("ConsumerProtocolAssignment", m.assignment)
                if asg.user_data:
                    info = kafka_meta.decode(ASSIGNMENT_INFO, bytes(asg.user_data))
                    assignments[m.member_id] = assignment_facts(info)
        except KafkaMetaError as e:
            raise NegotiationError(f"{m.member_id}: {e}") from None
    if leader_release and group.leader:
        releases = {**releases, group.leader: leader_release}
    return explain_streams(facts, assignments or None, releases, group.leader)


def _explain_consumer_group(group: CapturedGroup, subs: Mapping[str, Any], leader_release: str | None) -> Explanation:
    members = []
    for m in group.members:
        view = subs[m.member_id].client_view
        assigned = None
        if m.assignment:
            try:
                asg = kafka_meta.decode("ConsumerProtocolAssignment", m.assignment).client_view
            except KafkaMetaError as e:
                raise NegotiationError(f"{m.member_id}: {e}") from None
            assigned = frozenset((p.topic, p.partition) for p in asg.partitions)
        members.append(ConsumerMember(m.member_id, int(subs[m.member_id].version),
                                      frozenset((p.topic, p.partition) for p in view.owned_partitions), assigned,
                                      int(view.generation_id)))
    if any(m.assigned is None for m in members):
        members = [ConsumerMember(m.member_id, m.subscription_version, m.owned, None, m.generation) for m in members]
    return explain_consumer(members, group.protocol, leader_release)
