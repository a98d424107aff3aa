"""Random consumer groups for the client assignors, from one seeded generator, as both sides take them.

A group is drawn from tiny (one member, an empty topic) to large (up to 50 members, up to 480 partitions: the
size of the random groups of Kafka's own sticky assignor tests, and more than most real consumer groups; each
case stays within milliseconds on both sides, so a run can be large):
equal or uneven subscriptions (now and then a member subscribed to nothing, as a pattern matching no topic
leaves it), topics that are missing or have no partitions, static members, racks (on
members and on each partition's replicas, sometimes everywhere so rack awareness stays off), and what the
members owned before: mostly the outcome of an earlier rebalance with members gone, joined and lagging a
generation behind, sometimes plain chaos with partitions claimed by two members, partitions of deleted topics
and of topics a member no longer subscribes to. The same group is written as the Java peer's request
(:meth:`ClientGroup.request`) and as the project's facts (:meth:`ClientGroup.members`), per assignor: the
sticky assignor reads ownership and generation from its user data, the cooperative one from the subscription.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.negotiation.assignor_facts import Member
from kafka_meta.negotiation.rebalance_protocol import TopicPartition

CLIENT_ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky")
RACKS = ("rack-a", "rack-b", "rack-c", "rack-d")


@dataclass
class ClientMember:
    member_id: str
    topics: list[str]
    owned: list[TopicPartition] = field(default_factory=list)
    subscription_generation: int = -1        # ConsumerProtocolSubscription v2+; -1: none
    assignor_generation: int | None = None   # what the assignor's user data says; None: no user data
    instance_id: str | None = None
    rack: str | None = None


@dataclass
class ClientGroup:
    topics: dict[str, int]
    racks: dict[TopicPartition, list[str]]
    members: list[ClientMember]

    def member_facts(self, assignor: str) -> list[Member]:
        """What the project's assignor reads from each subscription, as Kafka's assignor would."""
        out = []
        for m in self.members:
            claim = m.subscription_generation if m.subscription_generation >= 0 else -1
            if assignor == "sticky":
                owned = tuple(m.owned) if m.assignor_generation is not None else ()
                generation = m.assignor_generation if m.assignor_generation is not None else -1
            else:
                owned = tuple(m.owned)
                generation = claim if claim >= 0 else (
                    m.assignor_generation if m.assignor_generation is not None else -1)
            out.append(Member(m.member_id, frozenset(m.topics), owned, generation, m.instance_id, m.rack, claim))
        return out

    def request(self, assignor: str) -> dict[str, Any]:
        """The peer's ``assignor.client`` request for the same group."""
        topics = []
        for name, count in self.topics.items():
            entry: dict[str, Any] = {"name": name, "partitions": count}
            if self.racks:
                entry["racks"] = [self.racks.get((name, p), []) for p in range(count)]
            topics.append(entry)
        members = []
        for m in self.members:
            user_data: dict[str, Any] | None = None
            if m.assignor_generation is not None:
                if assignor == "sticky":
                    user_data = {"partitions": [list(tp) for tp in m.owned],
                                 "generation": m.assignor_generation if m.assignor_generation >= 0 else None}
                elif assignor == "cooperative-sticky":
                    user_data = {"generation": m.assignor_generation}
            members.append({"id": m.member_id, "topics": m.topics, "owned": [list(tp) for tp in m.owned],
                            "generation": m.subscription_generation, "userData": user_data,
                            "instance": m.instance_id, "rack": m.rack})
        return {"op": "assignor.client", "assignor": assignor, "topics": topics, "members": members}


def _member_id(rng: random.Random, n: int) -> str:
    return f"consumer-app-{n}-{uuid.UUID(int=rng.getrandbits(128), version=4)}"


def _size(rng: random.Random) -> tuple[int, int, int]:
    """Members, topics, most partitions of one topic: tiny, small, medium or large."""
    kind = rng.choices(("tiny", "small", "medium", "large"), weights=(2, 5, 3, 1))[0]
    if kind == "tiny":
        return rng.randint(1, 3), rng.randint(1, 2), 4
    if kind == "small":
        return rng.randint(2, 8), rng.randint(1, 4), 12
    if kind == "medium":
        return rng.randint(5, 20), rng.randint(2, 6), 32
    return rng.randint(20, 50), rng.randint(3, 10), 48


def _racks(rng: random.Random, topics: dict[str, int]) -> dict[TopicPartition, list[str]]:
    racks = list(RACKS[: rng.randint(1, len(RACKS))])
    everywhere = rng.random() < 0.2
    out: dict[TopicPartition, list[str]] = {}
    for t, n in topics.items():
        for p in range(n):
            if everywhere:
                out[(t, p)] = list(racks)
            elif rng.random() < 0.05:
                out[(t, p)] = []
            else:
                out[(t, p)] = rng.sample(racks, rng.randint(1, len(racks)))
    return out


def _previous(rng: random.Random, group: ClientGroup, generation: int) -> None:
    """Who owned what: an earlier, balanced-looking deal among the members then present, or chaos."""
    universe = [(t, p) for t, n in group.topics.items() for p in range(n)]
    gone = [f"deleted-{i}" for i in range(rng.randint(0, 1))]
    universe += [(t, p) for t in gone for p in range(rng.randint(1, 3))]
    if rng.random() < 0.6:
        previous = [m for m in group.members if rng.random() < 0.8]
        rng.shuffle(universe)
        for i, tp in enumerate(universe):
            if previous and rng.random() < 0.9:
                previous[i % len(previous)].owned.append(tp)
        for m in group.members:
            if rng.random() < 0.1 and universe:           # a second claim on someone else's partition
                m.owned.append(rng.choice(universe))
    else:
        for m in group.members:
            if universe:
                m.owned = rng.sample(universe, rng.randint(0, min(len(universe), 12)))
    for m in group.members:
        m.owned = list(dict.fromkeys(m.owned))
        roll = rng.random()
        if roll < 0.15 and not m.owned:
            continue                                        # a new member: no user data, no generation
        if roll < 0.25:
            gen = rng.choice((-1, generation - 1, generation - 2))
        else:
            gen = generation
        m.assignor_generation = gen
        m.subscription_generation = gen if rng.random() < 0.8 else -1


def client_group(rng: random.Random) -> ClientGroup:
    count, topic_count, most = _size(rng)
    topics = {f"topic-{chr(97 + i)}": rng.choice((0, *range(1, most + 1))) if rng.random() < 0.05
              else rng.randint(1, most) for i in range(topic_count)}
    names = list(topics)
    missing = ["not-created"] if rng.random() < 0.1 else []
    equal = rng.random() < 0.5
    members = []
    for n in range(count):
        subscribed = names + missing if equal else rng.sample(names + missing, rng.randint(1, len(names + missing)))
        if rng.random() < 0.02:
            subscribed = []                                     # a pattern that matches no topic
        members.append(ClientMember(_member_id(rng, n), subscribed))
    if rng.random() < 0.3:
        for i, m in enumerate(members):
            if rng.random() < 0.7:
                m.instance_id = f"instance-{rng.randint(0, 999):03d}-{i}"
    group = ClientGroup(topics, {}, members)
    if rng.random() < 0.35:
        group.racks = _racks(rng, topics)
        rack_names = sorted({r for rs in group.racks.values() for r in rs} | {"rack-z"})
        for m in members:
            m.rack = rng.choice((*rack_names, None, ""))
    _previous(rng, group, rng.randint(1, 30))
    rng.shuffle(members)
    return group
