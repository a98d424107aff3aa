"""Random KIP-848 consumer groups for the broker's assignors, from one seeded generator.

Members (KIP-848 member ids: a Uuid in Kafka's base64 form) subscribe to the same topics or to different ones,
sometimes to names the metadata does not know; their current target assignments are what an earlier
assignment left (each partition with at most one member), including partitions of topics a member dropped
or that were deleted, members with nothing yet, static members and members with racks. The same group becomes
the Java peer's request and the project's facts.
"""

from __future__ import annotations

import base64
import random
import uuid
from dataclasses import dataclass
from typing import Any

from kafka_meta.negotiation.server_assignors import SERVER_ASSIGNORS
from kafka_meta.negotiation.server_group import ServerMember, ServerTopic

__all__ = ["SERVER_ASSIGNORS", "ServerGroup", "server_group"]


@dataclass
class ServerGroup:
    topics: list[ServerTopic]
    members: list[ServerMember]

    def request(self, assignor: str) -> dict[str, Any]:
        return {"op": "assignor.server", "assignor": assignor,
                "topics": [{"name": t.name, "id": t.topic_id.hex, "partitions": t.partitions} for t in self.topics],
                "members": [{"id": m.member_id, "topics": list(m.topics),
                             "assignment": [[tid.hex, list(ps)] for tid, ps in m.assignment],
                             "instance": m.instance_id, "rack": m.rack} for m in self.members]}


def _uuid(rng: random.Random) -> uuid.UUID:
    return uuid.UUID(int=rng.getrandbits(128), version=4)


def _member_id(rng: random.Random) -> str:
    return base64.urlsafe_b64encode(_uuid(rng).bytes).decode().rstrip("=")


def server_group(rng: random.Random) -> ServerGroup:
    kind = rng.choices(("tiny", "small", "medium", "large"), weights=(2, 5, 3, 1))[0]
    count, topic_count, most = {"tiny": (rng.randint(1, 3), rng.randint(1, 2), 4),
                                "small": (rng.randint(2, 8), rng.randint(1, 4), 12),
                                "medium": (rng.randint(5, 20), rng.randint(2, 6), 32),
                                "large": (rng.randint(20, 50), rng.randint(3, 10), 48)}[kind]
    topics = [ServerTopic(f"topic-{chr(97 + i)}", _uuid(rng), 0 if rng.random() < 0.03 else rng.randint(1, most))
              for i in range(topic_count)]
    deleted = [ServerTopic("deleted", _uuid(rng), rng.randint(1, 4))] if rng.random() < 0.1 else []
    names = [t.name for t in topics] + (["not-created"] if rng.random() < 0.1 else [])
    equal = rng.random() < 0.5
    subscriptions = [names if equal else rng.sample(names, rng.randint(0 if rng.random() < 0.05 else 1, len(names)))
                     for _ in range(count)]
    held: list[dict[uuid.UUID, list[int]]] = [{} for _ in range(count)]
    if rng.random() < 0.8:
        chaos = rng.random() < 0.3
        for t in topics + deleted:
            holders = [i for i in range(count) if chaos or t.name in subscriptions[i] or t in deleted]
            for p in range(t.partitions):
                if holders and rng.random() < 0.85:
                    held[rng.choice(holders)].setdefault(t.topic_id, []).append(p)
    members = []
    racked = rng.random() < 0.2     # the 4.4 assignors place no partition by rack: racks must change nothing
    for i in range(count):
        assignment = [(tid, tuple(rng.sample(ps, len(ps)))) for tid, ps in held[i].items()]
        rng.shuffle(assignment)
        instance = f"instance-{rng.randint(0, 999):03d}-{i}" if rng.random() < 0.2 else None
        rack = rng.choice(("rack-a", "rack-b", None)) if racked else None
        members.append(ServerMember(_member_id(rng), tuple(rng.sample(subscriptions[i], len(subscriptions[i]))),
                                    tuple(assignment), instance, rack))
    return ServerGroup(topics, members)   # a deleted topic is not in the metadata any more
