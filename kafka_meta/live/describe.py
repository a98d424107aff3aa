"""The requests a watch sends to learn what each group's coordinator holds now, and what their answers say,
read with the project's own codec (``schemas/protocol/``): no client library's idea of these messages, so the
members' subscription and assignment bytes of a classic group are decoded here as everywhere else in the
project (:mod:`kafka_meta.protocol.member_metadata`).

Sans-IO: :func:`request` gives a body's bytes, :func:`response` reads one; whoever has a connection sends them.

* ListGroups (v5: with each group's type) learns the groups and their types;
* FindCoordinator (v4 on: every group in one request) finds each group's coordinator;
* DescribeGroups for classic groups (state, protocol, members with their decoded metadata and assignment);
* ConsumerGroupDescribe (KIP-848) for consumer groups (group and assignment epochs, members with their epochs
  and assignments);
* ShareGroupDescribe (KIP-932) for share groups (the same, the partitions each member shares with the others);
* StreamsGroupDescribe (KIP-1071) for streams groups (the same, plus the topology epoch and each member's
  active, standby and warm-up tasks per subtopology).

A broker whose ApiVersions lacks the describe of a group's type (a share or streams group on a broker that has
them disabled, or one too old) leaves the group as ListGroups gave it, with a note saying why
(:func:`not_described`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import kafka_meta as km
from kafka_meta.analysis import codes
from kafka_meta.errors import KafkaMetaError
from kafka_meta.live.events import DescribedMember, GroupDescription, StreamsTasks, TaskIds
from kafka_meta.protocol.bodies import BODIES
from kafka_meta.protocol.member_metadata import nest_describe_groups


@dataclass(frozen=True)
class Api:
    name: str
    key: int
    newest: int  # the newest version the project's spec reads
    oldest: int = 0  # the oldest version that says what a watch needs


LIST_GROUPS = Api("ListGroups", 16, 5)
FIND_COORDINATOR = Api("FindCoordinator", 10, 6, oldest=4)
DESCRIBE_GROUPS = Api("DescribeGroups", 15, 6)
CONSUMER_GROUP_DESCRIBE = Api("ConsumerGroupDescribe", 69, 1)
SHARE_GROUP_DESCRIBE = Api("ShareGroupDescribe", 77, 1)
STREAMS_GROUP_DESCRIBE = Api("StreamsGroupDescribe", 89, 1)
APIS = (LIST_GROUPS, FIND_COORDINATOR, DESCRIBE_GROUPS, CONSUMER_GROUP_DESCRIBE, SHARE_GROUP_DESCRIBE,
        STREAMS_GROUP_DESCRIBE)

GROUP_TYPES = {"classic", "consumer", "share", "streams"}


def version(api: Api, broker: tuple[int, int] | None) -> int | None:
    """The newest version both the broker (its ApiVersions range, None: it does not know the api) and the
    project's spec speak; None when there is none that also says what a watch needs."""
    if broker is None:
        return None
    chosen = min(api.newest, broker[1])
    return chosen if chosen >= max(api.oldest, broker[0]) else None


def request(api: Api, version: int, groups: list[str] | None = None) -> bytes:
    """The body of one request: every group (ListGroups), or ``groups``."""
    names = list(groups or [])
    if api is LIST_GROUPS:
        body: dict[str, Any] = {"states_filter": [], "types_filter": []}
    elif api is FIND_COORDINATOR:
        body = {"key": "", "key_type": 0, "coordinator_keys": names}
    elif api is DESCRIBE_GROUPS:
        body = {"groups": names, "include_authorized_operations": False}
    elif api is STREAMS_GROUP_DESCRIBE:  # no topology description: its epoch and subtopologies say enough
        body = {"group_ids": names, "include_authorized_operations": False, "include_topology_description": False}
    else:
        body = {"group_ids": names, "include_authorized_operations": False}
    return km.encode(body, version, type_name=f"{api.name}Request")


def response(api: Api, version: int, body: bytes) -> dict[str, Any]:
    """A response body read (Kafka's field names); raises :class:`~kafka_meta.errors.DecodeError`."""
    decoded = BODIES.decode(f"{api.name}Response", body, version)
    if api is DESCRIBE_GROUPS:
        nest_describe_groups(decoded)
    return decoded


def error_name(code: int) -> str:
    return codes.NAMES.get(code, f"error {code}")


def listed_groups(body: dict[str, Any]) -> list[GroupDescription]:
    """ListGroups: each group with its type (v5; before, classic for every group with a protocol type, which
    is what older brokers hold) and state (v4 on). Raises KafkaMetaError on a failed listing."""
    if body.get("errorCode"):
        raise KafkaMetaError(f"ListGroups failed: {error_name(body['errorCode'])}")
    out = []
    for g in body.get("groups") or []:
        kind = (g.get("groupType") or "").lower()
        out.append(GroupDescription(g["groupId"], kind if kind in GROUP_TYPES else "classic",
                                    state=g.get("groupState") or None))
    return out


def coordinators(body: dict[str, Any]) -> dict[str, int | str]:
    """FindCoordinator (v4 on): each group's coordinator node id, or the error that kept it unknown."""
    return {c["key"]: c["nodeId"] if not c.get("errorCode") else error_name(c["errorCode"])
            for c in body.get("coordinators") or []}


