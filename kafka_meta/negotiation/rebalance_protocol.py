"""KIP-429 for the classic consumer group: which rebalance protocol a consumer runs, whether a leader accepts
a cooperative assignment, and what each member revokes and adds (section 6 of the wire-format notes).

House rules of this module: the facts are plain values (assignor names, sets of ``(topic, partition)``);
everything Kafka refuses comes back as a :class:`~kafka_meta.negotiation.outcomes.JavaFailure` inside the
result, never as a Python exception.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

from kafka_meta.negotiation.outcomes import JavaFailure, NegotiationError
from kafka_meta.negotiation.releases import Release, ReleaseLike, ReleaseTable

TopicPartition = tuple[str, int]
"""A partition as the rules see it: ``("orders", 3)``."""

FIRST_COOPERATIVE_RELEASE = "2.4"
COOPERATIVE_STICKY = "cooperative-sticky"
STREAMS_ASSIGNOR = "stream"


class RebalanceProtocol(IntEnum):
    """``ConsumerPartitionAssignor.RebalanceProtocol``: the id is what the selection compares."""

    EAGER = 0
    COOPERATIVE = 1


def rebalance_protocol_for_id(protocol_id: int) -> RebalanceProtocol | JavaFailure:
    """``RebalanceProtocol.forId``: the protocol a byte id names, or Kafka's refusal of any other id.

    The id is a Java byte (it travels as one), so a value outside -128 - 127 is no id at all and a
    :class:`NegotiationError`; inside that range, an id Kafka does not know is the IllegalArgumentException its
    ``forId`` throws, returned with Kafka's own message.
    """
    if not -128 <= protocol_id <= 127:
        raise NegotiationError(f"a rebalance protocol id is a byte (-128 - 127), not {protocol_id}")
    try:
        return RebalanceProtocol(protocol_id)
    except ValueError:
        return JavaFailure("IllegalArgumentException", "RebalanceProtocol.forId",
                           f"Unknown rebalance protocol id: {protocol_id}")


EAGER_ONLY = (RebalanceProtocol.EAGER,)
COOPERATIVE_AND_EAGER = (RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER)

# Built-in consumer assignors: name -> (first release that ships it, supportedProtocols()).
BUILTIN_ASSIGNORS: dict[str, tuple[str, tuple[RebalanceProtocol, ...]]] = {
    "range": ("0.10.0", EAGER_ONLY),
    "roundrobin": ("0.10.0", EAGER_ONLY),
    "sticky": ("0.11.0", EAGER_ONLY),
    COOPERATIVE_STICKY: (FIRST_COOPERATIVE_RELEASE, COOPERATIVE_AND_EAGER),
}

# Class names as written in partition.assignment.strategy, mapped to the assignor's name().
_CLASS_NAMES = {
    "RangeAssignor": "range",
    "RoundRobinAssignor": "roundrobin",
    "StickyAssignor": "sticky",
    "CooperativeStickyAssignor": COOPERATIVE_STICKY,
    "StreamsPartitionAssignor": STREAMS_ASSIGNOR,
}

# Section 2.2: the consumer-protocol version a consumer's Java code writes (its newest).
CONSUMER_PROTOCOL_VERSION: ReleaseTable[int] = ReleaseTable("consumer protocol version written", [
    ("0.10.0", 0),
    ("2.4", 1),    # KIP-429 ownedPartitions
    ("3.4", 3),    # KIP-792 generationId, KIP-881 rackId
])

# Section 6.3: which assignors a COOPERATIVE leader validates (KAFKA-13406 skips cooperative-sticky by name).
VALIDATION_SKIPS_COOPERATIVE_STICKY: ReleaseTable[bool] = ReleaseTable("cooperative validation skip", [
    ("2.4", False),
    ("2.8.2", True),
    ("3.0.0", False),
    ("3.0.1", True),
])


@dataclass(frozen=True)
class Assignor:
    """One configured assignor: its ``name()`` and ``supportedProtocols()``."""

    name: str
    protocols: tuple[RebalanceProtocol, ...] = EAGER_ONLY


def assignor_name(configured: str) -> str:
    """The assignor name for a configured value: ``range``, or a class name such as
    ``org.apache.kafka.clients.consumer.CooperativeStickyAssignor``."""
    simple = configured.rsplit(".", 1)[-1]
    return _CLASS_NAMES.get(simple, configured)


def builtin_assignor(name: str, at: ReleaseLike) -> Assignor | JavaFailure:
    """A built-in consumer assignor as the consumer of release ``at`` knows it, or the ConfigException a
    release without it gives."""
    name = assignor_name(name)
    if name not in BUILTIN_ASSIGNORS:
        raise NegotiationError(f"{name!r} is not a built-in consumer assignor; describe it with Assignor(name, "
                               f"protocols)")
    first, protocols = BUILTIN_ASSIGNORS[name]
    if Release.parse(at) < Release.parse(first):
        return JavaFailure("ConfigException", "ConsumerConfig",
                           f"partition.assignment.strategy: the {name} assignor does not exist before {first}")
    return Assignor(name, protocols)


@dataclass(frozen=True)
class ProtocolChoice:
    """The rebalance protocol a consumer runs, or the startup error (``failure``)."""

    release: Release
    assignors: tuple[Assignor, ...]
    protocol: RebalanceProtocol | None
    common: tuple[RebalanceProtocol, ...]
    failure: JavaFailure | None = None
    reason: str = ""


def choose_rebalance_protocol(at: ReleaseLike, assignors: Sequence[Assignor | str]) -> ProtocolChoice:
    """Section 6.2: intersect every configured assignor's supported protocols and take the highest id.

    ``assignors`` are :class:`Assignor` values or built-in names (``"range"``, ``"cooperative-sticky"``,
    class names too). For the Streams assignor use
    :func:`kafka_meta.negotiation.upgrade_from.streams_assignor`, which depends on ``upgrade.from``.
    Before 2.4 there is no choice: every rebalance is EAGER.
    """
    rel = Release.parse(at)
    if not assignors:
        raise NegotiationError("partition.assignment.strategy lists no assignor")
    resolved: list[Assignor] = []
    for a in assignors:
        if isinstance(a, Assignor):
            resolved.append(a)
            continue
        found = builtin_assignor(a, rel)
        if isinstance(found, JavaFailure):
            return ProtocolChoice(rel, tuple(resolved), None, (), found, str(found))
        resolved.append(found)
    if rel < Release.parse(FIRST_COOPERATIVE_RELEASE):
        return ProtocolChoice(rel, tuple(resolved), RebalanceProtocol.EAGER, EAGER_ONLY,
                              reason=f"{rel} predates KIP-429 (2.4): every rebalance is EAGER")
    common = set(RebalanceProtocol)
    for a in resolved:
        common &= set(a.protocols)
    ordered = tuple(sorted(common, reverse=True))
    names = ", ".join(a.name for a in resolved)
    if not ordered:
        failure = JavaFailure("IllegalArgumentException", "KafkaConsumer constructor (ConsumerCoordinator)",
                              f"the configured assignors [{names}] share no rebalance protocol")
        return ProtocolChoice(rel, tuple(resolved), None, (), failure, str(failure))
    chosen = ordered[0]
    return ProtocolChoice(rel, tuple(resolved), chosen, ordered,
                          reason=f"[{names}] all support {'/'.join(p.name for p in ordered)}; the highest id wins: "
                                 f"{chosen.name}")


def validation_runs(leader_release: ReleaseLike, leader_protocol: RebalanceProtocol, assignor: str) -> tuple[bool, str]:
    """Whether a leader checks a cooperative assignment (section 6.3), and why (not)."""
    rel = Release.parse(leader_release)
    if rel < Release.parse(FIRST_COOPERATIVE_RELEASE):
        return False, f"leader {rel} predates KIP-429: no cooperative validation"
    if leader_protocol is not RebalanceProtocol.COOPERATIVE:
        return False, "the leader runs EAGER: no cooperative validation"
    if assignor == COOPERATIVE_STICKY and VALIDATION_SKIPS_COOPERATIVE_STICKY[rel]:
        return False, f"leader {rel} skips validation for assignors named {COOPERATIVE_STICKY!r} (KAFKA-13406)"
    return True, f"leader {rel} (COOPERATIVE) validates assignor {assignor!r}"


@dataclass(frozen=True)
class CooperativeValidation:
    """The leader's check of a cooperative assignment: did it run, and did it pass."""

    runs: bool
    conflicts: frozenset[TopicPartition]
    failure: JavaFailure | None
    reason: str

    @property
    def accepted(self) -> bool:
        return self.failure is None


