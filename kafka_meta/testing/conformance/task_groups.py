"""Random Kafka Streams groups for the task assignors, from one seeded generator.

Clients (process ids, one to four threads) ran tasks before, as active or standby, or are new; each stateful
task has a lag on every client: ``-2`` where it runs as active now, a small lag where a standby kept up, the
whole changelog where there is no local state, sometimes a corrupted state ahead of the changelog's end. Tasks
come from up to three subtopologies, stateful or not, and some previous tasks no longer exist. Configurations
vary ``num.standby.replicas``, ``acceptable.recovery.lag`` (unbounded too), ``max.warmup.replicas`` and
``rack.aware.assignment.tags`` (clients tagged by zone and cluster, a tag sometimes missing or extra).
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import Any

from kafka_meta.negotiation.task_assignors import TASK_ASSIGNORS
from kafka_meta.negotiation.task_state import RUNNING, UNBOUNDED_LAG, TaskClient, TaskConfigs, TaskId

__all__ = ["TASK_ASSIGNORS", "TaskGroup", "task_group"]


@dataclass
class TaskGroup:
    clients: list[TaskClient]
    tasks: list[TaskId]
    stateful: list[TaskId]
    configs: TaskConfigs

    def request(self, assignor: str) -> dict[str, Any]:
        return {"op": "assignor.task", "assignor": assignor,
                "clients": [{"process": c.process_id.hex, "capacity": c.capacity,
                             "active": [list(t) for t in sorted(c.previous_active)],
                             "standby": [list(t) for t in sorted(c.previous_standby)],
                             "lags": [[t[0], t[1], lag] for t, lag in sorted(c.lags.items())],
                             "tags": dict(c.tags)} for c in self.clients],
                "tasks": [list(t) for t in self.tasks], "stateful": [list(t) for t in self.stateful],
                "standbys": self.configs.num_standby, "acceptableLag": self.configs.acceptable_lag,
                "maxWarmups": self.configs.max_warmups, "tags": list(self.configs.tags)}


def task_group(rng: random.Random, assignor: str = "") -> TaskGroup:
    kind = rng.choices(("tiny", "small", "medium", "large"), weights=(2, 5, 3, 1))[0]
    clients_count, most = {"tiny": (rng.randint(1, 2), 3), "small": (rng.randint(2, 5), 8),
                           "medium": (rng.randint(4, 10), 16), "large": (rng.randint(10, 24), 32)}[kind]
    subtopologies = rng.randint(1, 3)
    tasks: list[TaskId] = []
    stateful: list[TaskId] = []
    for s in range(subtopologies):
        count = rng.randint(1, most)
        mine = [(s, p) for p in range(count)]
        tasks += mine
        if rng.random() < 0.6:
            stateful += mine
    gone = [(subtopologies, p) for p in range(rng.randint(0, 2))]   # tasks of an earlier topology
    end = {t: rng.choice((0, rng.randint(1, 100_000))) for t in stateful}
    tagged = rng.random() < 0.3
    configs = TaskConfigs(num_standby=rng.choice((0, 0, 1, 1, 2)),
                          acceptable_lag=rng.choice((0, 100, 10_000, 10_000, UNBOUNDED_LAG)),
                          max_warmups=0 if rng.random() < 0.02 else rng.choice((1, 2, 2, 3)),
                          tags=tuple(rng.sample(("zone", "cluster"), rng.randint(1, 2))) if tagged else ())
    zones, clusters = rng.randint(1, 4), rng.randint(1, 3)
    previously = tasks + gone
    owners: dict[TaskId, list[int]] = {}
    if rng.random() < 0.8:
        for t in previously:
            if rng.random() < 0.85:
                owners[t] = [rng.randrange(clients_count)]
                if rng.random() < 0.05:
                    owners[t].append(rng.randrange(clients_count))   # two clients claim it (a zombie)
    clients = []
    for i in range(clients_count):
        active = frozenset(t for t, who in owners.items() if i in who)
        standby = frozenset(t for t in previously if t not in active and t in end and rng.random() < 0.2)
        lags = {}
        for t in stateful:
            if t in active:
                lag = RUNNING if rng.random() < 0.9 else rng.randint(0, 500)
            elif t in standby:
                lag = rng.randint(0, 20_000)
            else:
                lag = end[t] if rng.random() < 0.9 else rng.randint(0, end[t] + 10)
            if rng.random() < 0.02:
                lag = end[t]            # corrupted: ahead of the end, so the whole changelog counts
            lags[t] = lag
        process = uuid.UUID(int=rng.getrandbits(128), version=4)
        tags = {}
        if tagged or rng.random() < 0.1:
            tags = {"zone": f"zone-{rng.randrange(zones)}", "cluster": f"cluster-{rng.randrange(clusters)}"}
            if rng.random() < 0.1:
                del tags[rng.choice(("zone", "cluster"))]
            if rng.random() < 0.1:
                tags["host"] = f"host-{i}"
        clients.append(TaskClient(process, rng.choice((1, 1, 2, 3, 4)), active, standby, lags, tags))
    rng.shuffle(tasks)
    rng.shuffle(stateful)
    return TaskGroup(clients, tasks, stateful, configs)
