"""Kafka Streams members in the simulator: SubscriptionInfo/AssignmentInfo bytes inside the consumer protocol.

The topology is one source topic: task ``0_p`` reads partition ``p``. Each member is one StreamThread of
its own KafkaStreams instance (its own process id), without ``application.server`` (no host maps) and
without standby replicas; a restarted instance still has the state of its last active tasks on disk and
reports it (v1-6 standby tasks, v7+ offset sums).

The leader decodes every subscription with ``kafka_meta.decode("SubscriptionInfo", ...)``, decides with
:func:`~kafka_meta.negotiation.streams_leader.decide_leader` for its release, places tasks, and encodes each
``AssignmentInfo`` at the version the rules give; each member decodes its bytes and follows
:func:`~kafka_meta.negotiation.streams_member.decide_member` for its own release. Task placement is a
stand-in: leaders before 2.4 deal tasks round-robin (they ignore ownership, which is safe only while every
member rebalances EAGER); 2.4+ leaders keep owned tasks and withhold a task another member still owns,
asking for a follow-up rebalance (``nextRebalanceMs = 0`` from AssignmentInfo v7).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import kafka_meta
from kafka_meta.negotiation.facts import assignment_facts, subscription_facts
from kafka_meta.negotiation.outcomes import JavaFailure
from kafka_meta.negotiation.rebalance_protocol import (
    CONSUMER_PROTOCOL_VERSION,
    STREAMS_ASSIGNOR,
    RebalanceProtocol,
    choose_rebalance_protocol,
)
from kafka_meta.negotiation.releases import Release
from kafka_meta.negotiation.streams_leader import Outcome, TaskPlan, decide_leader
from kafka_meta.negotiation.streams_member import NO_FOLLOWUP_MS, Action, Rejoin, decide_member
from kafka_meta.negotiation.streams_versions import (
    FIRST_ASSIGNMENT_VERSION_WITH_NEXT_REBALANCE,
    NEWEST_KNOWN_LATEST,
    latest_supported_version,
)
from kafka_meta.negotiation.upgrade_from import decide_upgrade_from
from kafka_meta.simulate.consumer import grouped
from kafka_meta.simulate.engine import LeaderResult, SimMember, SyncResult
from kafka_meta.simulate.future_bytes import decode_streams, encode_streams
from kafka_meta.simulate.placement import round_robin, sticky_balanced, withhold_claimed
from kafka_meta.simulate.scenario import STREAMS

TopicPartition = tuple[str, int]
LATEST_OFFSET = -2           # Task.LATEST_OFFSET: a running active task in v7+ offset sums
FIRST_OFFSET_SUM_VERSION = 7
FIRST_NAMED_TOPOLOGY_VERSION = 10
FIRST_UNIQUE_FIELD_VERSION = 8
FIRST_OWNERSHIP_AWARE_LEADER = "2.4"


@dataclass
class StreamsState:
    used_version: int
    process_id: uuid.UUID
    last_active: frozenset[int] = frozenset()        # task partitions it ran after the last assignment
    on_disk: frozenset[int] = frozenset()            # tasks whose state it keeps locally
    unique: int = 0
    cannot_subscribe: JavaFailure | None = None
    notes: list[str] = field(default_factory=list)


def task_name(partition: int) -> str:
    return f"0_{partition}"


class StreamsBehaviour:
    kind = STREAMS

    def __init__(self, topic: str, partitions: int) -> None:
        self.topic = topic
        self.partitions = list(range(partitions))

    # -- member side -----------------------------------------------------------------------------------------
    def start(self, member: SimMember) -> JavaFailure | None:
        decision = decide_upgrade_from(member.release, member.setup.upgrade_from)
        if decision.failure is not None:
            return decision.failure
        choice = choose_rebalance_protocol(member.release, [decision.assignor])
        if choice.failure is not None:
            return choice.failure
        assert choice.protocol is not None and decision.subscription_version is not None
        member.protocol = choice.protocol
        previous: StreamsState | None = member.state
        used = decision.subscription_version
        if member.code.future and used == latest_supported_version(member.release):
            used = member.code.latest      # future code sends its own latest unless upgrade.from lowers it
        member.state = StreamsState(
            used_version=used,
            process_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{member.name}/{member.incarnation}"),
            on_disk=(previous.on_disk | previous.last_active) if previous else frozenset(),
        )
        return None

    def subscribed(self, member: SimMember) -> list[str]:
        return [self.topic]

    def protocols(self, member: SimMember) -> list[str]:
        return [STREAMS_ASSIGNOR]

    def join(self, member: SimMember) -> list[tuple[str, bytes]] | JavaFailure:
        state: StreamsState = member.state
        if state.cannot_subscribe is not None:
            return state.cannot_subscribe
        u = state.used_version
        info = self._subscription_info(u, member.code.latest, state)
        owned = member.owned if member.protocol is RebalanceProtocol.COOPERATIVE else frozenset()
        subscription = kafka_meta.model("ConsumerProtocolSubscription")(
            topics=[self.topic], user_data=info, owned_partitions=grouped(owned), generation_id=member.generation,
            rack_id=None)
        return [(STREAMS_ASSIGNOR, kafka_meta.encode(subscription, CONSUMER_PROTOCOL_VERSION[member.release]))]

    def _subscription_info(self, version: int, latest: int, state: StreamsState) -> bytes:
        active = sorted(state.last_active)
        standby = sorted(state.on_disk - state.last_active)
        fields: dict[str, Any] = {
            "version": version,
            "latest_supported_version": latest if version >= 3 else -1,
            "process_id": state.process_id,
            "user_end_point": b"",
        }
        if version < FIRST_OFFSET_SUM_VERSION:
            fields["prev_tasks"] = [{"topic_group_id": 0, "partition": p} for p in active]
            fields["standby_tasks"] = [{"topic_group_id": 0, "partition": p} for p in standby]
        elif version < FIRST_NAMED_TOPOLOGY_VERSION:
            sums = [{"partition": p, "offset_sum": LATEST_OFFSET} for p in active]
            sums += [{"partition": p, "offset_sum": 0} for p in standby]
            fields["task_offset_sums"] = [{"topic_group_id": 0, "partition_to_offset_sum": sums}] if sums else []
        else:
            fields["task_offset_sums"] = (
                [{"topic_group_id": 0, "partition": p, "offset_sum": LATEST_OFFSET, "named_topology": None}
                 for p in active]
                + [{"topic_group_id": 0, "partition": p, "offset_sum": 0, "named_topology": None} for p in standby])
        if version >= FIRST_UNIQUE_FIELD_VERSION:
            state.unique = (state.unique + 1) % 128
            fields["unique_field"] = state.unique
        return encode_streams("SubscriptionInfo", fields, version)

    def describe_join(self, member: SimMember, metadata: bytes) -> str:
        sub = kafka_meta.decode("ConsumerProtocolSubscription", metadata)
        info = kafka_meta.decode("SubscriptionInfo", bytes(sub.user_data or b""))
        facts = subscription_facts(member.name, info)
        text = f"v{facts.used_version}"
        if facts.latest_supported_version > facts.used_version:
            text += f" (latest {facts.latest_supported_version})"
        owned = len(sub.client_view.owned_partitions)
        return text + (f" owns {owned}" if owned else "")

    def sync(self, member: SimMember, assignment: bytes, generation: int) -> SyncResult:
        state: StreamsState = member.state
        message = kafka_meta.decode("ConsumerProtocolAssignment", assignment)
        partitions = sorted((p.topic, p.partition) for p in message.client_view.partitions)
        try:
            wire_version, info = decode_streams("AssignmentInfo", bytes(message.user_data or b""), member.code.latest)
        except kafka_meta.DecodeError as e:
            return SyncResult(member.owned, member.tasks, "undecodable", "fail", applied=False, failure=JavaFailure(
                "TaskAssignmentException", "AssignmentInfo.decode", f"unable to decode assignment data: {e}"))
        facts = replace(assignment_facts(info), version=wire_version)
        received = f"v{facts.version}" + (f"/{facts.commonly_supported_version}"
                                          if facts.commonly_supported_version >= 0 else "")
        if facts.error_code:
            received += f" err {facts.error_code}"
        d = decide_member(member.code, state.used_version, facts)
        if d.action is Action.FAIL:
            return SyncResult(member.owned, member.tasks, received, "fail", applied=False, failure=d.failure)
        if d.action is Action.ERROR:
            failure = JavaFailure("StreamsException", "StreamThread",
                                  f"assignment error {d.error_code}: the instance shuts down")
            return SyncResult(member.owned, member.tasks, received, "error", applied=False, failure=failure)
        active = [(t.topic_group_id, t.partition) for t in info.active_tasks]
        if len(active) != len(partitions):
            return SyncResult(member.owned, member.tasks, received, "fail", applied=False, failure=JavaFailure(
                "IllegalStateException", "StreamsPartitionAssignor.onAssignment",
                f"{len(active)} active tasks for {len(partitions)} partitions"))
        state.used_version = d.next_version
        state.cannot_subscribe = d.next_subscription_failure
        action = _action_text(d, state.used_version)
        if not d.applies_assignment:
            return SyncResult(member.owned, member.tasks, received, action, applied=False,
                              rejoin="version probing")
        owned = frozenset(partitions)
        tasks = frozenset(task_name(p) for _, p in active)
        state.last_active = frozenset(p for _, p in active)
        rejoin = None
        if d.rebalances:
            rejoin = {Action.DOWNGRADE: "version probing", Action.UPGRADE: "version upgrade"}.get(
                d.action, "follow-up")
        revoked = member.owned - owned
        if member.protocol is RebalanceProtocol.COOPERATIVE and revoked and rejoin is None:
            rejoin = "cooperative follow-up"
        changes = []
        if revoked:
            changes.append(f"revoke {','.join(str(p) for _, p in sorted(revoked))}")
        added = owned - member.owned
        if added:
            changes.append(f"add {','.join(str(p) for _, p in sorted(added))}")
        if changes:
            action = f"{action}; {'; '.join(changes)}" if action != "accept" else "; ".join(changes)
        return SyncResult(owned, tasks, received, action, rejoin=rejoin)

    # -- leader side -----------------------------------------------------------------------------------------
    def assign(self, leader: SimMember, assignor: str, metadata: Mapping[str, bytes],
               members: Mapping[str, SimMember], generation: int) -> LeaderResult:
        order = list(metadata)
        facts = []
        owned: dict[str, frozenset[int]] = {}
        previous: dict[str, frozenset[int]] = {}
        name_of = {mid: members[mid].name for mid in order}
        mid_of = {name: mid for mid, name in name_of.items()}
        for mid, data in metadata.items():
            sub = kafka_meta.decode("ConsumerProtocolSubscription", data)
            wire_version, info = decode_streams("SubscriptionInfo", bytes(sub.user_data or b""), leader.code.latest)
            facts.append(replace(subscription_facts(name_of[mid], info), used_version=wire_version))
            owned[mid] = frozenset(p.partition for p in sub.client_view.owned_partitions)
            # a subscription newer than the leader's code is pooled as one future client: its tasks are unknown
            previous[mid] = frozenset() if wire_version > leader.code.latest else frozenset(_previous_active(info))
        decision = decide_leader(leader.code, facts)
        plans = {mid_of[name]: plan for name, plan in decision.members.items()}
        events = [f"leader {leader.name}: {step}" for step in decision.steps[1:]]
        if decision.outcome is Outcome.ASSIGN_FAILS:
            return LeaderResult(None, decision.failure, events)
        placed: dict[str, list[int]] = {mid: [] for mid in order}
        followup: set[str] = set()
        if decision.outcome is Outcome.ASSIGNED:
            computed = [mid for mid in order if plans[mid].tasks in (TaskPlan.COMPUTED, TaskPlan.POOLED)]
            for mid in order:
                if plans[mid].tasks is TaskPlan.PREVIOUS:
                    placed[mid] = sorted(previous[mid])
            free = [p for p in self.partitions if not any(p in placed[m] for m in order)]
            if leader.release < Release.parse(FIRST_OWNERSHIP_AWARE_LEADER):
                placed.update(round_robin(computed, free))
            else:
                target = sticky_balanced(computed, free, {m: owned[m] | previous[m] for m in computed})
                assigned, withheld = withhold_claimed(target, owned)
                placed.update(assigned)
                held = sorted({p for m in computed for p in withheld[m]})
                if held:
                    followup = {m for m in computed if withheld[m]}
                    events.append(f"leader {leader.name}: withholds task(s) {', '.join(map(task_name, held))} "
                                  f"still owned elsewhere")
        out = {}
        consumer_version = CONSUMER_PROTOCOL_VERSION[leader.release]
        for mid in order:
            plan = plans[mid]
            tasks = sorted(placed[mid])
            next_ms = 0 if (mid in followup and plan.version >= FIRST_ASSIGNMENT_VERSION_WITH_NEXT_REBALANCE) \
                else NO_FOLLOWUP_MS
            data = encode_streams("AssignmentInfo", {
                "version": plan.version, "commonly_supported_version": plan.commonly_supported_version,
                "active_tasks": [{"topic_group_id": 0, "partition": p} for p in tasks],
                "err_code": plan.error_code, "next_rebalance_ms": next_ms}, plan.version)
            asg = kafka_meta.model("ConsumerProtocolAssignment")(
                assigned_partitions=grouped({(self.topic, p) for p in tasks}), user_data=data)
            out[mid] = kafka_meta.encode(asg, consumer_version)
        return LeaderResult(out, None, events)

    # -- verdict ---------------------------------------------------------------------------------------------
    def convergence(self, members: list[SimMember]) -> tuple[bool, str, dict[str, str]]:
        if not members:
            return False, "no member left", {}
        versions = {m.name: f"v{m.state.used_version}" for m in members}
        common = min(m.code.latest for m in members)
        used = {m.state.used_version for m in members}
        owners: dict[str, int] = {}
        for m in members:
            for t in m.tasks:
                owners[t] = owners.get(t, 0) + 1
        missing = [task_name(p) for p in self.partitions if task_name(p) not in owners]
        if used != {common}:
            return False, (f"members use {', '.join(f'{n} {v}' for n, v in versions.items())}; the highest "
                           f"version every member supports is v{common}"), versions
        if missing:
            return False, f"every member on v{common}, but task(s) {', '.join(missing)} have no owner", versions
        return True, f"every member on v{common}, the highest version all of them support; every task owned once", \
            versions


def _previous_active(info: Any) -> list[int]:
    """The tasks a subscription reports as running active tasks (v1-6 prevTasks, v7+ offset sum -2)."""
    version = info.version
    if version is None or version > NEWEST_KNOWN_LATEST or not hasattr(info, "process_id"):
        return []   # a future subscription the leader's code cannot read: only its versions are known
    if version < FIRST_OFFSET_SUM_VERSION:
        return [t.partition for t in info.prev_tasks]
    if version < FIRST_NAMED_TOPOLOGY_VERSION:
        return [p.partition for g in info.task_offset_sums for p in g.partition_to_offset_sum
                if p.offset_sum == LATEST_OFFSET]
    return [t.partition for t in info.task_offset_sums if t.offset_sum == LATEST_OFFSET]


def _action_text(d: Any, version: int) -> str:
    if d.action is Action.DOWNGRADE and d.next_version == d.used_version:
        return f"rejoin (stays v{version})"
    if d.action is Action.DOWNGRADE:
        return f"downgrade -> v{version}" + (", not applied" if not d.applies_assignment else "")
    if d.action is Action.UPGRADE:
        return f"upgrade -> v{version}" + (" next time" if d.rejoin is Rejoin.NEXT_REBALANCE else "") + (
            ", not applied" if not d.applies_assignment else "")
    return "accept"