def handed_over_while_claimed(owned: Mapping[str, Iterable[TopicPartition]],
                              assigned: Mapping[str, Iterable[TopicPartition]]) -> frozenset[TopicPartition]:
    """Partitions in both the union of ``added`` and the union of ``revoked`` (each relative to the member's
    own ownedPartitions): handed to a new owner while another member still claims them."""
    added: set[TopicPartition] = set()
    revoked: set[TopicPartition] = set()
    for member in set(owned) | set(assigned):
        mine = set(owned.get(member, ()))
        target = set(assigned.get(member, ()))
        added |= target - mine
        revoked |= mine - target
    return frozenset(added & revoked)


def validate_cooperative_assignment(
    leader_release: ReleaseLike,
    leader_protocol: RebalanceProtocol,
    assignor: str,
    owned: Mapping[str, Iterable[TopicPartition]],
    assigned: Mapping[str, Iterable[TopicPartition]],
) -> CooperativeValidation:
    """What the leader's ConsumerCoordinator does with an assignment its assignor computed (section 6.3).

    ``owned`` is each member's ownedPartitions from its subscription, ``assigned`` what the assignor gives
    it. The conflicts are always computed (useful on their own); they fail the rebalance only when the
    leader's release runs the check for this assignor.
    """
    conflicts = handed_over_while_claimed(owned, assigned)
    runs, why = validation_runs(leader_release, leader_protocol, assignor)
    if runs and conflicts:
        listed = ", ".join(f"{t}-{p}" for t, p in sorted(conflicts))
        failure = JavaFailure("IllegalStateException", "ConsumerCoordinator (leader)",
                              f"assignor {assignor!r} hands over partitions still owned by another member: {listed}")
        return CooperativeValidation(True, conflicts, failure, f"{why}; rejected: {listed}")
    if conflicts and not runs:
        return CooperativeValidation(False, conflicts, None, f"{why}; the unchecked assignment moves "
                                     f"{len(conflicts)} partition(s) still claimed elsewhere")
    return CooperativeValidation(runs, conflicts, None, why if not runs else f"{why}; passed")


