"""Warm-up replicas: how the high-availability assignor keeps a stateful task with a client whose state is caught
up while the balanced target client restores its state (``TaskMovement``).

A client is *caught up* on a task when it runs it now, when any lag is acceptable, or when its lag is within
``acceptable.recovery.lag``. After the balanced placement, every active task placed on a client that is not
caught up while a client with less lag exists is moved, tasks with the fewest caught-up clients first:

1. to a caught-up client that holds it as a standby, the least loaded first (the two swap roles);
2. else to the least loaded caught-up client; the target client keeps it as a *warm-up* standby while
   warm-up places (``max.warmup.replicas``) are left;
3. else to the client with the least lag (a standby there swaps, otherwise as in 2).

Standby tasks on clients that are not caught up (warm-ups aside) are then likewise moved to caught-up clients
not holding the task, or to the least lagging eligible one, the target again keeping a warm-up while places
are left. Any movement at all means a probing rebalance will follow.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping

from kafka_meta.negotiation.java_order import JavaPriorityQueue
from kafka_meta.negotiation.outcomes import AssignmentFailed, JavaFailure
from kafka_meta.negotiation.task_state import ClientQueue, ClientState, TaskId

CaughtUp = Mapping[TaskId, list[uuid.UUID]]     # task -> caught-up clients, by process id
ByLag = Mapping[TaskId, list[uuid.UUID]]        # task -> every client, least lag first (then process id)


class _Movement:
    def __init__(self, task: TaskId, destination: uuid.UUID, caught_up: int) -> None:
        self.task = task
        self.destination = destination
        self.caught_up = caught_up


def _compare(a: _Movement, b: _Movement) -> int:
    left, right = (a.caught_up, a.task), (b.caught_up, b.task)
    return (left > right) - (left < right)


class Warmups:
    """The warm-up places left (``max.warmup.replicas`` for the whole assignment)."""

    def __init__(self, count: int) -> None:
        self.left = count

    def take(self) -> bool:
        """``getAndDecrement() > 0``: whether a place was left (the count goes down either way)."""
        had = self.left > 0
        self.left -= 1
        return had


def _needs_move(task: TaskId, client: uuid.UUID, states: Mapping[uuid.UUID, ClientState],
                caught_up: CaughtUp, by_lag: ByLag) -> bool:
    if client in caught_up[task]:
        return False
    return states[by_lag[task][0]].lag(task) < states[client].lag(task)


def _queue(states: Mapping[uuid.UUID, ClientState], caught_up: CaughtUp) -> ClientQueue:
    return ClientQueue(lambda client, task: client in caught_up[task], lambda client: states[client].load())


def _swap(task: TaskId, source: ClientState, destination: ClientState) -> None:
    source.unassign_standby(task)
    source.assign_active(task)
    destination.unassign_active(task)
    destination.assign_standby(task)


def _move_active(task: TaskId, source: ClientState, destination: ClientState, warmups: Warmups,
                 warmed: set[TaskId]) -> None:
    source.assign_active(task)
    destination.unassign_active(task)
    if warmups.take():
        destination.assign_standby(task)
        warmed.add(task)


def _most_caught_up(by_lag: ByLag, task: TaskId, destination: uuid.UUID,
                    eligible: Callable[[uuid.UUID], bool] = lambda c: True) -> uuid.UUID | None:
    for client in by_lag[task]:
        if client == destination:
            break
        if eligible(client):
            return client
    return None


def _planned(states: Mapping[uuid.UUID, ClientState], caught_up: CaughtUp, by_lag: ByLag,
             tasks_of: Callable[[uuid.UUID, ClientState], Iterable[TaskId]]
             ) -> tuple[ClientQueue, JavaPriorityQueue[_Movement]]:
    """The client queue, every client offered to it, and the movements Kafka's TaskMovement plans: each of a
    client's tasks (``tasks_of``, in TaskId order) that must move to a caught-up client, to come back to it."""
    queue = _queue(states, caught_up)
    movements: JavaPriorityQueue[_Movement] = JavaPriorityQueue(_compare)
    for client, state in states.items():
        for task in sorted(tasks_of(client, state)):
            if _needs_move(task, client, states, caught_up, by_lag):
                movements.offer(_Movement(task, client, len(caught_up[task])))
        queue.offer(client)
    return queue, movements


def move_active_tasks(states: Mapping[uuid.UUID, ClientState], caught_up: CaughtUp, by_lag: ByLag,
                      warmed: dict[uuid.UUID, set[TaskId]], warmups: Warmups) -> int:
    queue, movements = _planned(states, caught_up, by_lag, lambda client, state: state.active)
    needed = len(movements)
    while len(movements):
        m = movements.poll()
        destination = states[m.destination]
        source = queue.poll(m.task, lambda c, task=m.task: task in states[c].standby)
        if source is not None:
            _swap(m.task, states[source], destination)
        else:
            source = queue.poll(m.task)
            if source is not None:
                _move_active(m.task, states[source], destination, warmups, warmed.setdefault(m.destination, set()))
            else:
                source = _most_caught_up(by_lag, m.task, m.destination)
                if source is None:
                    raise AssignmentFailed(JavaFailure(
                        "IllegalStateException", "TaskMovement",
                        "Tried to move task to more caught-up client as scheduled before but none exist"))
                if m.task in states[source].standby:
                    _swap(m.task, states[source], destination)
                else:
                    _move_active(m.task, states[source], destination, warmups,
                                 warmed.setdefault(m.destination, set()))
        queue.offer_all([source, m.destination])
    return needed


def move_standby_tasks(states: Mapping[uuid.UUID, ClientState], caught_up: CaughtUp, by_lag: ByLag,
                       warmed: Mapping[uuid.UUID, set[TaskId]], warmups: Warmups) -> int:
    queue, movements = _planned(states, caught_up, by_lag,
                                lambda client, state: state.standby - warmed.get(client, set()))
    needed = 0
    while len(movements):
        m = movements.poll()

        def eligible(client: uuid.UUID, task: TaskId = m.task) -> bool:
            return not states[client].has(task)

        source = queue.poll(m.task, eligible)
        if source is None:
            source = _most_caught_up(by_lag, m.task, m.destination, eligible)
        if source is not None:
            states[source].assign_standby(m.task)
            if not warmups.take():
                states[m.destination].unassign_standby(m.task)
            queue.offer_all([source, m.destination])
            needed += 1
    return needed
