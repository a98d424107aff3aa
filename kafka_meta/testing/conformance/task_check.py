"""The task assignors' two sides of one case: ``{"clients": {process hex: (active, standby)}, "probing": bool}``."""

from __future__ import annotations

from typing import Any

from kafka_meta.negotiation.legacy_sticky_tasks import legacy_sticky_assign
from kafka_meta.negotiation.task_assignors import high_availability_assign
from kafka_meta.testing.conformance.task_groups import TaskGroup


def ours(assignor: str, group: TaskGroup) -> dict[str, Any]:
    if assignor == "legacy-sticky":
        result = legacy_sticky_assign(group.clients, group.tasks, group.stateful, group.configs)
    else:
        result = high_availability_assign(group.clients, group.tasks, group.stateful, group.configs)
    return {"clients": {p.hex: (result.active[p], result.standby[p]) for p in result.active},
            "probing": result.probing}


def theirs(group: TaskGroup, answer: dict[str, Any]) -> dict[str, Any]:
    return {"clients": {p: ([tuple(t) for t in c["active"]], [tuple(t) for t in c["standby"]])
                        for p, c in answer["clients"].items()},
            "probing": answer["probing"]}
