"""Plain consumers in the simulator: assignor lists, KIP-429 protocol choice, consumer-protocol bytes.

Every subscription and assignment is encoded with ``kafka_meta.encode`` at the version the member's release
writes and decoded again with ``kafka_meta.decode`` on the other side, user data included
(CooperativeStickyAssignor's generation, StickyAssignor's previous assignment).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import kafka_meta
from kafka_meta.negotiation.assignors import (
    Member,
    cooperative_sticky_assign,
    range_assign,
    round_robin_assign,
    sticky_assign,
)
from kafka_meta.negotiation.consumer_member import complete_join
from kafka_meta.negotiation.outcomes import JavaFailure
from kafka_meta.negotiation.rebalance_protocol import (
    CONSUMER_PROTOCOL_VERSION,
    COOPERATIVE_STICKY,
    RebalanceProtocol,
    assignor_name,
    choose_rebalance_protocol,
)
from kafka_meta.simulate.engine import LeaderResult, SimMember, SyncResult
from kafka_meta.simulate.report import partitions_text
from kafka_meta.simulate.scenario import CONSUMER

TopicPartition = tuple[str, int]


def grouped(partitions: frozenset[TopicPartition] | set[TopicPartition]) -> list[dict[str, Any]]:
    """(topic, partition) pairs as the consumer protocol groups them: one entry per topic, sorted."""
    by_topic: dict[str, list[int]] = {}
    for topic, p in sorted(partitions):
        by_topic.setdefault(topic, []).append(p)
    return [{"topic": t, "partitions": ps} for t, ps in by_topic.items()]


def flat(view_partitions: Any) -> frozenset[TopicPartition]:
    return frozenset((p.topic, p.partition) for p in view_partitions)


class ConsumerBehaviour:
    kind = CONSUMER

    def __init__(self, topics: Mapping[str, int]) -> None:
        self.partitions = dict(topics)
        self.universe = [(t, p) for t in sorted(topics) for p in range(topics[t])]

    # -- member side -----------------------------------------------------------------------------------------
    def start(self, member: SimMember) -> JavaFailure | None:
        choice = choose_rebalance_protocol(member.release, list(member.setup.assignors))
        if choice.failure is not None:
            return choice.failure
        assert choice.protocol is not None
        member.protocol = choice.protocol
        return None

    def subscribed(self, member: SimMember) -> list[str]:
        return list(member.setup.topics) if member.setup.topics is not None else sorted(self.partitions)

    def protocols(self, member: SimMember) -> list[str]:
        return [assignor_name(a) for a in member.setup.assignors]

    def join(self, member: SimMember) -> list[tuple[str, bytes]] | JavaFailure:
        version = CONSUMER_PROTOCOL_VERSION[member.release]
        owned = member.owned if member.protocol is RebalanceProtocol.COOPERATIVE else frozenset()
        out = []
        for name in self.protocols(member):
            subscription = kafka_meta.model("ConsumerProtocolSubscription")(
                topics=self.subscribed(member), user_data=self._user_data(name, member),
                owned_partitions=grouped(owned), generation_id=member.generation, rack_id=None)
            out.append((name, kafka_meta.encode(subscription, version)))
        return out

    @staticmethod
    def _user_data(assignor: str, member: SimMember) -> bytes | None:
        if assignor == COOPERATIVE_STICKY:
            data = kafka_meta.model("CooperativeStickyAssignorUserData")(generation=member.generation)
            return kafka_meta.encode(data)
        if assignor == "sticky" and member.generation >= 0:
            previous = member.state or frozenset()
            data = kafka_meta.model("StickyAssignorUserData")(previous_assignment=[
                {"topic": g["topic"], "partitions": g["partitions"]} for g in grouped(previous)],
                generation=member.generation)
            return kafka_meta.encode(data, 1)
        return None

    def describe_join(self, member: SimMember, metadata: bytes) -> str:
        sub = kafka_meta.decode("ConsumerProtocolSubscription", metadata)
        owned = len(sub.client_view.owned_partitions)
        return f"v{sub.version}" + (f" owns {owned}" if owned else "")

    def sync(self, member: SimMember, assignment: bytes, generation: int) -> SyncResult:
        message = kafka_meta.decode("ConsumerProtocolAssignment", assignment)
        assigned = flat(message.client_view.partitions)
        change = complete_join(member.protocol, member.owned, assigned, self.subscribed(member))
        parts = []
        if change.revoked:
            parts.append(f"revoke {partitions_text(change.revoked, len(self.partitions) > 1)}")
        if change.added:
            parts.append(f"add {partitions_text(change.added, len(self.partitions) > 1)}")
        member.state = assigned   # the sticky assignor's memory of its last assignment
        rejoin = "cooperative follow-up" if change.rejoin else None
        return SyncResult(assigned, frozenset(), f"v{message.version}", "; ".join(parts) or "keep",
                          rejoin=rejoin)

    # -- leader side -----------------------------------------------------------------------------------------
    def assign(self, leader: SimMember, assignor: str, metadata: Mapping[str, bytes],
               members: Mapping[str, SimMember], generation: int) -> LeaderResult:
        """Kafka's own algorithm for the chosen assignor, on what the leader decodes from each subscription:
        ownedPartitions and the generation (cooperative-sticky), or the previous assignment in the user data
        (sticky, an EAGER assignor whose members report no ownedPartitions)."""
        facts = []
        for mid, data in metadata.items():
            view = kafka_meta.decode("ConsumerProtocolSubscription", data).client_view
            owned = tuple((p.topic, p.partition) for p in view.owned_partitions)
            member_generation = self._generation(assignor, view)
            if assignor == "sticky" and view.user_data:
                previous = kafka_meta.decode("StickyAssignorUserData", bytes(view.user_data))
                owned = tuple((g.topic, p) for g in previous.previous_assignment for p in g.partitions)
                member_generation = previous.generation if previous.generation is not None else -1
            facts.append(Member(mid, frozenset(view.topics), owned, member_generation,
                                members[mid].setup.instance_id))
        partitions = self.partitions
        events: list[str] = []
        if assignor == COOPERATIVE_STICKY:
            result = cooperative_sticky_assign(partitions, facts)
            assigned = result.assignment
            held = sorted(p for _, p in result.transferring)
            if held:
                events.append(f"{assignor} withholds partition(s) {','.join(map(str, held))} still owned elsewhere "
                              f"(partitionsTransferringOwnership)")
        elif assignor == "sticky":
            assigned = sticky_assign(partitions, facts).assignment
        elif assignor == "roundrobin":
            assigned = round_robin_assign(partitions, facts)
        else:
            assigned = range_assign(partitions, facts)
        version = CONSUMER_PROTOCOL_VERSION[leader.release]
        model = kafka_meta.model("ConsumerProtocolAssignment")
        out = {mid: kafka_meta.encode(model(assigned_partitions=grouped(set(assigned[mid])), user_data=None), version)
               for mid in metadata}
        return LeaderResult(out, events=events)

    @staticmethod
    def _generation(assignor: str, view: Any) -> int:
        if view.generation_id >= 0:
            return int(view.generation_id)
        if assignor == COOPERATIVE_STICKY and view.user_data:
            return int(kafka_meta.decode("CooperativeStickyAssignorUserData", bytes(view.user_data)).generation)
        return -1

    # -- verdict ---------------------------------------------------------------------------------------------
    def convergence(self, members: list[SimMember]) -> tuple[bool, str, dict[str, str]]:
        owners: dict[TopicPartition, int] = {}
        for m in members:
            for tp in m.owned:
                owners[tp] = owners.get(tp, 0) + 1
        wanted = {t for m in members for t in self.subscribed(m)}
        unowned = [tp for tp in self.universe if tp[0] in wanted and tp not in owners]
        protocols = {m.name: m.protocol.name for m in members}
        summary = ", ".join(f"{n} {p}" for n, p in protocols.items())
        if unowned:
            return False, f"{len(unowned)} partition(s) unassigned; {summary}", protocols
        distinct = sorted(set(protocols.values()))
        return True, f"every partition owned once; protocols: {'/'.join(distinct)} ({summary})", protocols
