"""Kafka Streams' SubscriptionInfo and AssignmentInfo through Streams' own classes (the peer's ``streams.*``), every
version 1 to 11, both directions.

Streams builds these from Java maps and sets: a subscription from a map of task offset sums (below v7 turned into
sets of active and standby tasks), an assignment's standby tasks and host maps as maps of sets, and its topic
dictionary from a hash set of partitions. Where its writer iterates a hash container the order is Java's
(:attr:`~kafka_meta.testing.conformance.engine.Subject.hash_ordered`); v10+ subscriptions keep the order given. The
values are compared as Streams' accessors report them (``prevTasks()``, ``taskOffsetSums()``, ``partitionsByHost()``
...) with Java's map semantics (a repeated key keeps its last value, sets hold each element once, in no order) and
task ids as ``TaskId.toString()`` prints them, against the project's ``streams_view``; a subscription also on every
field of the generated SubscriptionInfoData it wraps, against the project's JSON.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

from kafka_meta.codec.probe import VersionProbe
from kafka_meta.golden.subjects import decode_message, present_only
from kafka_meta.streams.protocol import LATEST_OFFSET, MIN_NAMED_TOPOLOGY_VERSION, MIN_OFFSET_SUM_VERSION
from kafka_meta.streams.task_id import task_id_text
from kafka_meta.testing.conformance import deliberate as why
from kafka_meta.testing.conformance.engine import Drawn, Read, Subject
from kafka_meta.testing.conformance.kafka_json import from_plain, kafka_form
from kafka_meta.testing.conformance.registered import RegisteredSubject
from kafka_meta.wire.runtime import java_utf8

SUBSCRIPTION = "SubscriptionInfo"
ASSIGNMENT = "AssignmentInfo"
UNKNOWN_OFFSET_SUM = -3  # what Streams puts in the map for a standby task when converting to v1-v6 sets


def utf8(data: bytes) -> str | None:
    """Bytes as a Java String (Streams' API takes strings): None when they are not UTF-8, which it cannot say."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def task(t: dict[str, Any]) -> list[Any]:
    """A task as ``[subtopology, partition, named topology or None]`` (an empty name is none: Kafka's TaskId takes
    it so)."""
    return [t["topic_group_id"], t["partition"], t.get("named_topology") or None]


class StreamsSubject(RegisteredSubject):
    family = "StreamsInfo"

    def __init__(self, type_name: str, read_op: str) -> None:
        super().__init__(type_name, f"{type_name} (Streams' {type_name})", read_op)

    def draw_value(self, rng: random.Random) -> tuple[int, Any, dict[str, Any]]:
        version = rng.randint(1, 11)
        return version, *self.sample(rng, version)

    def reencode(self, data: bytes, drawn: Drawn) -> bytes | None:
        message = self.fmt.decode(data)
        return self.fmt.encode(message)


class SubscriptionSubject(StreamsSubject):
    hash_ordered = True  # below v10 Streams writes its task sets and offset-sum groups in hash order

    def __init__(self) -> None:
        super().__init__(SUBSCRIPTION, "streams.subscription.decode")

    def draw(self, rng: random.Random) -> Drawn:
        version, tree, value = self.draw_value(rng)
        ours, refusal = self.encode(value, version)
        request = self.request(version, value)
        return Drawn(version, value, ours, refusal, request, self.expected(version, value, tree))

    def offset_sums(self, version: int, value: dict[str, Any]) -> list[tuple[list[Any], int]]:
        """The value's tasks and offset sums, in wire order (below v7: active tasks -2, then standby tasks -3)."""
        if version < MIN_OFFSET_SUM_VERSION:
            return ([(task(t), LATEST_OFFSET) for t in value["prev_tasks"]]
                    + [(task(t), UNKNOWN_OFFSET_SUM) for t in value["standby_tasks"]])
        if version >= MIN_NAMED_TOPOLOGY_VERSION:
            return [(task(t), t["offset_sum"]) for t in value["task_offset_sums"]]
        return [([g["topic_group_id"], p["partition"], None], p["offset_sum"])
                for g in value["task_offset_sums"] for p in g["partition_to_offset_sum"]]

    def request(self, version: int, value: dict[str, Any]) -> dict[str, Any] | None:
        """The constructor's arguments for ``value``, or None where its API cannot say the value: user end point or
        client tags that are not UTF-8 (it takes strings), an empty named topology (its TaskId has a name or none),
        or a task or tag key given twice (it takes maps)."""
        endpoint = utf8(value["user_end_point"]) if version >= 2 else ""
        tags = [(utf8(t["key"]), utf8(t["value"])) for t in value["client_tags"]]
        sums = self.offset_sums(version, value)
        if endpoint is None or any(k is None or v is None for k, v in tags) or len({k for k, _ in tags}) != len(tags):
            return None
        named = value["task_offset_sums"] if version >= MIN_NAMED_TOPOLOGY_VERSION else []
        if any(t["named_topology"] == "" for t in named) or len({tuple(t) for t, _ in sums}) != len(sums):
            return None  # "" written as such by the project; Kafka's TaskId makes it null, written as null
        return {"op": "streams.subscription.encode", "version": version,
                "latestSupportedVersion": value["latest_supported_version"],
                "processId": str(uuid.UUID(bytes=value["process_id"])), "userEndPoint": endpoint,
                "taskOffsetSums": [[t, s] for t, s in sums], "uniqueField": value["unique_field"],
                "errorCode": value["error_code"], "clientTags": [list(kv) for kv in tags]}

    def expected(self, version: int, value: dict[str, Any], tree: Any) -> dict[str, Any]:
        sums: dict[tuple[Any, ...], int] = {}
        for t, s in self.offset_sums(version, value):
            sums[tuple(t)] = s  # Java's map: a repeated task keeps its last sum
        if version < MIN_OFFSET_SUM_VERSION:
            prev = {tuple(task(t)) for t in value["prev_tasks"]}
            standby = {tuple(task(t)) for t in value["standby_tasks"]}
        else:
            prev = {t for t, s in sums.items() if s == LATEST_OFFSET}
            standby = {t for t, s in sums.items() if s != LATEST_OFFSET}
        endpoint = java_utf8(value["user_end_point"]) or None
        tags = {java_utf8(k): java_utf8(v)
                for k, v in ((t["key"], t["value"]) for t in value["client_tags"])}
        return {"version": version, "latestSupportedVersion": value["latest_supported_version"],
                "processId": str(uuid.UUID(bytes=value["process_id"])), "userEndPoint": endpoint,
                "errorCode": value["error_code"], "prevTasks": sorted(map(_text, prev)),
                "standbyTasks": sorted(map(_text, standby)),
                "taskOffsetSums": sorted((_text(t), s) for t, s in sums.items()), "clientTags": sorted(tags.items()),
                "data": from_plain(value, tree), "unread": 0}

    def kafka_view(self, r: dict[str, Any]) -> Read:
        if "processId" not in r:  # a version probe: Streams reads only the two versions
            return Read({"version": r["version"], "latestSupportedVersion": r["latestSupportedVersion"]})
        data = r["data"]
        tree = self.fmt.construct(r["version"])  # type: ignore[attr-defined]
        # every field of SubscriptionInfoData, as the peer writes them: keep those the version has
        present = kafka_form(present_only(data, tree), tree)
        view = {"version": r["version"], "latestSupportedVersion": r["latestSupportedVersion"],
                "processId": r["processId"], "userEndPoint": r["userEndPoint"], "errorCode": r["errorCode"],
                "prevTasks": sorted(t[3] for t in r["prevTasks"]),
                "standbyTasks": sorted(t[3] for t in r["standbyTasks"]),
                "taskOffsetSums": sorted((t[3], s) for t, s in r["taskOffsetSums"]),
                "clientTags": (["clientTags() throws", r["clientTagsError"]] if "clientTagsError" in r
                               else sorted(tuple(kv) for kv in r["clientTags"])),
                "data": present, "unread": r["remaining"]}
        return Read(view, facts={"client tags error": r.get("clientTagsError")})

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        message, layout = decode_message(self.fmt, data, None)
        if isinstance(message, VersionProbe):
            return Read({"version": message.version, "latestSupportedVersion": message.latest_supported_version},
                        facts={"probe": True})
        v = message.streams_view
        sums: dict[str, int] = {}
        for s in v.task_offset_sums:
            sums[s.task] = s.offset_sum  # Streams' taskOffsetSums() is a map: a repeated task keeps its last sum
        view = {"version": message.version, "latestSupportedVersion": message.latest_supported_version,
                "processId": v.process_id, "userEndPoint": v.user_end_point, "errorCode": message.error_code,
                # prevTasks() and standbyTasks() are sets: each task once, in no order
                "prevTasks": sorted(set(v.prev_tasks)), "standbyTasks": sorted(set(v.standby_tasks)),
                "taskOffsetSums": sorted(sums.items()), "clientTags": sorted(v.client_tags.items()),
                "data": kafka_form(present_only(message.to_json_dict(), layout), layout),
                "unread": len(message.unknown_trailing)}
        keys = [java_utf8(t.key) for t in message.client_tags]
        return Read(view, facts={"repeated client tag": len(set(keys)) != len(keys)})

    def canonical(self, view: Any) -> Any:
        """Without the wire-level lists whose order Java's hash sets and maps decide (below v10)."""
        if view.get("version", 11) >= MIN_NAMED_TOPOLOGY_VERSION or "data" not in view:
            return view
        return {k: v for k, v in view.items() if k != "data"}

    def deliberate(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> why.Deliberate | None:
        return why.recognise_streams(SUBSCRIPTION, ours, kafka)


def _text(t: tuple[Any, ...] | list[Any]) -> str:
    """``TaskId.toString()`` of a task tuple (Kafka's ``NAMED_TOPOLOGY_DELIMITER`` is ``"__"``), as the peer reports
    it for the same task (its fourth element)."""
    sub, partition, topology = t[0], t[1], t[2]
    return f"{topology}__{sub}_{partition}" if topology is not None else f"{sub}_{partition}"


class AssignmentSubject(StreamsSubject):
    hash_ordered = True  # standby tasks, host maps and the topic dictionary come from Java maps and sets

    def __init__(self) -> None:
        super().__init__(ASSIGNMENT, "streams.assignment.decode")

    def draw(self, rng: random.Random) -> Drawn:
        version, _, value = self.draw_value(rng)
        ours, refusal = self.encode(value, version)
        return Drawn(version, value, ours, refusal, self.request(version, value), self.expected(version, value))

    @staticmethod
    def request(version: int, value: dict[str, Any]) -> dict[str, Any] | None:
        def partitions(ps: list[dict[str, Any]]) -> list[list[Any]]:
            return [[p["topic"], p["partition"]] for p in ps]

        def hosts(hs: list[dict[str, Any]]) -> list[list[Any]]:
            return [[[h["host"], h["port"]], partitions(h["partitions"])] for h in hs]

        request = {"op": "streams.assignment.encode", "version": version,
                   "commonlySupportedVersion": value["commonly_supported_version"],
                   "activeTasks": [task(t) for t in value["active_tasks"]],
                   "standbyTasks": [[task(s["task"]), partitions(s["partitions"])] for s in value["standby_tasks"]],
                   "partitionsByHost": hosts(value["partitions_by_host"]),
                   "standbyPartitionsByHost": hosts(value["standby_partitions_by_host"]),
                   "errCode": value["err_code"], "nextRebalanceMs": value["next_rebalance_ms"]}
        return request

    @staticmethod
    def expected(version: int, value: dict[str, Any]) -> dict[str, Any]:
        return _assignment_view(version, value["commonly_supported_version"] if version >= 3 else -1,
                                [task(t) for t in value["active_tasks"]],
                                [(task(s["task"]), s["partitions"]) for s in value["standby_tasks"]],
                                [((h["host"], h["port"]), h["partitions"]) for h in value["partitions_by_host"]],
                                [((h["host"], h["port"]), h["partitions"])
                                 for h in value["standby_partitions_by_host"]],
                                value["err_code"], value["next_rebalance_ms"])

    def kafka_view(self, r: dict[str, Any]) -> Read:
        def tps(pairs: list[list[Any]]) -> list[dict[str, Any]]:
            return [{"topic": t, "partition": p} for t, p in pairs]

        view = _assignment_view(
            r["version"], r["commonlySupportedVersion"], r["activeTasks"],
            [(t, tps(ps)) for t, ps in r["standbyTasks"]],
            [(tuple(h), tps(ps)) for h, ps in r["partitionsByHost"]],
            [(tuple(h), tps(ps)) for h, ps in r["standbyPartitionsByHost"]],
            r["errCode"], r["nextRebalanceMs"], name=lambda t: t[3])
        return Read(view)

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        message = self.fmt.decode(data)
        if isinstance(message, VersionProbe):
            return Read({"version": message.version}, facts={"probe": True})
        value = message.model_dump()
        # task ids as the project prints them (its streams_view's task_id_text)
        view = _assignment_view(message.version, value["commonly_supported_version"],
                                [task(t) for t in value["active_tasks"]],
                                [(task(s["task"]), s["partitions"]) for s in value["standby_tasks"]],
                                [((h["host"], h["port"]), h["partitions"]) for h in value["partitions_by_host"]],
                                [((h["host"], h["port"]), h["partitions"])
                                 for h in value["standby_partitions_by_host"]],
                                value["err_code"], value["next_rebalance_ms"],
                                name=lambda t: task_id_text(t[0], t[1], t[2]))
        return Read(view, facts={"trailing": len(message.unknown_trailing)})

    def deliberate(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> why.Deliberate | None:
        return why.recognise_streams(ASSIGNMENT, ours, kafka)


def _assignment_view(version: int, commonly: int, active: list[list[Any]], standby: list[tuple[Any, Any]],
                     hosts: list[tuple[Any, Any]], standby_hosts: list[tuple[Any, Any]], err: int, next_ms: int,
                     name: Callable[[list[Any]], str] = _text) -> dict[str, Any]:
    """What AssignmentInfo's accessors report, with Java's collections: active tasks a list; standby tasks and the
    host maps maps (a repeated key keeps its last value) of partition sets; tasks named by ``name``."""
    def tp_set(ps: list[dict[str, Any]]) -> list[tuple[str, int]]:
        # Java reads a topic index its dictionary lacks as a null topic: sorted first
        return sorted({(p["topic"], p["partition"]) for p in ps}, key=lambda tp: (tp[0] is not None, tp))

    standby_map = {name(t): tp_set(ps) for t, ps in standby}
    host_map = {tuple(h): tp_set(ps) for h, ps in hosts}
    standby_host_map = {tuple(h): tp_set(ps) for h, ps in standby_hosts}
    return {"version": version, "commonlySupportedVersion": commonly, "activeTasks": [name(t) for t in active],
            "standbyTasks": sorted(standby_map.items()), "partitionsByHost": sorted(host_map.items()),
            "standbyPartitionsByHost": sorted(standby_host_map.items()), "errCode": err, "nextRebalanceMs": next_ms}


def subjects(types: set[str] | None) -> list[Subject]:
    return [subject() for t, subject in ((SUBSCRIPTION, SubscriptionSubject), (ASSIGNMENT, AssignmentSubject))
            if types is None or t in types]
