"""Differential conformance of the assignors: random groups through Kafka's assignor classes and the project's.

For each assignor type (``"assignor range"``, ``"assignor uniform (server)"``, ``"assignor high-availability
(streams)"``, ...) ``run`` draws groups from one seeded generator, sends them to the Java peer in one pipelined
batch, runs the project's assignor on the same facts and compares the outcome member by member: the set of
partitions (or active and standby tasks) each member gets, the partitions transferring ownership where Kafka
reports them, and refusals (Kafka throwing, the project raising ``AssignmentFailed``) by exception name. A group
that keeps an assignor busy for good (:mod:`~kafka_meta.testing.conformance.deadline`) is agreement when neither
side finishes it (the project's side says so itself where it detects the loop: ``AssignmentNeverEnds``). The
order of partitions inside one member's list is not compared (it is not part of what an assignment means:
Kafka's follows the iteration order of maps of topic names).

A difference the project makes on purpose is counted with its documented reason (docs/conformance.md) and
does not count as unexplained; :data:`DELIBERATE` lists them (none today).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.negotiation.outcomes import AssignmentFailed, AssignmentNeverEnds
from kafka_meta.testing.conformance import deadline, refusals
from kafka_meta.testing.conformance.client_groups import CLIENT_ASSIGNORS, client_group
from kafka_meta.testing.conformance.engine import run_in_batches
from kafka_meta.testing.conformance.results import Result, what_differs
from kafka_meta.testing.conformance.server_groups import SERVER_ASSIGNORS, server_group
from kafka_meta.testing.conformance.task_groups import TASK_ASSIGNORS, task_group

BATCH = 200   # cases sent to the peer at once

DELIBERATE: dict[str, str] = {}


@dataclass(frozen=True)
class Outcome:
    """One side's answer for one case: the assignment as comparable values, or the exception thrown."""

    assignment: Any = None
    error: str | None = None  # the exception's class
    # where it was thrown: Kafka's side, its classes on the stack (innermost first); the project's side, the class
    # it names as the thrower (JavaFailure.raised_by). Compared by :func:`same`, not by equality.
    where: tuple[str, ...] = field(default=(), compare=False)


def same(ours: Outcome, theirs: Outcome) -> bool:
    """Both assign alike, or both throw the same exception from the same class of Kafka's: the one the project
    names as the thrower is on Kafka's stack (a refusal for another reason, thrown elsewhere, is a difference)."""
    if ours != theirs:
        return False
    if ours.error is None or ours.error == deadline.UNFINISHED:
        return True
    return any(thrower == frame or frame.endswith("." + thrower) for thrower in ours.where for frame in theirs.where)


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


def _ours(kind: Kind, case: Any, seconds: float = deadline.OURS_FIRST_S) -> Outcome:
    """The project's answer. A loop the project detects is shown as a timeout: Kafka's side of the same group can
    only time out, and both not finishing is agreement."""
    try:
        return Outcome(deadline.limited(seconds, lambda: kind.ours(case)))
    except AssignmentFailed as e:
        return Outcome(error=e.failure.exception, where=(e.failure.raised_by,))
    except (deadline.Unfinished, AssignmentNeverEnds):
        return Outcome(error=deadline.UNFINISHED)


def _theirs(kind: Kind, case: Any, answer: Any) -> Outcome:
    if answer.timeout:
        return Outcome(error=deadline.UNFINISHED)
    if not answer.ok:
        return Outcome(error=(answer.error or "").split(":", 1)[0], where=refusals.thrown_in(answer.error or ""))
    return Outcome(kind.theirs(case, answer.result))


def _first_difference(ours: Any, theirs: Any) -> dict[str, Any]:
    """Where two assignments part: the first member whose share differs, with both shares."""
    if isinstance(ours, Mapping) and isinstance(theirs, Mapping):
        for key in sorted(set(ours) | set(theirs), key=str):
            if ours.get(key) != theirs.get(key):
                return {"at": key, "ours": ours.get(key), "kafka": theirs.get(key)}
    return {"ours": ours, "kafka": theirs}


def check(kind: Kind, cases: Iterable[Any], answers: Iterable[Any], result: Result,
          outcomes: Iterable[Outcome] | None = None) -> None:
    """Compare each case's two outcomes (``outcomes``: the project's, when already computed) and tally them.

    The project's side runs under a time limit that suffices for any group that ends; where it did not finish,
    Kafka's side decides: it did not finish either (both loop: agreement), or it did, and the project's side runs
    again with the long limit that only guards the run against hanging."""
    ours_given = list(outcomes) if outcomes is not None else None
    for n, (case, answer) in enumerate(zip(cases, answers, strict=True)):
        result.cases += 1
        theirs = _theirs(kind, case, answer)
        ours = ours_given[n] if ours_given is not None else _ours(kind, case)
        if ours.error == deadline.UNFINISHED and theirs.error != deadline.UNFINISHED:
            ours = _ours(kind, case, deadline.OURS_S)
        if theirs.error is not None:
            result.kafka_refusals += 1
        if ours.error is not None:
            result.our_refusals += 1
        if same(ours, theirs):
            if ours.error == deadline.UNFINISHED:
                result.unfinished += 1
            elif ours.error is not None:
                result.both_refused += 1
            else:
                result.identical += 1
            continue
        what = what_differs(theirs.error, ours.error, "assign", "assigns",
                            "both throw, but not the same exception from the same class", "assignment differs")
        example = {"case": kind.request(case), **_first_difference(ours.assignment, theirs.assignment)}
        if theirs.error or ours.error:
            example.update(ours_error=ours.error, kafka_error=theirs.error)
        result.differ(what, example, DELIBERATE.get(kind.type))


def run(peer: Any, cases: int, types: set[str] | None = None, seed: int = 0,
        shard: tuple[int, int] = (0, 1)) -> list[Result]:
    """``cases`` random groups through each assignor (all, or those whose type is in ``types``; of those, the ones
    in ``shard``)."""
    def check_batch(kind: Any, batch: list[Any], result: Result) -> None:
        submitted = peer.submit({**kind.request(case), "deadlineMs": deadline.KAFKA_MS} for case in batch)
        outcomes = [_ours(kind, case) for case in batch]   # while Kafka's code works on the same batch
        check(kind, batch, submitted.answers(), result, outcomes)

    return run_in_batches(kinds(), cases, types, seed, shard, BATCH, check_batch)
