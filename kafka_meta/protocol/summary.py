"""The group-level facts of an exchange (group, member, generation, error), lifted from its bodies.

Each api spells them its own way: the classic apis say ``generationId``, KIP-848 heartbeats
``memberEpoch`` (reported as the generation: it plays that role), OffsetCommit v9+ and TxnOffsetCommit
``generationIdOrMemberEpoch`` (a transactional producer commits a group's offsets for the member that consumed
them, so the exchange is the group's though a producer sent it); batched apis (DescribeGroups, OffsetFetch v8+,
LeaveGroup v3+) name a group or member only when the batch holds exactly one. The response wins over the
request: it carries what the broker decided (the member id a first join is given).
"""

from __future__ import annotations

from typing import Any

GENERATION_NAMES = ("generationId", "generationIdOrMemberEpoch", "memberEpoch")


def _first(bodies: tuple[dict[str, Any], ...], names: tuple[str, ...]) -> Any:
    for body in bodies:
        for name in names:
            value = body.get(name)
            if value is not None:
                return value
    return None


def _single_group(request: dict[str, Any]) -> str | None:
    groups = request.get("groups")
    if isinstance(groups, list) and len(groups) == 1:
        only = groups[0]
        return only if isinstance(only, str) else only.get("groupId") if isinstance(only, dict) else None
    if request.get("keyType") == 0 and isinstance(request.get("key"), str):  # FindCoordinator v0-3
        return request["key"]
    keys = request.get("coordinatorKeys")
    if request.get("keyType") == 0 and isinstance(keys, list) and len(keys) == 1:
        return keys[0]
    return None


def _single_member(request: dict[str, Any]) -> str | None:
    """LeaveGroup v3+ names its members in a batch; a member leaving by itself is the usual case."""
    members = request.get("members")
    if isinstance(members, list) and len(members) == 1 and isinstance(members[0], dict):
        return members[0].get("memberId")
    return None


# the apis whose bodies name a group, a member or a generation (the others only have an error code)
GROUP_APIS = frozenset({8, 9, 10, 11, 12, 13, 14, 15, 28, 42, 47, 68, 69, 76, 88})


def group_facts(api_key: int | None, request: dict[str, Any] | None, response: dict[str, Any] | None
                ) -> tuple[Any, Any, Any, Any]:
    """(groupId, memberId, generationId, errorCode) of an exchange; None where the api has none."""
    request = request if request is not None and "_raw" not in request else {}
    response = response if response is not None and "_raw" not in response else {}
    error_code = response.get("errorCode")
    if api_key not in GROUP_APIS:
        return None, None, None, error_code
    group_id = request.get("groupId")
    if group_id is None:
        group_id = _single_group(request)
    member_id = _first((response, request), ("memberId",))
    if member_id is None:
        member_id = _single_member(request)
    generation = _first((response, request), GENERATION_NAMES)
    return group_id, member_id, generation, error_code
