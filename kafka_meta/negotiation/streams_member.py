"""What a Streams member does with the AssignmentInfo it receives (section 5.1 B), per member release.

Given the member's release (its code's latest version ``M``), the version ``u`` it sent and the assignment's
``r``/``c``/error code, :func:`decide_member` returns the action in Kafka's order of checks: keep the error
code; reject (decode error, fatal exception); downgrade and rejoin; upgrade (at the next rebalance before
KAFKA-8649, with a rejoin after it); or accept.

KAFKA-8649 ("send latest commonly supported version in assignment") changed the 2.0-2.3 member in patch
releases: from 2.2.2 and 2.3.1 a member checks ``c > u`` first and treats it like version probing (switch,
return from ``onAssignment`` without applying the assignment, rejoin), where 2.0.x, 2.1.x, 2.2.0-2.2.1 and
2.3.0 switch silently at the next rebalance. The 2.1 branch got the fix too, but no release was cut from it
after 2.1.1. 2.4.0 shipped it as part of its own rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from kafka_meta.negotiation.facts import StreamsAssignment
from kafka_meta.negotiation.outcomes import JavaFailure, NegotiationError
from kafka_meta.negotiation.releases import Release, ReleaseTable
from kafka_meta.negotiation.streams_versions import StreamsParty, streams_code
from kafka_meta.streams.protocol import EARLIEST_PROBEABLE_VERSION, AssignorError

NO_FOLLOWUP_MS = 2**63 - 1
"""``Long.MAX_VALUE``: an AssignmentInfo ``nextRebalanceMs`` that schedules nothing."""


class Action(Enum):
    ACCEPT = "accept"
    ERROR = "keep the assignment error"
    FAIL = "fail"
    DOWNGRADE = "downgrade and rejoin"
    UPGRADE = "upgrade"


class Rejoin(Enum):
    NONE = "no rebalance"
    NEXT_REBALANCE = "the new version is used from the next rebalance; none is triggered"
    VERSION_PROBING = "rejoin, triggered through the local VERSION_PROBING code"
    IMMEDIATE = "immediate rejoin (next scheduled rebalance set to 0)"
    SCHEDULED = "a probing rebalance is scheduled (KIP-441)"


class VersionOrder(Enum):
    DOWNGRADE_FIRST = "r < u is checked before c > u (2.0.0 - 2.2.1, 2.3.0)"
    UPGRADE_FIRST = "c > u is checked before r < u (2.2.2+, 2.3.1+, 2.4+)"


@dataclass(frozen=True)
class MemberRules:
    era: str
    has_probing: bool                # 2.0+: versions 3+ carry a second field and drive version changes
    r_above_u: str                   # the exception a too-new assignment version raises
    checks_c_above_m: bool           # 2.4+
    order: VersionOrder
    downgrade_applies: bool          # 2.4+: the assignment is applied before rejoining
    rejoin: Rejoin                   # how a version change brings the member back
    upgrade_rejoins: bool            # 2.2.2+, 2.3.1+, 2.4+: a c > u upgrade rejoins at once
    followup_from_assignment: bool   # 2.6+: nextRebalanceMs == 0 / missing endpoint force a rejoin
    upgrade_applies: bool = True     # 2.2.2 - 2.3.x: an upgrade returns from onAssignment before applying


_BEFORE_KAFKA_8649 = MemberRules(
    "2.0.0 - 2.2.1, 2.3.0", True, "IllegalStateException", False, VersionOrder.DOWNGRADE_FIRST, False,
    Rejoin.VERSION_PROBING, False, False)
_AFTER_KAFKA_8649 = MemberRules(
    # c > M is not checked: unobservable here, since no leader writes a c above 4 for a latest-4 member
    # (leaders before the fix have latest 3 or 4, those after it write the group's minimum)
    "2.2.2 - 2.2.x, 2.3.1 - 2.3.x", True, "IllegalStateException", False, VersionOrder.UPGRADE_FIRST, False,
    Rejoin.VERSION_PROBING, True, False, upgrade_applies=False)

MEMBER_RULES: ReleaseTable[MemberRules] = ReleaseTable("Streams member rules", [
    ("0.10.0", MemberRules("0.10.0 - 1.1", False, "", False, VersionOrder.DOWNGRADE_FIRST, False, Rejoin.NONE,
                           False, False)),
    ("2.0", _BEFORE_KAFKA_8649),
    ("2.2.2", _AFTER_KAFKA_8649),     # KAFKA-8649 backported to the 2.2 branch
    ("2.3.0", _BEFORE_KAFKA_8649),
    ("2.3.1", _AFTER_KAFKA_8649),     # and to the 2.3 branch
    ("2.4", MemberRules("2.4 - 2.5", True, "TaskAssignmentException", True, VersionOrder.UPGRADE_FIRST, True,
                        Rejoin.VERSION_PROBING, True, False)),
    ("2.6", MemberRules("2.6+", True, "TaskAssignmentException", True, VersionOrder.UPGRADE_FIRST, True,
                        Rejoin.IMMEDIATE, True, True)),
])


@dataclass(frozen=True)
class MemberDecision:
    release: Release
    latest: int
    used_version: int
    action: Action
    next_version: int
    applies_assignment: bool
    rejoin: Rejoin
    step: str
    reason: str
    error_code: int = 0
    failure: JavaFailure | None = None
    next_subscription_failure: JavaFailure | None = None
    probing_rebalance_at_ms: int | None = None

    @property
    def rebalances(self) -> bool:
        """Whether this member's decision starts another rebalance by itself."""
        return self.rejoin in (Rejoin.VERSION_PROBING, Rejoin.IMMEDIATE)


