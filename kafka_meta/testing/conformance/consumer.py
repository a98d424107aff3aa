"""The classic consumer protocol through Kafka's ``ConsumerProtocol`` (the peer's ``consumer.*``): what every Java
consumer writes into JoinGroup and reads from SyncGroup, version-prefixed.

Kafka's API takes a subscription as Java objects, and its writer normalises them: it sorts the topics and the owned
partitions (by topic, then partition) and groups the partitions of a topic together; an assignment's partitions are
grouped by topic in the order topics first appear; a negative generation is written as -1. So the value the
project writes is the one Kafka's writer would make of the generated value (:func:`subscription_as_written`,
:func:`assignment_as_written`), and the bytes must then be identical. Reading compares the version Kafka saw, the
message at the version it read it with (a newer version is read with the newest layout: Kafka's forward-compatible
reading, which the project follows), what ``deserializeSubscription`` gives the assignors (the project's
``client_view``), and the bytes left unread.
"""

from __future__ import annotations

import random
from typing import Any

from kafka_meta.golden.subjects import decode_message, present_only
from kafka_meta.testing.conformance.engine import MUTANTS, Drawn, Read, Subject, damage
from kafka_meta.testing.conformance.java_order import java_string_key
from kafka_meta.testing.conformance.kafka_json import from_plain, kafka_form
from kafka_meta.testing.conformance.registered import RegisteredSubject

SUBSCRIPTION = "ConsumerProtocolSubscription"
ASSIGNMENT = "ConsumerProtocolAssignment"


def subscription_as_written(value: dict[str, Any]) -> dict[str, Any]:
    """What ``ConsumerProtocol.serializeSubscription`` writes for the subscription ``value`` describes."""
    owned = sorted(((g["topic"], p) for g in value["owned_partitions"] for p in g["partitions"]),
                   key=lambda tp: (java_string_key(tp[0]), tp[1]))
    groups: list[dict[str, Any]] = []
    for topic, partition in owned:
        if not groups or groups[-1]["topic"] != topic:
            groups.append({"topic": topic, "partitions": []})
        groups[-1]["partitions"].append(partition)
    return {**value, "topics": sorted(value["topics"], key=java_string_key), "owned_partitions": groups,
            # Subscription(..., int generationId, ...) keeps a negative generation as "none", written as -1
            "generation_id": value["generation_id"] if value["generation_id"] >= 0 else -1}


def assignment_as_written(value: dict[str, Any]) -> dict[str, Any]:
    """What ``ConsumerProtocol.serializeAssignment`` writes: partitions grouped by topic, in first-seen order (a topic
    without partitions is not in Kafka's list of partitions, so not written)."""
    groups: dict[str, list[int]] = {}
    for g in value["assigned_partitions"]:
        if g["partitions"]:
            groups.setdefault(g["topic"], []).extend(g["partitions"])
    return {**value, "assigned_partitions": [{"topic": t, "partitions": ps} for t, ps in groups.items()]}


def flat(groups: list[dict[str, Any]]) -> list[list[Any]]:
    return [[g["topic"], p] for g in groups for p in g["partitions"]]


def hexed(data: bytes | None) -> str | None:
    return None if data is None else bytes(data).hex()


class ConsumerProtocolSubject(RegisteredSubject):
    family = "ConsumerProtocolOps"

    def __init__(self, type_name: str) -> None:
        self.subscription = type_name == SUBSCRIPTION
        self.op = "consumer.subscription" if self.subscription else "consumer.assignment"
        super().__init__(type_name, f"{type_name} (ConsumerProtocol)", f"{self.op}.deserialize")

    def draw(self, rng: random.Random) -> Drawn:
        version = rng.choice(list(self.fmt.versions))
        tree, value = self.sample(rng, version)
        if self.subscription:
            written = subscription_as_written(value)
            request = {"op": f"{self.op}.serialize", "version": version, "topics": value["topics"],
                       "userData": hexed(value["user_data"]), "ownedPartitions": flat(value["owned_partitions"]),
                       "generationId": value["generation_id"], "rackId": value["rack_id"]}
        else:
            written = assignment_as_written(value)
            request = {"op": f"{self.op}.serialize", "version": version,
                       "partitions": flat(value["assigned_partitions"]), "userData": hexed(value["user_data"])}
        ours, refusal = self.encode(written, version)
        return Drawn(version, value, ours, refusal, request, self.view(version, written, from_plain(written, tree), 0))

    def view(self, version: int, plain: dict[str, Any], json: Any, unread: int) -> dict[str, Any]:
        """What both sides are compared on: the version on the wire, the message as Kafka's converter writes it at
        the version it was read with, what the assignors get, and the bytes left unread."""
        out = {"version": version, "json": json, "unread": unread, "userData": hexed(plain["user_data"])}
        if self.subscription:
            out.update(topics=list(plain["topics"]), ownedPartitions=flat(plain["owned_partitions"]),
                       # Kafka's Optional generation: absent for any negative one; the project's view says -1
                       generationId=plain["generation_id"] if plain["generation_id"] >= 0 else -1,
                       # Kafka's Optional rack: absent for null and for ""; the project's view says None for both
                       rackId=plain["rack_id"] or None)
        else:
            out["partitions"] = flat(plain["assigned_partitions"])
        return out

    def kafka_view(self, r: dict[str, Any]) -> Read:
        out = {"version": r["version"], "json": r["json"], "unread": r["remaining"], "userData": r["userData"]}
        if self.subscription:
            out.update(topics=r["topics"], ownedPartitions=r["ownedPartitions"],
                       generationId=-1 if r["generationId"] is None else r["generationId"], rackId=r["rackId"])
        else:
            out["partitions"] = r["partitions"]
        return Read(out)

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        message, layout = decode_message(self.fmt, data, None)
        json = kafka_form(present_only(message.to_json_dict(), layout), layout)
        view = message.client_view
        out = {"version": message.version, "json": json, "unread": len(message.unknown_trailing),
               "userData": hexed(view.user_data)}
        if self.subscription:
            out.update(topics=list(view.topics),
                       ownedPartitions=[[p.topic, p.partition] for p in view.owned_partitions],
                       generationId=view.generation_id, rackId=view.rack_id)
        else:
            out["partitions"] = [[p.topic, p.partition] for p in view.partitions]
        return Read(out)

    def mutants(self, data: bytes, rng: random.Random) -> list[bytes]:
        # besides damage, a version newer than known over the same body: Kafka reads it with its newest layout
        newer = rng.choice((4, 5, 100, 0x7FFF)).to_bytes(2, "big") + data[2:]
        return [*damage(data, rng, MUTANTS - 1), newer]


def subjects(types: set[str] | None) -> list[Subject]:
    return [ConsumerProtocolSubject(t) for t in (SUBSCRIPTION, ASSIGNMENT) if types is None or t in types]