def _partitions(entries: Any, topic: str = "topic") -> list[str]:
    out: list[str] = []
    for entry in entries or []:
        name = entry.get(topic) or str(entry.get("topicId", ""))[:8]
        out.extend(f"{name}-{p}" for p in entry.get("partitions") or [])
    return sorted(out, key=lambda tp: (tp.rsplit("-", 1)[0], int(tp.rsplit("-", 1)[1])))


def described_classic(body: dict[str, Any]) -> list[GroupDescription]:
    """DescribeGroups: state, protocol and members; each member's assignment from its decoded bytes."""
    out = []
    for g in body.get("groups") or []:
        error = g.get("errorCode")
        members = []
        for m in g.get("members") or []:
            assignment = m.get("memberAssignment")
            assigned = _partitions(assignment.get("assignedPartitions")) if isinstance(assignment, dict) else []
            members.append(DescribedMember(m["memberId"], m.get("clientId"), m.get("clientHost"),
                                           m.get("groupInstanceId"), assigned=assigned))
        out.append(GroupDescription(g["groupId"], "classic", state=g.get("groupState") or None,
                                    protocol=g.get("protocolData") or None, members=members,
                                    error=error_name(error) if error else None))
    return out


def described_consumer(body: dict[str, Any]) -> list[GroupDescription]:
    """ConsumerGroupDescribe: the group epoch, the assignor, members with their epochs and assignments."""
    return _described(body, "consumer", lambda m: DescribedMember(
        m["memberId"], m.get("clientId"), m.get("clientHost"), m.get("instanceId"), epoch=m.get("memberEpoch"),
        assigned=_partitions((m.get("assignment") or {}).get("topicPartitions"), "topicName")))


def described_share(body: dict[str, Any]) -> list[GroupDescription]:
    """ShareGroupDescribe: the group and assignment epochs, the assignor, members with their epochs and the
    partitions each shares with the others."""
    return _described(body, "share", lambda m: DescribedMember(
        m["memberId"], m.get("clientId"), m.get("clientHost"), epoch=m.get("memberEpoch"),
        assigned=_partitions((m.get("assignment") or {}).get("topicPartitions"), "topicName")))


def _task_ids(entries: Any) -> TaskIds:
    return {t["subtopologyId"]: sorted(t.get("partitions") or []) for t in entries or []}


def _tasks(assignment: dict[str, Any] | None) -> StreamsTasks:
    a = assignment or {}
    return StreamsTasks(_task_ids(a.get("activeTasks")), _task_ids(a.get("standbyTasks")),
                        _task_ids(a.get("warmupTasks")))


def described_streams(body: dict[str, Any]) -> list[GroupDescription]:
    """StreamsGroupDescribe: the group, assignment and topology epochs, the assignor (v1 on), members with
    their epochs, Streams instance and the tasks each holds now."""
    return _described(body, "streams", lambda m: DescribedMember(
        m["memberId"], m.get("clientId"), m.get("clientHost"), m.get("instanceId"), epoch=m.get("memberEpoch"),
        tasks=_tasks(m.get("assignment")), topology_epoch=m.get("topologyEpoch"), process_id=m.get("processId")),
        lambda g: {"topology_epoch": g["topology"].get("epoch") if g.get("topology") else None})


def _described(body: dict[str, Any], kind: str, member: Callable[[dict[str, Any]], DescribedMember],
               extra: Callable[[dict[str, Any]], dict[str, Any]] = lambda g: {}) -> list[GroupDescription]:
    """The groups of a KIP-848 style describe answer (consumer, share, streams: the same group fields, members of
    their own kind): a group the coordinator refused is its error alone (the message it gave, else the code's name),
    the others their state, epochs, assignor, members (each by ``member``) and what ``extra`` adds."""
    out = []
    for g in body.get("groups") or []:
        error = g.get("errorCode")
        if error:
            out.append(GroupDescription(g["groupId"], kind, error=g.get("errorMessage") or error_name(error)))
            continue
        out.append(GroupDescription(g["groupId"], kind, state=g.get("groupState") or None,
                                    epoch=g.get("groupEpoch"), protocol=g.get("assignorName") or None,
                                    members=[member(m) for m in g.get("members") or []],
                                    assignment_epoch=g.get("assignmentEpoch"), **extra(g)))
    return out


@dataclass(frozen=True)
class Describer:
    """How groups of one type are described: the request, and the reader of its answer."""

    api: Api
    read: Callable[[dict[str, Any]], list[GroupDescription]]


DESCRIBERS = {"classic": Describer(DESCRIBE_GROUPS, described_classic),
              "consumer": Describer(CONSUMER_GROUP_DESCRIBE, described_consumer),
              "share": Describer(SHARE_GROUP_DESCRIBE, described_share),
              "streams": Describer(STREAMS_GROUP_DESCRIBE, described_streams)}


def not_described(listed: GroupDescription, api: Api) -> GroupDescription:
    """A group left as ListGroups gave it, saying why: the broker does not speak a version of ``api`` this
    project reads."""
    listed.note = f"listed only: the broker's ApiVersions has no {api.name} (key {api.key}) version {api.oldest}-" \
                  f"{api.newest}"
    return listed