def decide_member(member_release: StreamsParty, used_version: int, assignment: StreamsAssignment, *,
                  own_endpoint_missing: bool = False) -> MemberDecision:
    """Section 5.1 B: the member's checks in Kafka's order for its release (or future code, see
    :func:`~kafka_meta.negotiation.streams_versions.streams_code`)."""
    code = streams_code(member_release)
    rel, M = code.release, code.latest
    if not 1 <= used_version <= M:
        raise NegotiationError(f"a {code} member (latest version {M}) cannot have sent version {used_version}")
    rules = MEMBER_RULES[rel]
    r, c, u = assignment.version, assignment.commonly_supported_version, used_version

    def decision(action: Action, step: str, reason: str, *, next_version: int = u, applies: bool = True,
                 rejoin: Rejoin = Rejoin.NONE, failure: JavaFailure | None = None, error_code: int = 0,
                 ) -> MemberDecision:
        later = None
        if next_version > M:
            later = JavaFailure("IllegalStateException", "SubscriptionInfo.encode",
                                f"unknown metadata version {next_version}; latest supported version {M}")
            reason += (f"; its next subscription fails: the {code} code cannot write version {next_version} "
                       f"(\"used version {next_version}; latest supported version {M}\")")
        probing_at = assignment.next_rebalance_ms if rejoin is Rejoin.SCHEDULED else None
        return MemberDecision(rel, M, u, action, next_version, applies, rejoin, step, reason, error_code, failure,
                              later, probing_at)

    # 2. decode: Java decodes the AssignmentInfo before anything else, so an undecodable one hides its
    #    error code too
    if not 1 <= r <= M:
        return decision(Action.FAIL, "2", f"assignment version {r} is outside 1 - {M}: the {code} member cannot "
                        f"decode it", applies=False,
                        failure=JavaFailure("TaskAssignmentException", "AssignmentInfo.decode",
                                            f"unable to decode assignment data: used version {r}; latest supported "
                                            f"version {M}"))
    # 1. error code: no version check, no version change
    if assignment.error_code != AssignorError.NONE:
        return decision(Action.ERROR, "1", f"error assignment {AssignorError.describe(assignment.error_code)}: the "
                        f"member stores the code and stops; no version change", applies=False,
                        error_code=assignment.error_code)
    if not rules.has_probing:
        return decision(Action.ACCEPT, "7", f"version {r} assignment accepted (no version probing before 2.0)")
    # 3. r > u
    if r > u:
        return decision(Action.FAIL, "3", f"assignment version {r} is above the version {u} the member sent",
                        applies=False, failure=JavaFailure(rules.r_above_u, "StreamsPartitionAssignor.onAssignment",
                                                           f"sent a version {u} subscription but got an assignment "
                                                           f"with higher version {r}"))
    # 4. c > M
    if rules.checks_c_above_m and r >= EARLIEST_PROBEABLE_VERSION and c > M:
        return decision(Action.FAIL, "4", f"commonly supported version {c} is above the member's latest {M}",
                        applies=False,
                        failure=JavaFailure("TaskAssignmentException", "StreamsPartitionAssignor.onAssignment",
                                            f"sent a version {u} subscription but got an assignment whose commonly "
                                            f"supported version {c} exceeds the latest supported version {M}"))
    if r < EARLIEST_PROBEABLE_VERSION:
        followup = _followup(rules, assignment, own_endpoint_missing)
        return decision(Action.ACCEPT, "7", f"version {r} assignment (below 3: no version probing) accepted; the "
                        f"member keeps version {u}", rejoin=followup or Rejoin.NONE)
    downgrade = r < u
    upgrade = c > u
    for check in (("6", "5") if rules.order is VersionOrder.UPGRADE_FIRST else ("5", "6")):
        if check == "5" and downgrade:
            applies = rules.downgrade_applies
            return decision(Action.DOWNGRADE, "5",
                            f"sent version {u}, got version {r} (successful version probing): switches to "
                            f"version {c}"
                            + ("" if c != u else " (the version it already uses)")
                            + (", applies the assignment" if applies else ", does not apply the assignment")
                            + " and rejoins", next_version=c, applies=applies, rejoin=rules.rejoin)
        if check == "6" and upgrade:
            if rules.upgrade_rejoins:
                applies = rules.upgrade_applies
                return decision(Action.UPGRADE, "6", f"sent version {u}, the group now supports version {c} (end of "
                                f"the rolling upgrade): switches to version {c}"
                                + ("" if applies else ", does not apply the assignment") + " and rejoins",
                                next_version=c, applies=applies, rejoin=rules.rejoin)
            return decision(Action.UPGRADE, "6", f"sent version {u}, the leader supports version {c}: uses version "
                            f"{c} from the next rebalance, without triggering one", next_version=c,
                            rejoin=Rejoin.NEXT_REBALANCE)
    followup = _followup(rules, assignment, own_endpoint_missing)
    return decision(Action.ACCEPT, "-", f"version {r} assignment accepted at version {u}",
                    rejoin=followup or Rejoin.NONE)


def _followup(rules: MemberRules, assignment: StreamsAssignment, own_endpoint_missing: bool) -> Rejoin | None:
    """2.6+: the assignment itself can ask for a rejoin (nextRebalanceMs == 0, own endpoint missing) or
    schedule a KIP-441 probing rebalance."""
    if not rules.followup_from_assignment:
        return None
    if own_endpoint_missing or assignment.next_rebalance_ms == 0:
        return Rejoin.IMMEDIATE
    # any other value below Long.MAX_VALUE is a time to rebalance at, even one already past (Kafka 4.4 stores it)
    if assignment.next_rebalance_ms is not None and assignment.next_rebalance_ms < NO_FOLLOWUP_MS:
        return Rejoin.SCHEDULED
    return None