@dataclass(frozen=True)
class MemberChange:
    """What one member does with its assignment."""

    protocol: RebalanceProtocol
    revoked_before_join: frozenset[TopicPartition]
    revoked: frozenset[TopicPartition]
    added: frozenset[TopicPartition]
    kept: frozenset[TopicPartition]

    @property
    def rejoins(self) -> bool:
        """A COOPERATIVE member that revoked something asks for the follow-up rebalance."""
        return self.protocol is RebalanceProtocol.COOPERATIVE and bool(self.revoked)


def member_change(protocol: RebalanceProtocol, owned: Iterable[TopicPartition],
                  assigned: Iterable[TopicPartition]) -> MemberChange:
    """Section 6.3, member side. EAGER revokes everything before joining and nothing afterwards; COOPERATIVE
    keeps what it owns through the rebalance and revokes ``owned - assigned`` afterwards."""
    mine = frozenset(owned)
    target = frozenset(assigned)
    if protocol is RebalanceProtocol.EAGER:
        return MemberChange(protocol, mine, frozenset(), target, frozenset())
    return MemberChange(protocol, frozenset(), mine - target, target - mine, mine & target)


@dataclass(frozen=True)
class GroupChange:
    """Every member's revoked and added partitions, and the follow-up rebalance they imply."""

    members: dict[str, MemberChange]
    followup_requested_by: tuple[str, ...]
    awaiting_followup: frozenset[TopicPartition] = field(default_factory=frozenset)

    @property
    def followup(self) -> bool:
        return bool(self.followup_requested_by)


def group_change(protocols: Mapping[str, RebalanceProtocol], owned: Mapping[str, Iterable[TopicPartition]],
                 assigned: Mapping[str, Iterable[TopicPartition]]) -> GroupChange:
    """Apply :func:`member_change` to every member. The partitions COOPERATIVE members revoke without anyone
    receiving them in this round wait for the follow-up rebalance those members request."""
    changes = {m: member_change(protocols[m], owned.get(m, ()), assigned.get(m, ())) for m in protocols}
    everyone_assigned: set[TopicPartition] = set()
    for m in protocols:
        everyone_assigned |= set(assigned.get(m, ()))
    revoked_now: set[TopicPartition] = set()
    for c in changes.values():
        revoked_now |= c.revoked
    requested = tuple(m for m, c in changes.items() if c.rejoins)
    return GroupChange(changes, requested, frozenset(revoked_now - everyone_assigned))
