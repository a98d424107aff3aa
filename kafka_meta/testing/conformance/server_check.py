"""The broker's assignors' two sides of one case, as ``{member: sorted [(topic id hex, partition)]}``."""

from __future__ import annotations

from typing import Any

from kafka_meta.negotiation.server_assignors import range_assign_server, uniform_assign
from kafka_meta.testing.conformance.server_groups import ServerGroup


def ours(assignor: str, group: ServerGroup) -> dict[str, list[tuple[str, int]]]:
    run = uniform_assign if assignor == "uniform" else range_assign_server
    result = run(group.topics, group.members)
    return {m.member_id: sorted((tid.hex, p) for tid, ps in result.get(m.member_id, {}).items() for p in ps)
            for m in group.members}


def theirs(group: ServerGroup, answer: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    given = answer["assignment"]
    return {m.member_id: sorted((t, p) for t, p in given.get(m.member_id, [])) for m in group.members}
