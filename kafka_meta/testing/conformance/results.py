"""What one kind of check found for one type (a message, a record, an assignor): how many cases, how many
identical, and each difference with an example, so a table and a failure can both say it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SHOWN = 5  # examples kept of each kind of difference


@dataclass
class Difference:
    """One way the project and Kafka disagreed, with an example case; ``deliberate`` names the documented
    reason (docs/conformance.md) when the project differs on purpose."""

    what: str  # e.g. "bytes differ", "Kafka refuses, we read", "assignment differs"
    example: dict[str, Any] = field(default_factory=dict)
    count: int = 1
    deliberate: str | None = None


@dataclass
class Result:
    type: str  # the type or assignor, e.g. "ConsumerProtocolSubscription v3", "assignor range"
    cases: int = 0
    identical: int = 0  # cases whose values (bytes, decisions) both sides gave, compared equal
    both_refused: int = 0  # cases both sides refused, for the same reason (compared: see refusals.py)
    kafka_refusals: int = 0  # cases Kafka's code threw on (mutated bytes, values it will not write)
    our_refusals: int = 0  # cases the project refused (DecodeError, EncodeError, an assignor's error)
    unfinished: int = 0  # cases neither side finished in time (a column of their own: see deadline.py)
    differences: list[Difference] = field(default_factory=list)
    # why the type is listed apart from the headline (a retired record type Kafka 4.4 has no class for: its cases
    # can only show Kafka refusing the type), None for the types both sides describe
    apart: str | None = None

    def differ(self, what: str, example: dict[str, Any], deliberate: str | None = None) -> None:
        for d in self.differences:
            if d.what == what and d.deliberate == deliberate:
                d.count += 1
                return
        self.differences.append(Difference(what, example, 1, deliberate))

    @property
    def unexplained(self) -> int:
        return sum(d.count for d in self.differences if d.deliberate is None)

    @property
    def explained(self) -> int:
        return sum(d.count for d in self.differences if d.deliberate is not None)


# called with each type's result as soon as it is complete (the command's --progress); None: nobody listens
on_finished: Callable[[Result], None] | None = None


def what_differs(kafka_error: str | None, our_error: str | None, we: str, kafka: str, both_refuse: str,
                 neither_refuses: str) -> str:
    """How two outcomes that are not the same differ, in a family's words: one side refused (its error named)
    and the other acted (``we``: what the project did, ``kafka``: what Kafka did), both refused differently, or
    both acted differently."""
    if kafka_error is not None and our_error is None:
        return f"Kafka throws {kafka_error}, we {we}"
    if our_error is not None and kafka_error is None:
        return f"we refuse ({our_error}), Kafka {kafka}"
    return both_refuse if our_error is not None else neither_refuses


def finished(result: Result) -> Result:
    """A type's result is complete: tell whoever listens (a long run's progress), and hand it back."""
    if on_finished is not None:
        on_finished(result)
    return result
