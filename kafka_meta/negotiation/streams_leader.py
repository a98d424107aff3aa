"""The Streams group leader's version rules (section 5.1 A of the wire-format notes), per leader release.

Given the members' decoded subscriptions, :func:`decide_leader` says what the leader's
``StreamsPartitionAssignor.assign()`` does: the version ``r`` and commonly supported version ``c`` it
encodes for each member, whether it probes (and how: empty assignments in 2.0-2.3, a pooled synthetic
client from 2.4), the error assignments and their precedence, or that ``assign()`` throws. Which tasks a
member gets is not decided here (that is the task assignor's business); the plan says only what *kind* of
assignment each member receives.

The per-release differences are one table of :class:`LeaderRules`; the function reads it and never tests a
release number itself. One difference arrived in patch releases: KAFKA-8649 and KAFKA-9053 made the leader
write the group's commonly supported version (the minimum latest version) instead of its own latest from
2.2.2 and 2.3.1 (2.0.x, 2.1.x, 2.2.0-2.2.1 and 2.3.0 write their own; 2.4.0 has the fix).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from kafka_meta.negotiation.facts import StreamsSubscription
from kafka_meta.negotiation.outcomes import JavaFailure, NegotiationError
from kafka_meta.negotiation.releases import Release, ReleaseTable
from kafka_meta.negotiation.streams_versions import (
    FIRST_SUBSCRIPTION_VERSION_WITH_ERROR_CODE,
    StreamsParty,
    streams_code,
)
from kafka_meta.streams.protocol import EARLIEST_PROBEABLE_VERSION, UNKNOWN, AssignorError


class FutureHandling(Enum):
    """What a leader does with a subscription newer than its code (``u > L``)."""

    UNDECODABLE = "the subscription cannot be decoded (no version probing before 2.0)"
    EMPTY_ASSIGNMENT = "future members get an empty assignment; the others keep their previous tasks"
    POOLED = "future members are pooled into one synthetic client and get real tasks"


class FutureWithLegacy(Enum):
    """What a leader does when a future subscription meets a version 1/2 one."""

    THROWS = "assign() throws IllegalStateException; no assignment is sent"
    ERROR_ASSIGNMENT = "every member gets an ASSIGNMENT_ERROR (3) assignment"


class CommonlySupported(Enum):
    """What the leader writes as ``c`` (the AssignmentInfo's second field) in normal assignments."""

    ABSENT = "no such field (versions 1 and 2 only)"
    LEADER_LATEST = "the leader's own latest version"
    MIN_SUPPORTED = "the minimum latestSupportedVersion over all members and the leader"


@dataclass(frozen=True)
class LeaderRules:
    era: str
    future: FutureHandling
    future_with_legacy: FutureWithLegacy
    commonly_supported: CommonlySupported
    validates_subscriptions: bool      # inconsistent version pairs fail in the decoder (2.5+)
    shutdown_first: bool               # KIP-671 shutdown requests beat every version rule (2.8+)
    probing_reports_unstable: bool     # the leader also marks a probing assignment unstable (2.7+)


_BEFORE_KAFKA_8649 = LeaderRules("2.0.0 - 2.2.1, 2.3.0", FutureHandling.EMPTY_ASSIGNMENT, FutureWithLegacy.THROWS,
                                 CommonlySupported.LEADER_LATEST, False, False, False)
_AFTER_KAFKA_8649 = LeaderRules("2.2.2 - 2.2.x, 2.3.1 - 2.3.x", FutureHandling.EMPTY_ASSIGNMENT,
                                FutureWithLegacy.THROWS, CommonlySupported.MIN_SUPPORTED, False, False, False)

LEADER_RULES: ReleaseTable[LeaderRules] = ReleaseTable("Streams leader rules", [
    ("0.10.0", LeaderRules("0.10.0 - 1.1", FutureHandling.UNDECODABLE, FutureWithLegacy.THROWS,
                           CommonlySupported.ABSENT, False, False, False)),
    ("2.0", _BEFORE_KAFKA_8649),
    ("2.2.2", _AFTER_KAFKA_8649),     # KAFKA-8649 + KAFKA-9053 on the 2.2 branch
    ("2.3.0", _BEFORE_KAFKA_8649),
    ("2.3.1", _AFTER_KAFKA_8649),     # and on the 2.3 branch
    ("2.4", LeaderRules("2.4", FutureHandling.POOLED, FutureWithLegacy.THROWS,
                        CommonlySupported.MIN_SUPPORTED, False, False, False)),
    ("2.5", LeaderRules("2.5 - 2.6", FutureHandling.POOLED, FutureWithLegacy.THROWS,
                        CommonlySupported.MIN_SUPPORTED, True, False, False)),
    ("2.7", LeaderRules("2.7", FutureHandling.POOLED, FutureWithLegacy.ERROR_ASSIGNMENT,
                        CommonlySupported.MIN_SUPPORTED, True, False, True)),
    ("2.8", LeaderRules("2.8+", FutureHandling.POOLED, FutureWithLegacy.ERROR_ASSIGNMENT,
                        CommonlySupported.MIN_SUPPORTED, True, True, True)),
])


class Outcome(Enum):
    ASSIGNED = "assigned"
    ERROR_ASSIGNMENTS = "error assignments"
    ASSIGN_FAILS = "assign() fails"


class TaskPlan(Enum):
    """The kind of assignment a member gets."""

    COMPUTED = "a normal task assignment"
    POOLED = "a normal task assignment, as part of the pooled future client"
    PREVIOUS = "its previous tasks, unchanged (no new assignment is computed while probing)"
    EMPTY = "an empty assignment (version probing)"
    NONE = "no partitions and no tasks (error assignment)"


@dataclass(frozen=True)
class MemberPlan:
    """What the leader encodes for one member."""

    member_id: str
    version: int
    commonly_supported_version: int
    error_code: int
    tasks: TaskPlan
    future: bool


@dataclass(frozen=True)
class LeaderDecision:
    leader_release: Release
    latest: int
    rules: LeaderRules
    outcome: Outcome
    members: dict[str, MemberPlan]
    min_received: int | None = None
    min_supported: int | None = None
    probing: bool = False      # a version-probing rebalance as Kafka's assign() reaches it; never for errors
    host_maps: bool = False
    reports_unstable: bool = False
    failure: JavaFailure | None = None
    steps: list[str] = field(default_factory=list)
    followup_by: tuple[str, ...] = ()

    @property
    def followup(self) -> bool:
        """Whether the assignment leads to another rebalance: members that switch versions rejoin
        (section 5.1 B), which the leader can foresee from each member's advertised latest version."""
        return bool(self.followup_by)

    @property
    def summary(self) -> str:
        return self.steps[-1] if self.steps else self.outcome.value


def is_inconsistent(sub: StreamsSubscription) -> str | None:
    """Why a (version, latestSupportedVersion) pair cannot come from a correct writer, or None."""
    u, s = sub.used_version, sub.latest_supported_version
    if u < 1:
        return f"version {u} is below 1"
    if u < EARLIEST_PROBEABLE_VERSION:
        return None if s == UNKNOWN else f"version {u} carries latestSupportedVersion {s} (versions 1-2 have none)"
    if s == UNKNOWN:
        return f"version {u} lacks latestSupportedVersion"
    if s < u:
        return f"latestSupportedVersion {s} is below the version {u} it was written at"
    return None


def decide_leader(leader_release: StreamsParty, subscriptions: Sequence[StreamsSubscription]) -> LeaderDecision:
    """What a leader running ``leader_release`` does with these subscriptions (section 5.1 A, in order).

    The leader is a release or future code named by its latest version (:func:`streams_code`): future code
    follows the newest release's rules with its own latest version, as Kafka's system tests run it.
    """
    code = streams_code(leader_release)
    rel = code.release
    if not subscriptions:
        raise NegotiationError("a Streams group needs at least one subscription")
    ids = [s.member_id for s in subscriptions]
    if len(set(ids)) != len(ids):
        raise NegotiationError("member ids must be unique")
    L = code.latest
    rules = LEADER_RULES[rel]
    steps: list[str] = []

    def fails(failure: JavaFailure, why: str) -> LeaderDecision:
        steps.append(why)
        return LeaderDecision(rel, L, rules, Outcome.ASSIGN_FAILS, {}, failure=failure, steps=steps)

    # 1. decode every subscription (from 2.5 the decoder's own check of the two version fields refuses a version
    #    below 1 too: Kafka 4.4 throws IllegalArgumentException for a version 0 subscription)
    for sub in subscriptions:
        if rules.validates_subscriptions and (why := is_inconsistent(sub)) is not None:
            return fails(JavaFailure("IllegalArgumentException", "SubscriptionInfo (decoder)",
                                     f"{sub.member_id}: {why}"),
                         f"{sub.member_id}'s subscription is inconsistent ({why}); the decoder throws and "
                         f"assign() fails without error assignments")
        if sub.used_version < 1:
            return fails(JavaFailure("TaskAssignmentException", "SubscriptionInfo.decode",
                                     f"unable to decode subscription data: version {sub.used_version}"),
                         f"{sub.member_id}'s subscription version {sub.used_version} cannot be decoded")
        if sub.used_version > L and rules.future is FutureHandling.UNDECODABLE:
            return fails(JavaFailure("TaskAssignmentException", "SubscriptionInfo.decode",
                                     f"unable to decode subscription data: version={sub.used_version} "
                                     f"(leader {code} knows versions up to {L})"),
                         f"leader {code} (latest {L}) cannot decode {sub.member_id}'s version {sub.used_version} "
                         f"subscription: releases before 2.0 have no version probing")
    future = {s.member_id for s in subscriptions if s.used_version > L}
    known = [s for s in subscriptions if s.member_id not in future]
    min_received = min([L] + [s.used_version for s in known])
    min_supported = min([L] + [s.latest_supported_version for s in subscriptions])
    host_maps = min_received >= 2
    steps.append(f"leader {code} (latest version {L}, rules of {rules.era}): minimum used version {min_received}"
                 + (f", minimum supported version {min_supported}"
                    if rules.commonly_supported is CommonlySupported.MIN_SUPPORTED else ""))

    def error_assignments(code: AssignorError, why: str) -> LeaderDecision:
        steps.append(why)
        plans = {s.member_id: MemberPlan(s.member_id, L, L, int(code), TaskPlan.NONE, s.member_id in future)
                 for s in subscriptions}
        # Kafka's assign() returns the error assignments before it ever decides on version probing
        # (StreamsPartitionAssignor.assign: the shutdown check precedes checkMetadataVersions, whose
        # future-with-legacy TaskAssignmentException is caught into ASSIGNMENT_ERROR), so nothing probes.
        return LeaderDecision(rel, L, rules, Outcome.ERROR_ASSIGNMENTS, plans, min_received,
                              min_supported if rules.commonly_supported is CommonlySupported.MIN_SUPPORTED else None,
                              False, False, False, steps=steps)

    # a. shutdown request
    if rules.shutdown_first:
        asking = [s.member_id for s in known
                  if s.used_version >= FIRST_SUBSCRIPTION_VERSION_WITH_ERROR_CODE
                  and s.error_code == AssignorError.SHUTDOWN_REQUESTED]
        if asking:
            return error_assignments(AssignorError.SHUTDOWN_REQUESTED,
                                     f"{', '.join(asking)} requested an application shutdown: every member gets "
                                     f"error code 4, encoded at version {L}")
    # b./c. future subscriptions
    probing = bool(future)
    if probing and min_received < EARLIEST_PROBEABLE_VERSION:
        legacy = ", ".join(s.member_id for s in known if s.used_version < EARLIEST_PROBEABLE_VERSION)
        why = (f"future subscription(s) from {', '.join(sorted(future))} while {legacy} used version "
               f"{min_received}: version probing needs every member at version 3 or above")
        if rules.future_with_legacy is FutureWithLegacy.THROWS:
            return fails(JavaFailure("IllegalStateException", "StreamsPartitionAssignor.assign",
                                     f"a future subscription (version {max(s.used_version for s in subscriptions)})"
                                     f" and a version {min_received} subscription at the same time"), why)
        return error_assignments(AssignorError.ASSIGNMENT_ERROR,
                                 f"{why}; every member gets error code 3, encoded at version {L}")
    if rules.commonly_supported is CommonlySupported.MIN_SUPPORTED:
        c = min_supported
    elif rules.commonly_supported is CommonlySupported.LEADER_LATEST:
        c = L
    else:
        c = UNKNOWN
    plans: dict[str, MemberPlan] = {}
    for s in subscriptions:
        is_future = s.member_id in future
        if is_future and rules.future is FutureHandling.EMPTY_ASSIGNMENT:
            plans[s.member_id] = MemberPlan(s.member_id, L, L, 0, TaskPlan.EMPTY, True)
            continue
        if probing and rules.future is FutureHandling.EMPTY_ASSIGNMENT:
            kind = TaskPlan.PREVIOUS
        elif is_future:
            kind = TaskPlan.POOLED
        else:
            kind = TaskPlan.COMPUTED
        plans[s.member_id] = MemberPlan(s.member_id, min_received,
                                        c if min_received >= EARLIEST_PROBEABLE_VERSION else UNKNOWN, 0, kind,
                                        is_future)
    if probing and rules.future is FutureHandling.EMPTY_ASSIGNMENT:
        steps.append(f"version probing: {', '.join(sorted(future))} get(s) an empty assignment at version {L}; "
                     f"the others keep their tasks at version {min_received}")
    elif probing:
        steps.append(f"version probing: {', '.join(sorted(future))} pooled into one client; everyone gets version "
                     f"{min_received} with commonly supported version {c}")
    elif min_received >= EARLIEST_PROBEABLE_VERSION:
        minimum = rules.commonly_supported is CommonlySupported.MIN_SUPPORTED
        what = "commonly supported" if minimum else "leader's latest"
        steps.append(f"everyone gets version {min_received} with the {what} version {c}")
    else:
        steps.append(f"everyone gets version {min_received} (no commonly supported version below version 3)")
    followup_by = tuple(sub.member_id for sub in subscriptions if _rejoins(sub, plans[sub.member_id]))
    if followup_by:
        steps.append(f"follow-up rebalance expected: {', '.join(followup_by)} switch(es) versions and rejoin(s)"
                     + ("; the leader also reports the assignment as unstable"
                        if probing and rules.probing_reports_unstable else ""))
    return LeaderDecision(rel, L, rules, Outcome.ASSIGNED, plans, min_received,
                          min_supported if rules.commonly_supported is CommonlySupported.MIN_SUPPORTED else None,
                          probing, host_maps, probing and rules.probing_reports_unstable, steps=steps,
                          followup_by=followup_by)


FIRST_LATEST_WITH_UPGRADE_REJOIN = 5
"""Members whose code's latest version is 5 or more (2.4+) rejoin at once when told to upgrade. Of the members
with latest 4, 2.2.2+ and 2.3.1+ rejoin too while 2.1.x, 2.2.0-2.2.1 and 2.3.0 switch only at the next
rebalance; the subscription cannot tell them apart, so the leader's forecast counts only the 2.4+ ones."""


def _rejoins(sub: StreamsSubscription, plan: MemberPlan) -> bool:
    r, c, u = plan.version, plan.commonly_supported_version, sub.used_version
    if plan.error_code or r < EARLIEST_PROBEABLE_VERSION or r > u:
        return False
    if r < u:
        return True
    return c > u and sub.latest_supported_version >= FIRST_LATEST_WITH_UPGRADE_REJOIN
