"""Standby placement by client tags (``rack.aware.assignment.tags``, ``ClientTagAwareStandbyTaskAssignor``).

Clients carry tags (``client.tag.zone=eu-1``); with tags configured, each stateful task's standbys go, in
task order, to clients whose values differ from those already used for the task (the active's client
first) on every configured tag, as long as the tag still has an unused value, each time the least loaded
such client. A client chosen this way leaves the pool until the next task. What cannot be placed like that
is placed afterwards, task by task in Java's ``HashMap`` order, on the least loaded clients not holding the
task. Balancing standbys afterwards only moves a standby between clients with identical tags.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from kafka_meta.negotiation.java_order import JavaHashMap, task_id_hash
from kafka_meta.negotiation.task_state import ClientQueue, ClientState, TaskId, place_standbys

TagEntry = tuple[str, str]


def same_tags(source: ClientState, destination: ClientState) -> bool:
    """``isAllowedTaskMovement``: the destination has every tag of the source, with the same value."""
    return all(destination.facts.tags.get(k) == v for k, v in source.facts.tags.items())


class _TagPlacement:
    def __init__(self, states: Mapping[uuid.UUID, ClientState], tags: tuple[str, ...]) -> None:
        self.states = states
        self.tags = set(tags)
        self.values: dict[str, set[str]] = {}
        self.clients: dict[TagEntry, set[uuid.UUID]] = {}
        for pid, state in states.items():
            for key, value in state.facts.tags.items():
                self.values.setdefault(key, set()).add(value)
                self.clients.setdefault((key, value), set()).add(pid)

    def mark_used(self, client: uuid.UUID, used_count: int, used: dict[TagEntry, set[uuid.UUID]]) -> None:
        for key, value in self.states[client].facts.tags.items():
            if key not in self.tags:
                continue
            every = self.values[key]
            if len(every) <= used_count:
                for v in every:
                    used.pop((key, v), None)
            else:
                used[(key, value)] = self.clients[(key, value)]


def assign_standbys_by_tags(states: Mapping[uuid.UUID, ClientState], stateful: list[TaskId], count: int,
                            tags: tuple[str, ...]) -> None:
    placement = _TagPlacement(states, tags)
    remaining: JavaHashMap[TaskId, int] = JavaHashMap(lambda t: task_id_hash(t[0], t[1]))
    for task in stateful:
        remaining.put(task, count)
    queue = ClientQueue(lambda client, task: not states[client].has(task), lambda client: states[client].load())
    for task in stateful:
        for pid, state in states.items():
            if task not in state.active:
                continue
            queue.offer_all(states)
            used_count = 1
            left = remaining[task]
            used: dict[TagEntry, set[uuid.UUID]] = {}
            last = pid
            while True:
                placement.mark_used(last, used_count, used)
                client = queue.poll(task, lambda c, used=used: not any(c in m for m in used.values()))
                if client is None:
                    break
                used_count += 1
                left -= 1
                states[client].assign_standby(task)
                last = client
                if left <= 0:
                    break
            if left > 0:
                remaining.put(task, left)
            else:
                remaining.remove(task)
    if not len(remaining):
        return
    queue.offer_all(states)
    for task, _ in remaining.items():
        remaining.put(task, place_standbys(queue, states, task, remaining[task]))
