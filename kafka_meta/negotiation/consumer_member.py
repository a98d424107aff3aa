"""The consumer's own side of a classic-group rebalance: what it gives up and reports before it joins, and what
it does with the assignment it gets, with the ConsumerRebalanceListener callbacks it fires.

Kafka's ``ConsumerCoordinator`` (apache/kafka clients/.../consumer/internals/ConsumerCoordinator.java) does
this in two places, and every Streams instance goes through the same code:

* ``onJoinPrepare``, before the JoinGroup. If the member's generation or member id was reset (it was
  fenced or its session expired while it thought it owned partitions), everything it owns is *lost*
  (``onPartitionsLost``, from 2.4; before it every join revoked everything). Otherwise an EAGER member revokes all
  it owns (``onPartitionsRevoked``, called even with nothing to revoke) and a COOPERATIVE one revokes only the
  partitions of topics it no longer subscribes to. What it still owns is what its subscription reports as
  ``ownedPartitions`` (consumer protocol v1+, i.e. 2.4+ clients), with its generation from v2 (3.4+).
* ``onJoinComplete``, after the SyncGroup. An assignment naming a topic it does not subscribe to makes it
  rejoin at once, without any callback. Otherwise a COOPERATIVE member revokes ``owned - assigned`` (and, if
  that is not empty, asks for the follow-up rebalance); every member then calls ``onPartitionsAssigned``
  with ``assigned - owned``, even when that is empty.

Pure functions over sets of ``(topic, partition)``, like the other rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from kafka_meta.negotiation.rebalance_protocol import (
    CONSUMER_PROTOCOL_VERSION,
    FIRST_COOPERATIVE_RELEASE,
    RebalanceProtocol,
    TopicPartition,
)
from kafka_meta.negotiation.releases import Release, ReleaseLike

NO_GENERATION = -1
FIRST_OWNED_PARTITIONS_VERSION = 1     # consumer protocol v1: ownedPartitions (KIP-429)
FIRST_GENERATION_VERSION = 2           # consumer protocol v2: generationId (KIP-792)


class Callback(Enum):
    """The ConsumerRebalanceListener methods."""

    REVOKED = "onPartitionsRevoked"
    LOST = "onPartitionsLost"
    ASSIGNED = "onPartitionsAssigned"


@dataclass(frozen=True)
class CallbackCall:
    callback: Callback
    partitions: frozenset[TopicPartition]

    def __str__(self) -> str:
        listed = ",".join(f"{t}-{p}" for t, p in sorted(self.partitions)) or "none"
        return f"{self.callback.value}({listed})"


@dataclass(frozen=True)
class JoinPreparation:
    """``onJoinPrepare``: the callbacks fired, what the member still owns, and what its subscription reports."""

    callbacks: tuple[CallbackCall, ...]
    owned: frozenset[TopicPartition]
    reported_owned: frozenset[TopicPartition] | None    # None: consumer protocol v0 has no ownedPartitions
    reported_generation: int | None                      # None: below consumer protocol v2
    reason: str


@dataclass(frozen=True)
class JoinCompletion:
    """``onJoinComplete``: the callbacks fired, what the member owns afterwards, and whether it rejoins."""

    callbacks: tuple[CallbackCall, ...]
    owned: frozenset[TopicPartition]
    revoked: frozenset[TopicPartition]
    added: frozenset[TopicPartition]
    rejoin: str | None
    reason: str


def prepare_join(release: ReleaseLike, protocol: RebalanceProtocol, owned: Iterable[TopicPartition],
                 subscribed_topics: Iterable[str], generation: int, member_id_reset: bool = False) -> JoinPreparation:
    """What a consumer of ``release`` does before it sends its JoinGroup."""
    rel = Release.parse(release)
    mine = frozenset(owned)
    topics = frozenset(subscribed_topics)
    has_lost = rel >= Release.parse(FIRST_COOPERATIVE_RELEASE)
    calls: list[CallbackCall] = []
    if not has_lost:
        calls.append(CallbackCall(Callback.REVOKED, mine))
        reason = f"{rel} (before KIP-429): every join starts by revoking everything it owns"
        left: frozenset[TopicPartition] = frozenset()
    elif generation == NO_GENERATION or member_id_reset:
        if mine:
            calls.append(CallbackCall(Callback.LOST, mine))
        reason = "generation/member id reset: loses all it owned" if mine else "a fresh member owns nothing"
        left = frozenset()
    elif protocol is RebalanceProtocol.EAGER:
        calls.append(CallbackCall(Callback.REVOKED, mine))
        reason = "EAGER: revokes everything it owns before joining"
        left = frozenset()
    else:
        gone = frozenset(tp for tp in mine if tp[0] not in topics)
        if gone:
            calls.append(CallbackCall(Callback.REVOKED, gone))
        left = mine - gone
        reason = ("COOPERATIVE: keeps what it owns through the rebalance"
                  + (f", except partitions of topics it no longer subscribes to ({len(gone)})" if gone else ""))
    version = CONSUMER_PROTOCOL_VERSION[rel]
    return JoinPreparation(tuple(calls), left, left if version >= FIRST_OWNED_PARTITIONS_VERSION else None,
                           generation if version >= FIRST_GENERATION_VERSION else None, reason)


def complete_join(protocol: RebalanceProtocol, owned: Iterable[TopicPartition], assigned: Iterable[TopicPartition],
                  subscribed_topics: Iterable[str]) -> JoinCompletion:
    """What a consumer does with the assignment its SyncGroup returned (``owned`` as left by
    :func:`prepare_join`)."""
    mine = frozenset(owned)
    target = frozenset(assigned)
    topics = frozenset(subscribed_topics)
    foreign = sorted({t for t, _ in target if t not in topics})
    if foreign:
        return JoinCompletion((), mine, frozenset(), frozenset(), "assignment does not match the subscription",
                              f"assigned topic(s) {', '.join(foreign)} it does not subscribe to: rejoins without "
                              f"applying the assignment")
    calls: list[CallbackCall] = []
    revoked: frozenset[TopicPartition] = frozenset()
    rejoin = None
    if protocol is RebalanceProtocol.COOPERATIVE:
        revoked = mine - target
        if revoked:
            calls.append(CallbackCall(Callback.REVOKED, revoked))
            rejoin = "revoked partitions: follow-up rebalance"
    added = target - mine
    calls.append(CallbackCall(Callback.ASSIGNED, added))
    reason = (f"{'revokes ' + str(len(revoked)) + ' and ' if revoked else ''}adds {len(added)} partition(s)"
              + ("; rejoins so the revoked partitions can move" if rejoin else ""))
    return JoinCompletion(tuple(calls), target, revoked, added, rejoin, reason)


def prepare_leave(owned: Iterable[TopicPartition], generation: int, member_id_reset: bool = False,
                  rebalance_in_progress: bool = False) -> tuple[CallbackCall, ...]:
    """``onLeavePrepare`` (close, unsubscribe): what it owns is *lost* when its generation was reset or a
    rebalance is under way (someone else may already own it), and revoked otherwise."""
    mine = frozenset(owned)
    if not mine:
        return ()
    lost = generation == NO_GENERATION or member_id_reset or rebalance_in_progress
    return (CallbackCall(Callback.LOST if lost else Callback.REVOKED, mine),)


def describe_calls(calls: Iterable[CallbackCall]) -> str:
    """``onPartitionsRevoked(t-0) onPartitionsAssigned(none)``: callbacks in the order they fire."""
    return " ".join(str(c) for c in calls)
