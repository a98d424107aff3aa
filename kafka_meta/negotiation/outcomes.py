"""What Kafka's Java code does when a rule refuses something, as data.

A negotiation rule never raises for a refusal that Kafka itself produces: a rejected ``upgrade.from``, a
failing ``assign()``, an assignment a member cannot accept are *outcomes*, returned as a
:class:`JavaFailure` naming the exception Kafka throws, the component that throws it, and why. Python
exceptions (:class:`NegotiationError`) are kept for input kafka_meta cannot judge at all, and for an
``assign()`` that Kafka never finishes (:class:`AssignmentNeverEnds`): there is no outcome to return.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_meta.errors import KafkaMetaError


class NegotiationError(KafkaMetaError, ValueError):
    """Facts that no Kafka release could have produced, or that kafka_meta has no rules for."""


@dataclass(frozen=True)
class JavaFailure:
    """A refusal as Kafka reports it: ``ConfigException`` thrown by ``StreamsConfig`` because ..."""

    exception: str
    raised_by: str
    reason: str

    def __str__(self) -> str:
        return f"{self.exception} from {self.raised_by}: {self.reason}"


class AssignmentFailed(NegotiationError):
    """Kafka's own ``assign()`` throws for these facts; :attr:`failure` names what it throws and why."""

    def __init__(self, failure: JavaFailure) -> None:
        super().__init__(str(failure))
        self.failure = failure


class AssignmentNeverEnds(NegotiationError):
    """Kafka's own ``assign()`` never returns for these facts: the sticky assignors' balancing (both of them run
    ``AbstractStickyAssignor``'s) repeats itself forever.

    Not an :class:`AssignmentFailed`: Kafka throws nothing, so there is no :class:`JavaFailure` to report. A Java
    leader stays in the loop and its group never gets a SyncGroup; doing the same would hang the caller, so the
    project stops as soon as the loop is certain and says so.
    """

    def __init__(self, members: int, partitions: int) -> None:
        self.members = members
        self.partitions = partitions
        super().__init__(
            f"the sticky assignor's balancing loops without end on this group of {members} members and {partitions} "
            "partitions (Kafka's AbstractStickyAssignor does the same; a Java leader would never send its SyncGroup)")
