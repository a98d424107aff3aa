"""Kafka Streams' task assignors: which Streams client (process) runs which task, active and standby.

* :func:`high_availability_assign` (``HighAvailabilityTaskAssignor``, the default since 2.6):
  1. stateful active tasks are dealt round-robin over the clients in process-id order, then balanced: for
     each pair of clients (source, destination, in process-id order), the source's tasks in task order move
     to the destination while that lowers the difference of their loads (tasks per thread) and stays
     non-negative; repeated until a full pass moves nothing;
  2. standbys (``num.standby.replicas`` per stateful task, in task order) each go to the least loaded client
     not holding the task yet (with ``rack.aware.assignment.tags``: spread over the client tags,
     :mod:`~kafka_meta.negotiation.standby_tags`), then balanced the same way;
  3. warm-ups and movements back to caught-up clients (:mod:`~kafka_meta.negotiation.task_movement`);
  4. stateless tasks, in task order, each to the client with the fewest active tasks per thread.

  It reports whether a probing rebalance must follow (some task was moved to wait for a warm-up).
* :func:`legacy_sticky_assign` (``LegacyStickyTaskAssignor``,
  :mod:`~kafka_meta.negotiation.legacy_sticky_tasks`), used by ``upgrade.from`` setups and as the fallback.

Rack-aware task assignment (``rack.aware.assignment.strategy`` ``min_traffic`` or ``balance_subtopology``, a
minimum-cost flow over the partitions' racks) is not modelled: this is Kafka's behaviour with the default
strategy ``none``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping

from kafka_meta.negotiation.java_order import uuid_order
from kafka_meta.negotiation.legacy_sticky_tasks import legacy_sticky_assign
from kafka_meta.negotiation.standby_tags import assign_standbys_by_tags, same_tags
from kafka_meta.negotiation.task_movement import Warmups, move_active_tasks, move_standby_tasks
from kafka_meta.negotiation.task_state import (
    RUNNING,
    UNBOUNDED_LAG,
    ClientQueue,
    ClientState,
    TaskAssignment,
    TaskClient,
    TaskConfigs,
    TaskId,
    place_standbys,
    result,
    sorted_clients,
)

TASK_ASSIGNORS = ("high-availability", "legacy-sticky")

__all__ = ["TASK_ASSIGNORS", "high_availability_assign", "legacy_sticky_assign"]


def _should_move(source: ClientState, destination: ClientState) -> bool:
    skew = source.load() - destination.load()
    if skew <= 0:
        return False
    at_destination = (destination.assigned_count() + 1.0) / destination.capacity
    at_source = (source.assigned_count() - 1.0) / source.capacity
    proposed = at_source - at_destination
    return proposed >= 0 and proposed < skew


def _balance(states: Mapping[uuid.UUID, ClientState], tasks_of: Callable[[ClientState], set[TaskId]],
             move: Callable[[ClientState, ClientState, TaskId], None],
             allowed: Callable[[ClientState, ClientState], bool] = lambda source, destination: True) -> None:
    moving = True
    while moving:
        moving = False
        for source in states.values():
            for destination in states.values():
                if source is destination:
                    continue
                candidates = iter(sorted(tasks_of(source)))
                while _should_move(source, destination):
                    task = next(candidates, None)
                    if task is None:
                        break
                    if not destination.has(task) and allowed(source, destination):
                        move(source, destination, task)
                        moving = True


def _move_active(source: ClientState, destination: ClientState, task: TaskId) -> None:
    source.unassign_active(task)
    destination.assign_active(task)


def _move_standby(source: ClientState, destination: ClientState, task: TaskId) -> None:
    source.unassign_standby(task)
    destination.assign_standby(task)


def _assign_standbys(states: Mapping[uuid.UUID, ClientState], stateful: list[TaskId], count: int) -> None:
    queue = ClientQueue(lambda client, task: not states[client].has(task), lambda client: states[client].load())
    queue.offer_all(states)
    for task in stateful:
        place_standbys(queue, states, task, count)


def _caught_up(states: Mapping[uuid.UUID, ClientState], stateful: list[TaskId], acceptable: int
               ) -> dict[TaskId, list[uuid.UUID]]:
    def caught_up(lag: int) -> bool:
        return lag == RUNNING or acceptable == UNBOUNDED_LAG or 0 <= lag <= acceptable
    return {task: [c for c, s in states.items() if caught_up(s.lag(task))] for task in stateful}


def _by_lag(states: Mapping[uuid.UUID, ClientState], stateful: list[TaskId]) -> dict[TaskId, list[uuid.UUID]]:
    return {task: sorted(states, key=lambda c: (states[c].lag(task), uuid_order(c))) for task in stateful}


def _assign_stateless(states: Mapping[uuid.UUID, ClientState], stateless: list[TaskId]) -> None:
    queue = ClientQueue(lambda client, task: True, lambda client: states[client].active_load())
    queue.offer_all(states)
    for task in stateless:
        client = queue.poll(task)
        assert client is not None
        states[client].assign_active(task)
        queue.offer(client)


def high_availability_assign(clients: Iterable[TaskClient], all_tasks: Iterable[TaskId],
                             stateful_tasks: Iterable[TaskId], configs: TaskConfigs) -> TaskAssignment:
    configs.validate()
    states = sorted_clients(clients)
    stateful = sorted(set(stateful_tasks))
    order = list(states.values())
    for i, task in enumerate(stateful):
        order[i % len(order)].assign_active(task)
    _balance(states, lambda s: s.active, _move_active)
    if configs.num_standby != 0:
        if configs.tags:
            assign_standbys_by_tags(states, stateful, configs.num_standby, configs.tags)
            _balance(states, lambda s: s.standby, _move_standby, same_tags)
        else:
            _assign_standbys(states, stateful, configs.num_standby)
            _balance(states, lambda s: s.standby, _move_standby)
    warmups = Warmups(configs.max_warmups)
    caught_up = _caught_up(states, stateful, configs.acceptable_lag)
    by_lag = _by_lag(states, stateful)
    warmed: dict[uuid.UUID, set[TaskId]] = {}
    moves = move_active_tasks(states, caught_up, by_lag, warmed, warmups)
    moves += move_standby_tasks(states, caught_up, by_lag, warmed, warmups)
    _assign_stateless(states, sorted(set(all_tasks) - set(stateful)))
    return result(states, moves > 0)


def legacy_sticky(clients: Iterable[TaskClient], all_tasks: Iterable[TaskId], stateful_tasks: Iterable[TaskId],
                  configs: TaskConfigs) -> TaskAssignment:
    """:func:`legacy_sticky_assign` with the same signature as :func:`high_availability_assign`."""
    return legacy_sticky_assign(list(clients), list(all_tasks), list(stateful_tasks), configs)


ASSIGNORS: Mapping[str, Callable[[Iterable[TaskClient], Iterable[TaskId], Iterable[TaskId], TaskConfigs],
                                 TaskAssignment]] = {
    "high-availability": high_availability_assign,
    "legacy-sticky": legacy_sticky,
}
