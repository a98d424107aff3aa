"""What Kafka Streams' task assignors know of each client (one Streams instance, a process id) and how they
pick clients by load.

A client's facts: its process id, its capacity (stream threads), the tasks it ran before (active, standby)
and, per stateful task, its lag: how far its local state is behind the changelogs' end (``-2``: it runs
the task as an active task now). Load is assigned tasks (active plus standby) per thread, a ``double`` as in
Java. Clients are ordered by process id as ``java.util.UUID`` orders them (the halves as signed longs).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from kafka_meta.negotiation.java_order import JavaHashSet, JavaPriorityQueue, uuid_hash, uuid_order
from kafka_meta.negotiation.outcomes import AssignmentFailed, JavaFailure

TaskId = tuple[int, int]
"""``(subtopology, partition)``: Streams' ``TaskId`` without a named topology, ordered as Java orders it."""

RUNNING = -2   # Task.LATEST_OFFSET: the client runs the task as an active task right now
UNBOUNDED_LAG = (1 << 63) - 1


@dataclass(frozen=True)
class TaskClient:
    process_id: uuid.UUID
    capacity: int
    previous_active: frozenset[TaskId] = frozenset()
    previous_standby: frozenset[TaskId] = frozenset()
    lags: Mapping[TaskId, int] = field(default_factory=dict)
    tags: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskConfigs:
    """``AssignmentConfigs``: ``num.standby.replicas``, ``acceptable.recovery.lag``, ``max.warmup.replicas`` and
    ``rack.aware.assignment.tags`` (the client tags standbys are spread over)."""

    num_standby: int = 0
    acceptable_lag: int = 10_000
    max_warmups: int = 2
    tags: tuple[str, ...] = ()

    def validate(self) -> None:
        """``AssignmentConfigs`` checks each value against ``StreamsConfig``'s validators."""
        for key, value, least in (("acceptable.recovery.lag", self.acceptable_lag, 0),
                                  ("max.warmup.replicas", self.max_warmups, 1),
                                  ("num.standby.replicas", self.num_standby, 0)):
            if value < least:
                raise AssignmentFailed(JavaFailure("ConfigException", "AssignmentConfigs",
                                                   f"Invalid value {value} for configuration {key}: "
                                                   f"Value must be at least {least}"))


@dataclass(frozen=True)
class TaskAssignment:
    active: dict[uuid.UUID, list[TaskId]]
    standby: dict[uuid.UUID, list[TaskId]]
    probing: bool = False


def _illegal_argument(reason: str) -> AssignmentFailed:
    return AssignmentFailed(JavaFailure("IllegalArgumentException", "ClientState", reason))


class ClientState:
    """One client during assignment: its facts and what it has been given so far."""

    def __init__(self, facts: TaskClient) -> None:
        self.facts = facts
        self.process_id = facts.process_id
        self.capacity = facts.capacity
        self.active: set[TaskId] = set()
        self.standby: set[TaskId] = set()

    def lag(self, task: TaskId) -> int:
        if task not in self.facts.lags:
            raise AssignmentFailed(JavaFailure("IllegalStateException", "ClientState",
                                               f"Tried to lookup lag for unknown task {task}"))
        return self.facts.lags[task]

    def assigned_count(self) -> int:
        return len(self.active) + len(self.standby)

    def load(self) -> float:
        return self.assigned_count() / self.capacity

    def active_load(self) -> float:
        return len(self.active) / self.capacity

    def has(self, task: TaskId) -> bool:
        return task in self.active or task in self.standby

    def assign_active(self, task: TaskId) -> None:
        if self.has(task):
            raise _illegal_argument(f"Tried to assign task {task}, but it is already assigned")
        self.active.add(task)

    def assign_standby(self, task: TaskId) -> None:
        if self.has(task):
            raise _illegal_argument(f"Tried to assign task {task}, but it is already assigned")
        self.standby.add(task)

    def unassign_active(self, task: TaskId) -> None:
        if task not in self.active:
            raise _illegal_argument(f"Tried to unassign active task {task}, but it is not currently assigned")
        self.active.discard(task)

    def unassign_standby(self, task: TaskId) -> None:
        if task not in self.standby:
            raise _illegal_argument(f"Tried to unassign standby task {task}, but it is not currently assigned")
        self.standby.discard(task)


def _sign(a: object, b: object) -> int:
    return (a > b) - (a < b)  # type: ignore[operator]


class ClientQueue:
    """``ConstrainedPrioritySet``: clients by a weight (then process id); a poll skips clients the constraint
    refuses for the task and puts them back."""

    def __init__(self, constraint: Callable[[uuid.UUID, TaskId], bool], weight: Callable[[uuid.UUID], float]) -> None:
        self.constraint = constraint
        self.queue: JavaPriorityQueue[uuid.UUID] = JavaPriorityQueue(
            lambda a, b: _sign((weight(a), uuid_order(a)), (weight(b), uuid_order(b))))
        self.members: set[uuid.UUID] = set()

    def poll(self, task: TaskId, extra: Callable[[uuid.UUID], bool] = lambda c: True) -> uuid.UUID | None:
        refused: JavaHashSet[uuid.UUID] = JavaHashSet(uuid_hash)   # put back in HashSet order, as Java does
        while len(self.queue):
            candidate = self.queue.poll()
            self.members.discard(candidate)
            if self.constraint(candidate, task) and extra(candidate):
                self.offer_all(refused)
                return candidate
            refused.add(candidate)
        self.offer_all(refused)
        return None

    def offer(self, client: uuid.UUID) -> None:
        if client in self.members:
            self.queue.remove(client)
        else:
            self.members.add(client)
        self.queue.offer(client)

    def offer_all(self, clients: Iterable[uuid.UUID]) -> None:
        for client in clients:
            self.offer(client)


def place_standbys(queue: ClientQueue, states: Mapping[uuid.UUID, ClientState], task: TaskId, wanted: int) -> int:
    """Up to ``wanted`` standbys of ``task``, each on the client ``queue`` gives first, which goes back in the
    queue with its new load (Kafka's loop over ``pollNextClient``, in both the default standby assignment and
    the rack-aware one's fallback); how many could not be placed."""
    while wanted > 0:
        client = queue.poll(task)
        if client is None:
            break
        states[client].assign_standby(task)
        wanted -= 1
        queue.offer(client)
    return wanted


def sorted_clients(clients: Iterable[TaskClient]) -> dict[uuid.UUID, ClientState]:
    """The clients as a ``TreeMap`` by process id."""
    return {c.process_id: ClientState(c) for c in sorted(clients, key=lambda c: uuid_order(c.process_id))}


def result(states: Mapping[uuid.UUID, ClientState], probing: bool = False) -> TaskAssignment:
    return TaskAssignment({p: sorted(s.active) for p, s in states.items()},
                          {p: sorted(s.standby) for p, s in states.items()}, probing)
