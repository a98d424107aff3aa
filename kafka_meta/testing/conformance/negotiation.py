"""Differential conformance of the version negotiation: the project's rules against Kafka's own
StreamsPartitionAssignor (4.4, through the Java peer), case by case.

Four types, each with cases drawn from one seeded generator (:mod:`.negotiation_cases`) and sent to the peer in
pipelined batches:

* ``streams leader 4.4``: a group's subscriptions (members of releases 0.10.0 - 4.4 and future code, with their
  ``upgrade.from``, and a few malformed ones) decided by a 4.4 leader: what it encodes for each member, whether
  it is version probing, or the exception ``assign()`` throws;
* ``streams member 4.4``: what a 4.4 member does with the AssignmentInfo that a leader of some release sends it;
* ``upgrade.from 4.4``: which values 4.4 accepts, the version it then subscribes with and its protocols;
* ``RebalanceProtocol.forId``: protocol ids, and Kafka's refusal of an unknown one.

Both sides are compared as :mod:`.negotiation_sides` describes. A difference the project makes on purpose is
counted with its documented reason (docs/conformance.md, "Negotiation"); :data:`DELIBERATE` lists them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kafka_meta.testing.conformance import negotiation_cases as draw
from kafka_meta.testing.conformance import negotiation_sides as sides
from kafka_meta.testing.conformance import refusals
from kafka_meta.testing.conformance.engine import run_in_batches
from kafka_meta.testing.conformance.results import Result, what_differs

BATCH = 500   # cases sent to the peer at once

DELIBERATE: dict[tuple[str, str], str] = {}
"""(type, kind of difference) -> the documented reason the project differs on purpose (none today)."""


@dataclass(frozen=True)
class Kind:
    """One decision under test: how to draw a case, and each side's answer to it."""

    type: str
    draw: Callable[[random.Random], Any]
    ours: Callable[[Any], sides.Outcome]
    theirs: Callable[[Any], sides.Outcome]


KINDS = (
    Kind("streams leader 4.4", draw.draw_leader, sides.ours_leader, sides.theirs_leader),
    Kind("streams member 4.4", draw.draw_member, sides.ours_member, sides.theirs_member),
    Kind("upgrade.from 4.4", draw.draw_upgrade_from, sides.ours_upgrade_from, sides.theirs_upgrade_from),
    Kind("RebalanceProtocol.forId", draw.draw_protocol_id, sides.ours_protocol_id, sides.theirs_protocol_id),
)

FULL_MESSAGES = {"RebalanceProtocol.forId"}
"""Types whose refusals are compared with their message, not just the exception class."""


def types() -> list[str]:
    """Every type ``run`` knows, as ``Result.type`` names them."""
    return [k.type for k in KINDS]


def _theirs(kind: Kind, answer: Any) -> sides.Outcome:
    if not answer.ok:
        error = refusals.THROWN_IN.sub("", answer.error or "")  # the message as Kafka's exception says it
        return sides.Outcome(error=error if kind.type in FULL_MESSAGES else error.split(":", 1)[0])
    return kind.theirs(answer.result)


def check(kind: Kind, cases: Iterable[Any], answers: Iterable[Any], result: Result) -> None:
    """Compare each case's two sides and count the outcome into ``result``."""
    for case, answer in zip(cases, answers, strict=True):
        result.cases += 1
        theirs = _theirs(kind, answer)
        ours = kind.ours(case)
        if theirs.error is not None:
            result.kafka_refusals += 1
        if ours.error is not None:
            result.our_refusals += 1
        if ours == theirs:
            if ours.error is not None:
                result.both_refused += 1
            else:
                result.identical += 1
            continue
        what = what_differs(theirs.error and theirs.error.split(":", 1)[0], ours.error and ours.error.split(":", 1)[0],
                            "decide", "decides", "a different refusal", "decision differs")
        example = {"case": case.request(), "ours": ours.error or ours.decision,
                   "kafka": theirs.error or theirs.decision}
        result.differ(what, example, DELIBERATE.get((kind.type, what)))


def run(peer: Any, cases: int, types: set[str] | None = None, seed: int = 0,
        shard: tuple[int, int] = (0, 1)) -> list[Result]:
    """``cases`` cases of each type (all, or those named in ``types``; of those, the ones in ``shard``), drawn
    reproducibly from ``seed``."""
    def check_batch(kind: Any, batch: list[Any], result: Result) -> None:
        check(kind, batch, peer.many(case.request() for case in batch), result)

    return run_in_batches(KINDS, cases, types, seed, shard, BATCH, check_batch)
