"""The rebalance loop: join, leader assignment, sync, with real bytes through the real codecs.

Each round is one generation of the classic group protocol. Every member builds its JoinGroup metadata as
bytes (the consumer-protocol subscription with its assignor's user data), the leader decodes them with the
same decoders users call, applies the release-specific rules of :mod:`kafka_meta.negotiation`, and encodes
every assignment as bytes; every member decodes its own and acts by its release's rules. Members that ask
for another rebalance start the next round, until the group is quiet.

Invariants checked in every round:

* an item (partition, or Streams active task) handed to a member is not still owned by another member at
  that moment (COOPERATIVE members keep their items through the rebalance; EAGER members revoked theirs
  before joining);
* after the round no item is owned by two members;
* no member is stuck: none failed, and no step needed more than ``max_rounds_per_step`` rebalances.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from kafka_meta.negotiation.consumer_member import JoinPreparation, complete_join, describe_calls, prepare_join
from kafka_meta.negotiation.outcomes import JavaFailure
from kafka_meta.negotiation.rebalance_protocol import RebalanceProtocol, validate_cooperative_assignment
from kafka_meta.negotiation.releases import Release
from kafka_meta.negotiation.static_membership import decide_restart
from kafka_meta.negotiation.streams_versions import StreamsCode, streams_code
from kafka_meta.simulate.coordinator import Coordinator
from kafka_meta.simulate.report import MemberRow, Round, SimulationReport, partitions_text
from kafka_meta.simulate.scenario import Bounce, Join, Leave, MemberSetup, Resubscribe, Scenario, Step


@dataclass
class SimMember:
    """A member as the simulator tracks it. ``state`` belongs to the behaviour (Streams versions, tasks)."""

    name: str
    setup: MemberSetup
    incarnation: int = 1
    owned: frozenset[tuple[str, int]] = frozenset()
    tasks: frozenset[Hashable] = frozenset()
    generation: int = -1
    protocol: RebalanceProtocol = RebalanceProtocol.EAGER
    failure: JavaFailure | None = None
    rejoin: str | None = None
    state: Any = None

    @property
    def release(self) -> Release:
        """The release whose rules the member follows (for future code: the newest release's)."""
        return self.code.release

    @property
    def code(self) -> StreamsCode:
        """The member's Streams code: a release, or future code known by its latest version."""
        return streams_code(self.setup.release)

    @property
    def member_id(self) -> str:
        return f"{self.name}-{self.incarnation}"


@dataclass
class LeaderResult:
    assignments: dict[str, bytes] | None
    failure: JavaFailure | None = None
    events: list[str] = field(default_factory=list)
    received: dict[str, str] = field(default_factory=dict)   # how the leader read each subscription


@dataclass
class SyncResult:
    owned: frozenset[tuple[str, int]]
    tasks: frozenset[Hashable]
    received: str
    action: str
    applied: bool = True
    rejoin: str | None = None
    failure: JavaFailure | None = None


class Behaviour(Protocol):
    """What differs between plain consumers and Streams members."""

    kind: str

    def start(self, member: SimMember) -> JavaFailure | None: ...

    def protocols(self, member: SimMember) -> list[str]: ...

    def subscribed(self, member: SimMember) -> list[str]: ...

    def join(self, member: SimMember) -> list[tuple[str, bytes]] | JavaFailure: ...

    def describe_join(self, member: SimMember, metadata: bytes) -> str: ...

    def assign(self, leader: SimMember, assignor: str, metadata: Mapping[str, bytes],
               members: Mapping[str, SimMember], generation: int) -> LeaderResult: ...

    def sync(self, member: SimMember, assignment: bytes, generation: int) -> SyncResult: ...

    def convergence(self, members: list[SimMember]) -> tuple[bool, str, dict[str, str]]: ...


def owned_and_assigned(metadata: Mapping[str, bytes], assignments: Mapping[str, bytes]
                       ) -> tuple[dict[str, set[tuple[str, int]]], dict[str, set[tuple[str, int]]]]:
    """The ownedPartitions and assigned partitions as the leader's ConsumerCoordinator reads them."""
    import kafka_meta

    owned, assigned = {}, {}
    for member_id, data in metadata.items():
        view = kafka_meta.decode("ConsumerProtocolSubscription", data).client_view
        owned[member_id] = {(p.topic, p.partition) for p in view.owned_partitions}
    for member_id, data in assignments.items():
        view = kafka_meta.decode("ConsumerProtocolAssignment", data).client_view
        assigned[member_id] = {(p.topic, p.partition) for p in view.partitions}
    return owned, assigned


class Simulation:
    def __init__(self, scenario: Scenario, behaviour: Behaviour) -> None:
        self.scenario = scenario
        self.behaviour = behaviour
        self.members = {name: SimMember(name, setup) for name, setup in scenario.members.items()}
        self.departed: set[str] = set()
        self.coordinator = Coordinator(succession=scenario.succession)
        self.selected_protocol: str | None = None              # the group protocol of the current generation
        self.last_assignment: dict[str, bytes] = {}            # per member: what the coordinator stores for it
        self.report = SimulationReport(scenario.kind, succession=scenario.succession.value,
                             topics=len(scenario.topic_partitions))

    # -- membership ------------------------------------------------------------------------------------------
    def _by_id(self) -> dict[str, SimMember]:
        return {m.member_id: m for m in self.members.values() if m.member_id in self.coordinator.members}

    def _fail(self, member: SimMember, failure: JavaFailure, round_: Round | None = None) -> None:
        member.failure = failure
        self.report.failures.setdefault(member.name, failure)
        if member.member_id in self.coordinator.members:
            self.coordinator.leave(member.member_id)
        member.owned = frozenset()
        member.tasks = frozenset()
        if round_ is not None:
            round_.events.append(f"{member.name} fails: {failure}")

    def _start(self, member: SimMember, replacing: str | None = None) -> bool:
        """Start a member and let it join; ``replacing`` is the member id of its previous incarnation, which the
        coordinator drops once the new one has joined (see :meth:`Coordinator.replace`)."""
        failure = self.behaviour.start(member)
        if failure is None:
            offered = self.behaviour.protocols(member)
            others = [self.behaviour.protocols(m) for m in self._by_id().values()]
            if not self.coordinator.accepts(offered, others):
                failure = JavaFailure(
                    "InconsistentGroupProtocolException", "group coordinator (JoinGroup)",
                    f"{member.name} offers [{', '.join(offered)}], none of which every other member supports")
        previous = replacing if replacing in self.coordinator.members else None
        if failure is not None:
            if previous is not None:
                self.coordinator.leave(previous)
            self._fail(member, failure)
            return False
        if previous is not None:
            self.coordinator.replace(previous, member.member_id)
        else:
            self.coordinator.join(member.member_id)
        return True

    # -- the rebalance loop ----------------------------------------------------------------------------------
    def run(self) -> SimulationReport:
        for member in self.members.values():
            self._start(member)
        self._settle("start")
        self.report.step_rounds.append((0, len(self.report.rounds)))
        for step in self.scenario.steps:
            first = len(self.report.rounds)
            self._step(step)
            self.report.step_rounds.append((first, len(self.report.rounds)))
        expected = len(self.members) - len(self.departed)
        ok, text, versions = self.behaviour.convergence(list(self._by_id().values()))
        missing = expected - len(self.coordinator.members)
        self.report.converged = ok and missing == 0
        self.report.convergence = text if missing == 0 else f"{missing} member(s) out of the group; {text}"
        self.report.final_versions = versions
        return self.report

    def _step(self, step: Step) -> None:
        if isinstance(step, Bounce):
            self._bounce(step)
            return
        if isinstance(step, Join):
            member = SimMember(step.member, step.setup)
            self.members[step.member] = member
            self._start(member)
        elif isinstance(step, Resubscribe):
            for member in self.members.values():
                member.setup = replace(member.setup, topics=step.topics)
        elif isinstance(step, Leave):
            member = self.members[step.member]
            if member.member_id in self.coordinator.members:
                self.coordinator.leave(member.member_id)
            member.owned, member.tasks = frozenset(), frozenset()
            self.departed.add(step.member)
        self._settle(step.describe(self.scenario.kind))

    def _bounce(self, bounce: Bounce) -> None:
        member = self.members[bounce.member]
        trigger = bounce.describe(member.setup, self.scenario.kind)
        previous = member.member_id
        registered = _registers_instance_id(member.setup)      # the coordinator knows the old incarnation's id
        member.setup = bounce.apply(member.setup)
        if registered and previous in self.coordinator.members:
            restart = decide_restart(member.release, member.setup.instance_id, bounce.downtime_ms,
                                     self.scenario.session_timeout_ms, self._protocol_changes(member, previous))
            if restart.keeps_assignment:
                self._static_rejoin(member, previous, trigger, restart.reason)
                return
            if restart.expired:
                self.coordinator.leave(previous)
                member.owned, member.tasks = frozenset(), frozenset()
                expiry = self._settle(f"{member.name}'s session expires", record=False)
                self._restart(member, previous, trigger, before=expiry)
                return
        self._restart(member, previous, trigger)

    def _restart(self, member: SimMember, previous: str, trigger: str, before: int = 0) -> None:
        """The member comes back as a new member id (dynamic, or static after its session expired)."""
        member.incarnation += 1
        member.owned = frozenset()
        member.tasks = frozenset()
        member.generation = -1
        member.failure = None
        member.rejoin = None
        self._start(member, replacing=previous)
        self._settle(trigger, already=before)

    def _protocol_changes(self, member: SimMember, previous: str) -> bool:
        """Whether the restarted member's offer changes the protocol the group would select next."""
        offers = [self.behaviour.protocols(member) if m.member_id == previous else self.behaviour.protocols(m)
                  for m in self._by_id().values()]
        return Coordinator.select(offers) != self.selected_protocol

    def _static_rejoin(self, member: SimMember, previous: str, trigger: str, reason: str) -> None:
        """A static member back within its session timeout: same generation, its stored assignment, no rebalance;
        what it does with that assignment (a version-probing rejoin, say) is its own rules' business."""
        member.incarnation += 1
        member.owned, member.tasks = frozenset(), frozenset()
        member.failure, member.rejoin = None, None
        round_ = Round(len(self.report.rounds) + 1, self.coordinator.generation, trigger, None,
                       self.selected_protocol, rebalance=False)
        self.report.rounds.append(round_)
        round_.events.append(reason)
        failure = self.behaviour.start(member)
        if failure is not None:
            self.coordinator.leave(previous)
            self._fail(member, failure, round_)
            self.report.rebalances_per_step.append((trigger, 0))
            return
        self.coordinator.replace_static(previous, member.member_id)
        leader = self._by_id().get(self.coordinator.leader or "")
        round_.leader = leader.name if leader else None
        row = MemberRow(member.name, member.code.label, member.protocol.name, "joins, no rebalance",
                        leader=leader is member)
        round_.rows.append(row)
        stored = self.last_assignment.get(member.name)
        if stored is not None:
            res = self.behaviour.sync(member, stored, self.coordinator.generation)
            row.received, row.action = res.received, res.action
            if res.failure is not None:
                self._fail(member, res.failure, round_)
            else:
                if res.applied:
                    member.owned, member.tasks = res.owned, res.tasks
                    member.generation = self.coordinator.generation
                member.rejoin = res.rejoin
                row.owned = _short(member.owned, self.report.topics > 1)
        self._check_exclusive(round_, [m for m in self._by_id().values() if m.failure is None])
        self.report.violations.extend(f"round {round_.number}: {v}" for v in round_.violations)
        if member.rejoin:
            self.report.rebalances_per_step.append((trigger, self._settle(f"rejoin: {member.name}", record=False)))
        else:
            self.report.rebalances_per_step.append((trigger, 0))

    def _settle(self, trigger: str, record: bool = True, already: int = 0) -> int:
        """Rebalance until nobody asks to rejoin; the count goes to the step (``already`` earlier rebalances of
        the same step included) unless ``record`` is False, and is returned."""
        count = 0
        reason = trigger
        while self.coordinator.members:
            self._round(reason)
            count += 1
            asking = [m for m in self._by_id().values() if m.rejoin]
            if not asking:
                break
            if count >= self.scenario.max_rounds_per_step:
                self.report.stuck.append(f"after '{trigger}': still rebalancing after {count} rounds "
                                         f"({', '.join(m.name for m in asking)} keep rejoining)")
                break
            reason = "rejoin: " + ", ".join(m.name for m in asking)
        if record:
            self.report.rebalances_per_step.append((trigger, already + count))
        return count

    def _round(self, trigger: str) -> None:
        self.coordinator.generation += 1
        generation = self.coordinator.generation
        round_ = Round(len(self.report.rounds) + 1, generation, trigger, None, None)
        self.report.rounds.append(round_)
        # join: each member prepares (ConsumerCoordinator.onJoinPrepare) and sends its metadata as bytes
        offers: dict[str, list[tuple[str, bytes]]] = {}
        prepared: dict[str, JoinPreparation] = {}
        for member in list(self._by_id().values()):
            member.rejoin = None
            prep = prepare_join(member.release, member.protocol, member.owned, self.behaviour.subscribed(member),
                                member.generation)
            prepared[member.member_id] = prep
            member.owned = prep.owned
            if member.protocol is RebalanceProtocol.EAGER:
                member.tasks = frozenset()      # a Streams member's active tasks go with its partitions
            joined = self.behaviour.join(member)
            if isinstance(joined, JavaFailure):
                self._fail(member, joined, round_)
                continue
            offers[member.member_id] = joined
        members = self._by_id()
        if not members:
            return
        order = [mid for mid in self.coordinator.members if mid in offers]
        assignor = Coordinator.select([[name for name, _ in offers[mid]] for mid in order])
        leader = members.get(self.coordinator.leader or "")
        round_.leader = leader.name if leader else None
        round_.assignor = assignor
        self.selected_protocol = assignor
        owned_at_join = {mid: members[mid].owned for mid in order}
        tasks_at_join = {mid: members[mid].tasks for mid in order}
        metadata = {mid: dict(offers[mid])[assignor] for mid in order} if assignor else {}
        rows = {mid: MemberRow(members[mid].name, members[mid].code.label, members[mid].protocol.name,
                               self.behaviour.describe_join(members[mid], metadata[mid]) if assignor else "",
                               leader=leader is not None and mid == leader.member_id) for mid in order}
        round_.rows = list(rows.values())
        if assignor is None or leader is None:
            round_.events.append("no protocol every member supports")
            return
        result = self.behaviour.assign(leader, assignor, metadata, {mid: members[mid] for mid in order}, generation)
        round_.events.extend(result.events)
        if result.assignments is not None and result.failure is None:
            owned, assigned = owned_and_assigned(metadata, result.assignments)
            check = validate_cooperative_assignment(leader.release, leader.protocol, assignor, owned, assigned)
            if check.failure is not None:
                result.failure = check.failure
        if result.failure is not None or result.assignments is None:
            failure = result.failure or JavaFailure("IllegalStateException", "leader", "no assignment")
            round_.events.append(f"leader {leader.name}: assign() fails: {failure}")
            self._fail(leader, failure)
            for mid in order:
                if mid in self._by_id():
                    members[mid].rejoin = "no assignment this generation"
            return
        # sync
        results: dict[str, SyncResult] = {}
        for mid in order:
            member = members[mid]
            self.last_assignment[member.name] = result.assignments[mid]
            res = self.behaviour.sync(member, result.assignments[mid], generation)
            results[mid] = res
            rows[mid].received = res.received
            rows[mid].action = res.action
        for mid in order:
            self._check_handover(round_, members, mid, results[mid].owned, owned_at_join, "partition")
            self._check_handover(round_, members, mid, results[mid].tasks, tasks_at_join, "active task")
        for mid in order:
            member, res = members[mid], results[mid]
            calls = list(prepared[mid].callbacks)
            if res.failure is None and res.applied:
                calls += complete_join(member.protocol, member.owned, res.owned,
                                       self.behaviour.subscribed(member)).callbacks
            rows[mid].callbacks = describe_calls(calls)
            if res.failure is not None:
                self._fail(member, res.failure, round_)
                continue
            if res.applied:
                member.owned, member.tasks = res.owned, res.tasks
                member.generation = generation
            member.rejoin = res.rejoin
            rows[mid].owned = _short(member.owned, self.report.topics > 1)
        self._check_exclusive(round_, [m for m in members.values() if m.failure is None])
        self.report.violations.extend(f"round {round_.number}: {v}" for v in round_.violations)

    # -- invariants ------------------------------------------------------------------------------------------
    @staticmethod
    def _check_handover(round_: Round, members: Mapping[str, SimMember], mid: str, now: frozenset[Any],
                        before: Mapping[str, frozenset[Any]], what: str) -> None:
        gained = now - before.get(mid, frozenset())
        for item in sorted(gained, key=str):
            holders = [members[o].name for o, items in before.items() if o != mid and item in items]
            if holders:
                round_.violations.append(f"{what} {_item(item)} handed to {members[mid].name} while "
                                         f"{', '.join(holders)} still owned it")

    @staticmethod
    def _check_exclusive(round_: Round, members: list[SimMember]) -> None:
        for attr, what in (("owned", "partition"), ("tasks", "active task")):
            seen: dict[Any, str] = {}
            for m in members:
                for item in getattr(m, attr):
                    if item in seen:
                        round_.violations.append(f"{what} {_item(item)} owned by both {seen[item]} and {m.name}")
                    seen[item] = m.name


def _registers_instance_id(setup: MemberSetup) -> bool:
    """Whether a member with this setup joins as a static member (a 2.3+ client with group.instance.id)."""
    return setup.instance_id is not None and not decide_restart(setup.release, setup.instance_id).rebalances


def _item(item: Any) -> str:
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        return f"{item[0]}-{item[1]}"
    return str(item)


def _short(items: frozenset[tuple[str, int]], named: bool = False) -> str:
    return partitions_text(items, named) or "-"
