"""The client assignors' two sides of one case: the project's assignment and Kafka's, in one comparable form.

The form is ``{"assignment": {member: sorted partitions}, "transferring": {partition: member} | None}``:
the sticky assignors' ``partitionsTransferringOwnership`` is compared too (the cooperative assignor's result
already reflects it; it is null in Kafka where the general algorithm ran).
"""

from __future__ import annotations

from typing import Any

from kafka_meta.negotiation.assignors import (
    cooperative_sticky_assign,
    range_assign,
    round_robin_assign,
    sticky_assign,
)
from kafka_meta.negotiation.sticky import subscriptions_equal
from kafka_meta.testing.conformance.client_groups import ClientGroup


def _sorted(assignment: dict[str, list[tuple[str, int]]]) -> dict[str, list[tuple[str, int]]]:
    return {member: sorted(parts) for member, parts in assignment.items()}


def ours(assignor: str, group: ClientGroup) -> dict[str, Any]:
    members = group.member_facts(assignor)
    racks = group.racks or None
    if assignor == "range":
        return {"assignment": _sorted(range_assign(group.topics, members, racks)), "transferring": None}
    if assignor == "roundrobin":
        return {"assignment": _sorted(round_robin_assign(group.topics, members)), "transferring": None}
    result = (sticky_assign if assignor == "sticky" else cooperative_sticky_assign)(group.topics, members, racks)
    transferring = result.transferring
    if assignor == "cooperative-sticky" and not subscriptions_equal(members):
        transferring = None   # Kafka computes these after the fact and does not report them
    shown = None if transferring is None else {f"{t}-{p}": m for (t, p), m in transferring.items()}
    return {"assignment": _sorted(result.assignment), "transferring": shown}


def theirs(group: ClientGroup, answer: dict[str, Any]) -> dict[str, Any]:
    assignment = {member: sorted((t, p) for t, p in parts) for member, parts in answer["assignment"].items()}
    transferring = answer.get("transferring")
    return {"assignment": assignment, "transferring": transferring}
