"""Differential conformance of the assignors: random groups through Kafka's assignor classes and the project's.

For each assignor type (``"assignor range"``, ``"assignor uniform (server)"``, ``"assignor high-availability
(streams)"``, ...) ``run`` draws groups from one seeded generator, sends them to the Java peer in one pipelined
batch, runs the project's assignor on the same facts and compares the outcome member by member: the set of
partitions (or active and standby tasks) each member gets, the partitions transferring ownership where Kafka
reports them, and refusals (Kafka throwing, the project raising ``AssignmentFailed``) by exception name. The
order of partitions inside one member's list is not compared (it is not part of what an assignment means:
Kafka's follows the iteration order of maps of topic names).

A difference the project makes on purpose is counted with its documented reason (docs/conformance.md) and
does not count as unexplained; :data:`DELIBERATE` lists them (none today).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka_meta.negotiation.outcomes import AssignmentFailed
from kafka_meta.testing.conformance.client_groups import CLIENT_ASSIGNORS, client_group
from kafka_meta.testing.conformance.results import Result
from kafka_meta.testing.conformance.server_groups import SERVER_ASSIGNORS, server_group
from kafka_meta.testing.conformance.task_groups import TASK_ASSIGNORS, task_group

BATCH = 200   # cases sent to the peer at once

DELIBERATE: dict[str, str] = {}


@dataclass(frozen=True)
class Outcome:
    """One side's answer for one case: the assignment as comparable values, or the exception thrown."""

    assignment: Any = None
    error: str | None = None


@dataclass(frozen=True)
class Kind:
    """One assignor under test: how to draw a case, ask Kafka, ask the project, and read Kafka's answer."""

    type: str
    draw: Callable[[random.Random], Any]
    request: Callable[[Any], dict[str, Any]]
    ours: Callable[[Any], Any]
    theirs: Callable[[Any, Any], Any]


def _client_kind(name: str) -> Kind:
    from kafka_meta.testing.conformance import client_check

    return Kind(f"assignor {name}", client_group, lambda g: g.request(name),
                lambda g: client_check.ours(name, g), client_check.theirs)


def _server_kind(name: str) -> Kind:
    from kafka_meta.testing.conformance import server_check

    return Kind(f"assignor {name} (server)", server_group, lambda g: g.request(name),
                lambda g: server_check.ours(name, g), server_check.theirs)


def _task_kind(name: str) -> Kind:
    from kafka_meta.testing.conformance import task_check

    return Kind(f"assignor {name} (streams)", lambda rng: task_group(rng, name), lambda g: g.request(name),
                lambda g: task_check.ours(name, g), task_check.theirs)


def kinds() -> list[Kind]:
    return ([_client_kind(n) for n in CLIENT_ASSIGNORS] + [_server_kind(n) for n in SERVER_ASSIGNORS]
            + [_task_kind(n) for n in TASK_ASSIGNORS])


def types() -> list[str]:
    """Every assignor type ``run`` knows, as ``Result.type`` names them."""
    return [k.type for k in kinds()]


def _ours(kind: Kind, case: Any) -> Outcome:
    try:
        return Outcome(kind.ours(case))
    except AssignmentFailed as e:
        return Outcome(error=e.failure.exception)


def _theirs(kind: Kind, case: Any, answer: Any) -> Outcome:
    if not answer.ok:
        return Outcome(error=(answer.error or "").split(":", 1)[0])
    return Outcome(kind.theirs(case, answer.result))


def _first_difference(ours: Any, theirs: Any) -> dict[str, Any]:
    """Where two assignments part: the first member whose share differs, with both shares."""
    if isinstance(ours, Mapping) and isinstance(theirs, Mapping):
        for key in sorted(set(ours) | set(theirs), key=str):
            if ours.get(key) != theirs.get(key):
                return {"at": key, "ours": ours.get(key), "kafka": theirs.get(key)}
    return {"ours": ours, "kafka": theirs}


def check(kind: Kind, cases: Iterable[Any], answers: Iterable[Any], result: Result) -> None:
    for case, answer in zip(cases, answers, strict=True):
        result.cases += 1
        theirs = _theirs(kind, case, answer)
        ours = _ours(kind, case)
        if theirs.error is not None:
            result.kafka_refusals += 1
        if ours.error is not None:
            result.our_refusals += 1
        if ours == theirs:
            result.identical += 1
            continue
        if theirs.error is not None and ours.error is None:
            what = f"Kafka throws {theirs.error}, we assign"
        elif ours.error is not None and theirs.error is None:
            what = f"we refuse ({ours.error}), Kafka assigns"
        else:
            what = "assignment differs"
        example = {"case": kind.request(case), **_first_difference(ours.assignment, theirs.assignment)}
        if theirs.error or ours.error:
            example.update(ours_error=ours.error, kafka_error=theirs.error)
        result.differ(what, example, DELIBERATE.get(kind.type))


def run(peer: Any, cases: int, types: set[str] | None = None, seed: int = 0) -> list[Result]:
    """``cases`` random groups through each assignor (all, or those whose type is in ``types``)."""
    results = []
    for kind in kinds():
        if types is not None and kind.type not in types:
            continue
        rng = random.Random(f"{seed}/{kind.type}")
        result = Result(kind.type)
        done = 0
        while done < cases:
            batch = [kind.draw(rng) for _ in range(min(BATCH, cases - done))]
            answers = list(peer.many(kind.request(case) for case in batch))
            check(kind, batch, answers, result)
            done += len(batch)
        results.append(result)
    return results
