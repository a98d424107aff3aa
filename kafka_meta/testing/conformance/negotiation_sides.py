"""Both sides of the negotiation check as comparable values: what the project's rules decide for a case, and
what Kafka's StreamsPartitionAssignor answered for it.

A side is an :class:`Outcome`: the decision as plain values, or the exception Kafka throws (the project's
:class:`~kafka_meta.negotiation.outcomes.JavaFailure` names it). Exceptions are compared by class, except for
``RebalanceProtocol.forId``, whose refusal the project words as Kafka does and which is compared in full. What is
compared of a decision:

* leader: per member the AssignmentInfo version, commonly supported version (as the member decodes it: unknown
  below version 3) and error code; and whether the assignment is stable, which for a first rebalance of a
  stateless topology means "not version probing" (Kafka reports nothing for error assignments);
* member: the version of its next subscription, whether it applied the assignment, the error code it keeps,
  and when it rebalances next (at once, at a scheduled time, or not);
* ``upgrade.from``: the version an instance subscribes with and its supported rebalance protocols.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_meta.negotiation.facts import StreamsAssignment
from kafka_meta.negotiation.outcomes import JavaFailure
from kafka_meta.negotiation.rebalance_protocol import rebalance_protocol_for_id
from kafka_meta.negotiation.streams_leader import Outcome as LeaderOutcome
from kafka_meta.negotiation.streams_leader import decide_leader
from kafka_meta.negotiation.streams_member import Rejoin, decide_member
from kafka_meta.negotiation.upgrade_from import decide_upgrade_from
from kafka_meta.streams.protocol import EARLIEST_PROBEABLE_VERSION, UNKNOWN
from kafka_meta.testing.conformance.negotiation_cases import (
    NO_FOLLOWUP_MS,
    PEER_RELEASE,
    LeaderCase,
    MemberCase,
    ProtocolIdCase,
    UpgradeFromCase,
)


@dataclass(frozen=True)
class Outcome:
    """One side's answer: the decision, or the exception (class, or ``Class: message`` where compared in full)."""

    decision: Any = None
    error: str | None = None


def _refused(failure: JavaFailure) -> Outcome:
    return Outcome(error=failure.exception)


def _refused_by_config(upgrade_from: str | None) -> Outcome | None:
    """The 4.4 instance's own ``upgrade.from`` refusal, which comes before anything else it does."""
    decision = decide_upgrade_from(PEER_RELEASE, upgrade_from)
    return _refused(decision.failure) if decision.failure is not None else None


def ours_leader(case: LeaderCase) -> Outcome:
    refused = _refused_by_config(case.upgrade_from)
    if refused is not None:
        return refused
    decision = decide_leader(PEER_RELEASE, [m.fact() for m in case.members])
    if decision.outcome is LeaderOutcome.ASSIGN_FAILS:
        assert decision.failure is not None
        return _refused(decision.failure)
    members = {}
    for member_id, plan in decision.members.items():
        commonly = plan.commonly_supported_version if plan.version >= EARLIEST_PROBEABLE_VERSION else UNKNOWN
        members[member_id] = (plan.version, commonly, plan.error_code)
    stable = None if decision.outcome is LeaderOutcome.ERROR_ASSIGNMENTS else not decision.reports_unstable
    return Outcome({"members": members, "stable": stable})


def theirs_leader(answer: dict[str, Any]) -> Outcome:
    members = {member_id: (a["version"], a["commonlySupportedVersion"], a["errorCode"])
               for member_id, a in answer["members"].items()}
    return Outcome({"members": members, "stable": answer["stable"]})


_REJOIN_AT = {Rejoin.NONE: "not scheduled", Rejoin.IMMEDIATE: "at once", Rejoin.VERSION_PROBING: "at once",
              Rejoin.SCHEDULED: "scheduled", Rejoin.NEXT_REBALANCE: "not scheduled"}


def ours_member(case: MemberCase) -> Outcome:
    refused = _refused_by_config(case.upgrade_from)
    if refused is not None:
        return refused
    assignment = StreamsAssignment(case.version, case.commonly_supported, case.error_code, case.next_rebalance_ms)
    decision = decide_member(PEER_RELEASE, case.used, assignment)
    if decision.failure is not None:
        return _refused(decision.failure)
    when = _REJOIN_AT[decision.rejoin]
    return Outcome({"next version": decision.next_version, "applied": decision.applies_assignment,
                    "error code": decision.error_code, "next rebalance": when,
                    "at": decision.probing_rebalance_at_ms if when == "scheduled" else None})


def theirs_member(answer: dict[str, Any]) -> Outcome:
    at = answer["nextRebalanceMs"]
    when = "at once" if at == 0 else "not scheduled" if at == NO_FOLLOWUP_MS else "scheduled"
    return Outcome({"next version": answer["nextVersion"], "applied": answer["applied"],
                    "error code": answer["errorCode"], "next rebalance": when,
                    "at": at if when == "scheduled" else None})


def ours_upgrade_from(case: UpgradeFromCase) -> Outcome:
    decision = decide_upgrade_from(PEER_RELEASE, case.value)
    if decision.failure is not None:
        return _refused(decision.failure)
    return Outcome({"subscription version": decision.subscription_version,
                    "supported protocols": [p.name for p in decision.supported_protocols]})


def theirs_upgrade_from(answer: dict[str, Any]) -> Outcome:
    return Outcome({"subscription version": answer["subscriptionVersion"],
                    "supported protocols": answer["supportedProtocols"]})


def ours_protocol_id(case: ProtocolIdCase) -> Outcome:
    found = rebalance_protocol_for_id(case.protocol_id)
    if isinstance(found, JavaFailure):
        return Outcome(error=f"{found.exception}: {found.reason}")
    return Outcome(found.name)


def theirs_protocol_id(answer: Any) -> Outcome:
    return Outcome(answer)
