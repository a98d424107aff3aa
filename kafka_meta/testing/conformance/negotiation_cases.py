"""The cases the negotiation check draws, and the requests that put them to Kafka's code (the peer's
``StreamsDecisions`` family: a StreamsPartitionAssignor of Kafka 4.4, as a leader and as a member).

The peer runs one release, so it decides for 4.4; what varies is everything that reaches it: the subscriptions
of members of any release (with their ``upgrade.from``), of future code, of a 4.4 member that probed down to an
older version, and a few no correct writer sends (a pair of versions that contradict each other, version 0, a
future subscription beside a version 1 or 2 one, a shutdown request); the assignments that leaders of any release
(the project's rules for that release say what they write) send to a 4.4 member, plus arbitrary ones; the
``upgrade.from`` values; and rebalance protocol ids. Every case holds only what its bytes can carry: no latest
supported version below version 3, no error code below 9 (subscriptions) or 4 (assignments), no
nextRebalanceMs below version 7.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from kafka_meta.negotiation.facts import StreamsSubscription
from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.streams_leader import Outcome, decide_leader
from kafka_meta.negotiation.streams_versions import streams_code
from kafka_meta.negotiation.upgrade_from import (
    COOPERATIVE_ERA,
    EAGER_ERA,
    PRE_2_0,
    accepted_values,
    decide_upgrade_from,
)
from kafka_meta.streams.protocol import EARLIEST_PROBEABLE_VERSION, UNKNOWN, AssignorError

PEER_RELEASE = "4.4"
"""The release whose StreamsPartitionAssignor the peer runs."""

NO_FOLLOWUP_MS = 2**63 - 1
FIRST_SUBSCRIPTION_VERSION_WITH_ERROR_CODE = 9
FIRST_ASSIGNMENT_VERSION_WITH_ERROR_CODE = 4
FIRST_ASSIGNMENT_VERSION_WITH_NEXT_REBALANCE = 7

MEMBER_RELEASES = ("2.0", "2.1", "2.3.1", "2.4", "2.5", "2.6.0", "2.6.1", "2.7", "2.8", "3.0", "3.2", "3.9", "4.0",
                   "4.2", "4.4", "4.4", "latest+1", "latest+2")
"""Releases (and future code) whose instances send the subscriptions a 4.4 leader reads."""

PRE_PROBING_RELEASES = ("0.10.0", "0.10.2.2", "1.1.1")
"""Releases before version probing (versions 1 and 2), drawn less often: one of them turns a whole group's
assignment into version 1 or 2."""

LEADER_RELEASES = ("2.0", "2.2.1", "2.3.0", "2.3.1", "2.4", "2.6.0", "2.7", "2.8", "3.2", "3.9", "4.0", "4.4",
                   "latest+1", "latest+2")
"""Releases (and future code) whose leaders write the assignments a 4.4 member reads."""

UPGRADE_FROM_VALUES: tuple[str | None, ...] = (None, *PRE_2_0, *EAGER_ERA, *COOPERATIVE_ERA, "4.4", "2.3.1", "3.10",
                                               "", "latest")
"""Every value Kafka ever accepted, the 4.4 line itself, and values no release accepts."""


@dataclass(frozen=True)
class Member(StreamsSubscription):
    """One subscription as the leader reads it (the fact the rules take), and who sent it (for the examples)."""

    sender: str = ""

    def fact(self) -> StreamsSubscription:
        """The subscription alone, as the rules see one read from the wire."""
        return StreamsSubscription(self.member_id, self.used_version, self.latest_supported_version, self.error_code)

    def request(self) -> dict[str, Any]:
        return {"id": self.member_id, "used": self.used_version, "latest": self.latest_supported_version,
                "errorCode": self.error_code}


@dataclass(frozen=True)
class LeaderCase:
    """A 4.4 leader (with its ``upgrade.from``) and the group's subscriptions."""

    upgrade_from: str | None
    members: tuple[Member, ...]

    def request(self) -> dict[str, Any]:
        return {"op": "streams.leader", "upgradeFrom": self.upgrade_from,
                "members": [m.request() for m in self.members]}


@dataclass(frozen=True)
class MemberCase:
    """A 4.4 member whose last subscription was at ``used``, and the AssignmentInfo it receives."""

    upgrade_from: str | None
    used: int
    version: int
    commonly_supported: int
    error_code: int
    next_rebalance_ms: int | None
    sender: str

    def request(self) -> dict[str, Any]:
        assignment: dict[str, Any] = {"version": self.version, "commonlySupportedVersion": self.commonly_supported,
                                      "errorCode": self.error_code}
        if self.next_rebalance_ms is not None:
            assignment["nextRebalanceMs"] = self.next_rebalance_ms
        return {"op": "streams.member", "upgradeFrom": self.upgrade_from, "used": self.used, "assignment": assignment,
                "sender": self.sender}


@dataclass(frozen=True)
class UpgradeFromCase:
    value: str | None

    def request(self) -> dict[str, Any]:
        return {"op": "streams.configure", "upgradeFrom": self.value}


@dataclass(frozen=True)
class ProtocolIdCase:
    protocol_id: int

    def request(self) -> dict[str, Any]:
        return {"op": "rebalance.protocol", "protocolId": self.protocol_id}


def _peer_upgrade_from(rng: random.Random) -> str | None:
    """The 4.4 instance's own ``upgrade.from``: mostly unset, sometimes a value 4.4 accepts, rarely one it refuses."""
    roll = rng.random()
    if roll < 0.7:
        return None
    if roll < 0.95:
        return rng.choice(sorted(accepted_values(PEER_RELEASE) or ()))
    return rng.choice(("2.3", "0.10.0", "4.4"))


