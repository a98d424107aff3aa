"""Kafka Streams' ``LegacyStickyTaskAssignor``: the task assignor before high availability (and its fallback).

Each client may hold ``tasks // total threads`` active tasks per thread as its sticky share:

1. tasks go back to the client that ran them as active, while it is under that share;
2. then to a client that had them as standby and is under its share;
3. the rest, in task order, to the best client: the previous active owner, unless it is full (as many tasks
   as threads) while another client has more room, in which case a previous standby owner that is not in
   that position, else the least loaded client. *Least loaded* prefers a client with nothing, then the
   lowest load (tasks per thread; a tie goes to the larger client), among clients that would pair the task
   with a task it has not yet shared a client with, if any does;
4. standbys, ``num.standby.replicas`` per stateful task, each to the best client (as above) among those not
   holding the task.

Java's ``HashMap``s and ``HashSet``s of clients and tasks decide the order of steps 1, 2 and 4 and which of
equally good clients wins; that order is reproduced (:mod:`~kafka_meta.negotiation.java_order`), with the
clients' map filled in the order given and the task sets built from the lists given.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence

from kafka_meta.negotiation.java_order import JavaHashMap, JavaHashSet, task_id_hash, uuid_hash
from kafka_meta.negotiation.outcomes import AssignmentFailed, JavaFailure
from kafka_meta.negotiation.task_state import ClientState, TaskAssignment, TaskClient, TaskConfigs, TaskId, result


def _task_hash(task: TaskId) -> int:
    return task_id_hash(task[0], task[1])


def _more_room(this: ClientState, other: ClientState) -> bool:
    """``ClientState.hasMoreAvailableCapacityThan``."""
    if this.capacity <= 0 or other.capacity <= 0:
        raise AssignmentFailed(JavaFailure("IllegalStateException", "ClientState",
                                           "Capacity of a ClientState must be greater than 0."))
    mine, theirs = this.load(), other.load()
    if mine != theirs:
        return mine < theirs
    return this.capacity > other.capacity


class _Builder:
    def __init__(self, clients: Sequence[TaskClient], all_tasks: Sequence[TaskId], stateful: Sequence[TaskId],
                 configs: TaskConfigs) -> None:
        self.clients: JavaHashMap[uuid.UUID, ClientState] = JavaHashMap(uuid_hash)
        for c in clients:
            self.clients.put(c.process_id, ClientState(c))
        self.all_tasks = JavaHashSet.copy_of(_task_hash, all_tasks)
        self.stateful = JavaHashSet.copy_of(_task_hash, stateful)
        self.configs = configs
        count = len(self.all_tasks)
        self.max_pairs = count * (count - 1) // 2
        self.pairs: set[tuple[TaskId, TaskId]] = set()
        self.previous_active: JavaHashMap[TaskId, uuid.UUID] = JavaHashMap(_task_hash)
        self.previous_standby: JavaHashMap[TaskId, JavaHashSet[uuid.UUID]] = JavaHashMap(_task_hash)
        for pid, state in self.clients.items():
            for task in sorted(state.facts.previous_active):
                self.previous_active.put(task, pid)
            for task in sorted(state.facts.previous_standby):
                self.previous_standby.setdefault(task, JavaHashSet(uuid_hash)).add(pid)

    # -- task pairs: tasks that already share a client ------------------------------------------------------
    def _new_pair(self, task: TaskId, assigned: Iterable[TaskId]) -> bool:
        if len(self.pairs) == self.max_pairs:
            return False
        return any((min(task, t), max(task, t)) not in self.pairs for t in assigned)

    def _add_pairs(self, task: TaskId, state: ClientState) -> None:
        for t in state.active | state.standby:
            self.pairs.add((min(task, t), max(task, t)))

    # -- choosing a client --------------------------------------------------------------------------------------
    def _least_loaded_among(self, task: TaskId, ids: Iterable[uuid.UUID], check_pairs: bool) -> ClientState | None:
        best: ClientState | None = None
        for pid in ids:
            client = self.clients[pid]
            if client.assigned_count() == 0:
                return client
            roomier = best is None or _more_room(client, best)
            if roomier and (not check_pairs or self._new_pair(task, client.active | client.standby)):
                best = client
        return best

    def _least_loaded(self, task: TaskId, ids: list[uuid.UUID]) -> ClientState | None:
        return self._least_loaded_among(task, ids, True) or self._least_loaded_among(task, ids, False)

    def _previous_standby_owner(self, task: TaskId, within: list[uuid.UUID]) -> ClientState | None:
        owners = self.previous_standby.get(task)
        if owners is None:
            return None
        allowed = set(within)
        constrained = JavaHashSet.copy_of(uuid_hash, owners)
        for pid in list(constrained):
            if pid not in allowed:
                constrained.remove(pid)
        return self._least_loaded(task, list(constrained))

    def _should_balance(self, client: ClientState) -> bool:
        if client.assigned_count() < client.capacity:
            return False
        return any(_more_room(other, client) for other in self.clients.values())

    def _find(self, task: TaskId, within: list[uuid.UUID]) -> ClientState | None:
        if len(within) == 1:
            return self.clients[within[0]]
        owner = self.previous_active.get(task)
        previous = (self.clients[owner] if owner is not None and owner in within
                    else self._previous_standby_owner(task, within))
        if previous is None:
            return self._least_loaded(task, within)
        if self._should_balance(previous):
            standby = self._previous_standby_owner(task, within)
            if standby is not None and not self._should_balance(standby):
                return standby
            return self._least_loaded(task, within)
        return previous

    def _allocate(self, task: TaskId, within: list[uuid.UUID], active: bool) -> None:
        client = self._find(task, within)
        if client is None:
            raise AssignmentFailed(JavaFailure("NullPointerException", "LegacyStickyTaskAssignor",
                                               f"no client found for task {task}"))
        self._add_pairs(task, client)
        if active:
            client.assign_active(task)
        else:
            client.assign_standby(task)

    # -- steps --------------------------------------------------------------------------------------------------
    def assign_active(self) -> None:
        capacity = sum(c.capacity for c in self.clients.values())
        if capacity == 0:
            raise AssignmentFailed(JavaFailure("IllegalStateException", "LegacyStickyTaskAssignor",
                                               "`totalCapacity` should never be zero."))
        per_thread = len(self.all_tasks) // capacity
        assigned: set[TaskId] = set()
        for task, pid in self.previous_active.items():
            if task in self.all_tasks:
                client = self.clients[pid]
                if len(client.active) < client.capacity * per_thread:
                    self._add_pairs(task, client)
                    client.assign_active(task)
                    assigned.add(task)
        unassigned = JavaHashSet.copy_of(_task_hash, self.all_tasks)
        for task in assigned:
            unassigned.remove(task)
        for task in list(unassigned):
            owners = self.previous_standby.get(task)
            if owners is None:
                continue
            for pid in owners:
                client = self.clients[pid]
                if len(client.active) < client.capacity * per_thread:
                    self._add_pairs(task, client)
                    client.assign_active(task)
                    assigned.add(task)
                    unassigned.remove(task)
                    break
        everyone = list(self.clients)
        for task in sorted(unassigned):
            self._allocate(task, everyone, True)

    def assign_standby(self) -> None:
        for task in self.stateful:
            for _ in range(self.configs.num_standby):
                free = [pid for pid, c in self.clients.items() if not c.has(task)]
                if not free:
                    break
                self._allocate(task, list(JavaHashSet(uuid_hash, None, free)), False)


def legacy_sticky_assign(clients: Sequence[TaskClient], all_tasks: Sequence[TaskId], stateful: Sequence[TaskId],
                         configs: TaskConfigs) -> TaskAssignment:
    """``clients`` in the order the leader's map of clients was filled; the task lists in the order their
    sets were built from."""
    configs.validate()
    builder = _Builder(clients, all_tasks, stateful, configs)
    builder.assign_active()
    builder.assign_standby()
    return result({pid: builder.clients[pid] for pid in builder.clients})
