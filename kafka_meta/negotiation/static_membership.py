"""What a restarted member's JoinGroup does to a classic group: static membership (KIP-345) or not.

A member restarted with ``group.instance.id`` joins with an unknown member id; the coordinator finds the
instance id, replaces the old member id with a new one and, while the group is Stable, completes the join
at the current generation without a rebalance, unless the group's selected protocol would change
(``GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin`` in apache/kafka's group-coordinator,
``GroupCoordinator.updateStaticMemberAndRebalance`` in the Scala coordinator before it). The member then gets
its previous assignment back through SyncGroup. A leader keeps the leadership (the member id is replaced,
not removed). If it stays away as long as its session timeout, the coordinator has already removed it and
rebalanced without it, and its return is an ordinary join.

A member without an instance id comes back as a new member: its JoinGroup starts a rebalance.

This is a decision over facts, like the other rules: the simulator and ``explain`` call it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.releases import Release, ReleaseLike, ReleaseTable

FIRST_STATIC_MEMBERSHIP_RELEASE = "2.3"   # KIP-345: group.instance.id in the consumer from 2.3

DEFAULT_SESSION_TIMEOUT_MS: ReleaseTable[int] = ReleaseTable("consumer session.timeout.ms default", [
    ("0.10.0", 10_000),
    ("3.0", 45_000),      # KIP-735
])


@dataclass(frozen=True)
class RestartDecision:
    """What one restart costs the group."""

    static: bool
    expired: bool          # the session expired first: one rebalance without the member, then its join
    rebalances: int        # rebalances the restart itself starts (0, 1 or 2)
    keeps_assignment: bool  # it gets its previous assignment back at the current generation
    reason: str


def session_timeout_ms(member_release: ReleaseLike) -> int:
    """The consumer's default ``session.timeout.ms`` for a release."""
    return DEFAULT_SESSION_TIMEOUT_MS[member_release]


def decide_restart(member_release: ReleaseLike, instance_id: str | None, downtime_ms: int = 0,
                   session_timeout: int | None = None, protocol_changes: bool = False) -> RestartDecision:
    """A member of ``member_release`` restarts and is away ``downtime_ms``; ``protocol_changes`` says whether its
    new JoinGroup changes the protocol (assignor) the group would select."""
    rel = Release.parse(member_release)
    if downtime_ms < 0:
        raise NegotiationError(f"downtime {downtime_ms} ms is negative")
    timeout = session_timeout_ms(rel) if session_timeout is None else session_timeout
    if instance_id is not None and rel < Release.parse(FIRST_STATIC_MEMBERSHIP_RELEASE):
        # an unknown config to a pre-2.3 consumer: ConsumerConfig logs it as unused and the member stays dynamic
        return RestartDecision(False, False, 1, False,
                               f"group.instance.id is unknown to a {rel} consumer (static membership, KIP-345, came "
                               f"with 2.3): it is ignored, and the dynamic member rejoins under a new member id: "
                               f"rebalance")
    if instance_id is None:
        return RestartDecision(False, False, 1, False, "a dynamic member rejoins under a new member id: rebalance")
    if downtime_ms >= timeout:
        return RestartDecision(True, True, 2, False,
                               f"static member {instance_id} stayed away {downtime_ms} ms, not less than its session "
                               f"timeout {timeout} ms: the coordinator removed it and rebalanced, and its return is "
                               f"a new join")
    if protocol_changes:
        return RestartDecision(True, False, 1, False,
                               f"static member {instance_id} rejoined with a change of the group's selected protocol: "
                               f"rebalance")
    return RestartDecision(True, False, 0, True,
                           f"static member {instance_id} rejoined within its session timeout ({downtime_ms} < "
                           f"{timeout} ms) without changing the selected protocol: no rebalance, same generation, "
                           f"its previous assignment back")