def _sender(rng: random.Random, member_id: str) -> Member:
    """A well-formed subscription of an instance of some release, with an ``upgrade.from`` that release takes."""
    release = rng.choice(PRE_PROBING_RELEASES if rng.random() < 0.05 else MEMBER_RELEASES)
    code = streams_code(release)
    if rng.random() < 0.15 and not code.future and code.latest > EARLIEST_PROBEABLE_VERSION:
        used = rng.randint(EARLIEST_PROBEABLE_VERSION, code.latest)   # probed down to an older group's version
        return Member(member_id, used, code.latest, sender=f"{code.label}, probed down to v{used}")
    accepted = accepted_values(code.release) if not code.future else None
    upgrade_from = rng.choice(sorted(accepted)) if accepted and rng.random() < 0.3 else None
    used = decide_upgrade_from(code.release, upgrade_from).subscription_version if not code.future else code.latest
    if used is None:   # a value its own release refuses cannot be running
        used, upgrade_from = code.latest, None
    latest = code.latest if used >= EARLIEST_PROBEABLE_VERSION else UNKNOWN
    said = f" upgrade.from={upgrade_from}" if upgrade_from else ""
    error = AssignorError.SHUTDOWN_REQUESTED if (used >= FIRST_SUBSCRIPTION_VERSION_WITH_ERROR_CODE
                                                 and rng.random() < 0.05) else 0
    return Member(member_id, used, latest, int(error), sender=f"{code.label}{said}")


def _malformed(rng: random.Random, member_id: str) -> Member:
    """A subscription no correct writer sends: versions that contradict each other, or version 0."""
    roll = rng.random()
    if roll < 0.3:
        return Member(member_id, rng.choice((0, -1)), sender="version below 1")
    used = rng.randint(EARLIEST_PROBEABLE_VERSION, 13)
    latest = rng.choice((UNKNOWN, rng.randint(1, used - 1)))
    return Member(member_id, used, latest, sender="inconsistent versions")


def draw_leader(rng: random.Random) -> LeaderCase:
    members = []
    for n in range(rng.randint(1, 5)):
        member_id = f"m{n}"
        members.append(_malformed(rng, member_id) if rng.random() < 0.04 else _sender(rng, member_id))
    if rng.random() < 0.05:   # another error code a subscription may carry, which the leader ignores
        i = rng.randrange(len(members))
        if members[i].used_version >= FIRST_SUBSCRIPTION_VERSION_WITH_ERROR_CODE:
            members[i] = replace(members[i], error_code=rng.choice((1, 2, 3)))
    return LeaderCase(_peer_upgrade_from(rng), tuple(members))


def _wire(version: int, commonly_supported: int, error_code: int, next_ms: int | None) -> tuple[int, int, int | None]:
    """What an AssignmentInfo of ``version`` carries of the three later fields (the others are not on the wire)."""
    if version < EARLIEST_PROBEABLE_VERSION:
        commonly_supported = UNKNOWN
    if version < FIRST_ASSIGNMENT_VERSION_WITH_ERROR_CODE:
        error_code = 0
    if version < FIRST_ASSIGNMENT_VERSION_WITH_NEXT_REBALANCE:
        next_ms = None
    return commonly_supported, error_code, next_ms


def _next_rebalance(rng: random.Random) -> int:
    return rng.choice((NO_FOLLOWUP_MS, NO_FOLLOWUP_MS, 0, 1_780_000_000_000, rng.randint(-5, 5)))


def draw_member(rng: random.Random) -> MemberCase:
    """A 4.4 member at a version it can be at (3 - 11: its own, or a group's after probing) and an assignment that
    a leader of some release writes for it (the project's rules for that leader), or an arbitrary one."""
    upgrade_from = _peer_upgrade_from(rng)
    used = rng.choice((11, 11, rng.randint(EARLIEST_PROBEABLE_VERSION, 11)))
    written = None if rng.random() < 0.25 else _written_by_a_leader(rng, used)
    if written is None:
        version = rng.randint(0, 13)
        commonly, error, next_ms, sender = rng.randint(-1, 13), rng.choice((0, 0, 0, 1, 2, 3, 4)), \
            _next_rebalance(rng), "arbitrary"
    else:
        version, commonly, error, sender = written
        next_ms = _next_rebalance(rng)
    commonly, error, wire_next = _wire(version, commonly, error, next_ms)
    return MemberCase(upgrade_from, used, version, commonly, error, wire_next, sender)


def _written_by_a_leader(rng: random.Random, used: int) -> tuple[int, int, int, str] | None:
    leader = rng.choice(LEADER_RELEASES)
    others = [_sender(rng, f"m{n}") for n in range(rng.randint(0, 3))]
    group = [StreamsSubscription("me", used, 11), *(m.fact() for m in others)]
    try:
        decision = decide_leader(leader, group)
    except NegotiationError:
        return None
    if decision.outcome is Outcome.ASSIGN_FAILS:
        return None
    plan = decision.members["me"]
    return plan.version, plan.commonly_supported_version, plan.error_code, f"leader {streams_code(leader).label}"


def draw_upgrade_from(rng: random.Random) -> UpgradeFromCase:
    return UpgradeFromCase(rng.choice(UPGRADE_FROM_VALUES))


def draw_protocol_id(rng: random.Random) -> ProtocolIdCase:
    return ProtocolIdCase(rng.choice((0, 1, 0, 1, 2, -1, 127, -128, rng.randint(-128, 127))))
