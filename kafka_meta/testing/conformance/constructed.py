"""Models built by hand: values of the consumer protocol, the sticky assignors' user data and Kafka Streams' rebalance
metadata built through the project's public model constructors, as a user writes them, against the same values
built through Kafka's own constructors (the peer's ``constructed.*`` operations), byte for byte.

The codec checks draw whole values, every field set, and compare what each side makes of them; they cannot see a
default of the models, since a decoded or fully drawn value never relies on one. Here each case is one logical
value drawn at random (reusing :class:`~kafka_meta.testing.conformance.values.Sampler`), and both sides build it the
way their users do:

* the project's side calls ``kafka_meta.model(type)(**arguments)`` with keyword arguments (nested structs as
  dicts), leaving each optional field out a good part of the time, so that its default is what gets written, and
  writes it with ``kafka_meta.encode`` (at a version, or without one: the newest);
* Kafka's side gets only the arguments given, and takes its own default for the others: the shorter constructor
  where Kafka has one (``new Subscription(topics)``, ``new TaskId(subtopology, partition)``, AssignmentInfo
  without ``commonlySupportedVersion``, ``new ConsumerGroupMetadata(groupId)``, an assignor told nothing), else
  what Kafka's own code passes for "nothing" (a null endpoint, empty maps, ``AssignorError.NONE``).

A case is **identical** when both wrote and the bytes are equal; **both refuse** when both refused, for the same
kind of reason (:func:`refusal_kind`: a version, or the ``latestSupportedVersion`` beside it, out of range; a named
topology a version cannot carry; a string too long for its length prefix); anything else is a difference.

What a user must do to get Kafka's bytes, and the family therefore does: the project writes lists as given, so where
Kafka's writer orders the value (the consumer protocol sorts topics and owned partitions and groups partitions by
topic; Streams groups and collects tasks in Java hash containers; the sticky assignor groups partitions by topic in
a ``HashMap``), the user lists the elements in Kafka's order (computed here with :mod:`kafka_meta.java_hash`); an
AssignmentInfo's topic dictionary comes from :func:`kafka_meta.streams.with_topic_dictionary`. A SubscriptionInfo
field the version lacks is left out (the project refuses to drop a set field silently, where Kafka's constructor
drops it: docs/streams.md). Values Kafka's API cannot say are not drawn: a named topology ``""`` (Kafka's TaskId
makes it none), a negative generation other than -1 (Kafka's Subscription keeps any as none), strings that are not
Unicode text. Nor is a SubscriptionInfo without a process id: Kafka's constructor has no default for it, nor an
AssignmentInfo whose host maps fill a hash bucket Java turns into a tree (the helper's dictionary order there is its
documented fallback, not Kafka's).
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

import kafka_meta
from kafka_meta.errors import KafkaMetaError
from kafka_meta.java_hash import JavaHashMap, JavaHashSet, JavaOrderError, string_hash, task_id_hash
from kafka_meta.streams import with_topic_dictionary
from kafka_meta.streams.protocol import LATEST_OFFSET, LATEST_SUPPORTED_VERSION, NO_NEXT_REBALANCE, UNKNOWN_OFFSET_SUM
from kafka_meta.testing.conformance.engine import run_in_batches, short
from kafka_meta.testing.conformance.java_order import java_string_key
from kafka_meta.testing.conformance.peer import Answer, Peer
from kafka_meta.testing.conformance.results import Result
from kafka_meta.testing.conformance.values import STRING_LIMIT, UTF_LIMIT, Sampler
from kafka_meta.wire.primitives import INT_BOUNDS

BATCH = 250  # cases per round trip to the peer
SUFFIX = " (built by hand)"
INT32, INT64 = INT_BOUNDS["int32"], INT_BOUNDS["int64"]


@dataclass
class Case:
    """One logical value, as a user of the project builds it and as Kafka's constructors are asked to."""

    arguments: dict[str, Any]  # the model's keyword arguments
    version: int | None  # what ``kafka_meta.encode`` is asked for (None: its default)
    request: dict[str, Any]  # Kafka's side: the peer's ``constructed.*`` request
    finish: Callable[[Any], Any] | None = None  # a public helper the user applies to the model before encoding


@dataclass(frozen=True)
class Kind:
    """One type: its registered name, and how a case of it is drawn."""

    registered: str
    draw_case: Callable[[Sampler], Case]

    @property
    def type(self) -> str:
        return self.registered + SUFFIX

    def draw(self, rng: random.Random) -> Case:
        sampler = Sampler(rng)
        while True:
            try:
                return self.draw_case(sampler)
            except JavaOrderError:
                continue  # an order Java's tree buckets decide: not reproduced, so not drawn


# ---------------------------------------------------------------------------------------------- drawing helpers
def maybe(s: Sampler, share: float = 0.5) -> bool:
    """Whether an optional argument is given (otherwise left out: the model's default, Kafka's default)."""
    return s.rng.random() < share


def hexed(data: bytes | None) -> str | None:
    return None if data is None else data.hex()


def topic_partitions(s: Sampler, limit: int | None = STRING_LIMIT, encoded: str = "utf-8",
                     distinct: bool = False) -> list[tuple[str, int]]:
    """Partitions of a few topics (topics repeat, as real assignments' do)."""
    topics = [s.text(limit, encoded) for _ in range(max(1, s.size(True)))]
    out = [(s.rng.choice(topics), s.integer(*INT32)) for _ in range(s.size(False))]
    return list(dict.fromkeys(out)) if distinct else out


def grouped_in_order(pairs: list[tuple[str, int]]) -> list[dict[str, Any]]:
    """Partitions grouped by topic, the topics in the order they first come."""
    groups: dict[str, list[int]] = {}
    for topic, partition in pairs:
        groups.setdefault(topic, []).append(partition)
    return [{"topic": t, "partitions": ps} for t, ps in groups.items()]


# ---------------------------------------------------------------------------------------------- consumer protocol
def draw_subscription(s: Sampler) -> Case:
    topics = [s.text(STRING_LIMIT) for _ in range(s.size(False))]
    # Kafka's writer sorts the topics and the owned partitions (String.compareTo, then the partition) and groups
    # the partitions of a topic together: a user after Kafka's bytes lists them so
    arguments: dict[str, Any] = {"topics": sorted(topics, key=java_string_key)}
    request: dict[str, Any] = {"op": "constructed.consumer.subscription", "topics": topics}
    if maybe(s):
        data = None if maybe(s, 0.2) else s.binary()
        arguments["user_data"], request["userData"] = data, hexed(data)
    if maybe(s):
        owned = topic_partitions(s)
        ordered = sorted(owned, key=lambda tp: (java_string_key(tp[0]), tp[1]))
        groups: list[dict[str, Any]] = []
        for topic, partition in ordered:
            if not groups or groups[-1]["topic"] != topic:
                groups.append({"topic": topic, "partitions": []})
            groups[-1]["partitions"].append(partition)
        arguments["owned_partitions"], request["ownedPartitions"] = groups, [list(tp) for tp in owned]
    if maybe(s):
        generation = -1 if maybe(s, 0.2) else s.integer(0, INT32[1])
        arguments["generation_id"] = request["generationId"] = generation
    if maybe(s, 0.4):
        rack = None if maybe(s, 0.2) else s.text(STRING_LIMIT)
        arguments["rack_id"] = request["rackId"] = rack
    return at_a_version(s, arguments, request)


def at_a_version(s: Sampler, arguments: dict[str, Any], request: dict[str, Any]) -> Case:
    """A consumer-protocol case written at a version drawn from 0 - 3, or without one (the newest)."""
    version = s.rng.choice((None, 0, 1, 2, 3, 3))
    if version is not None:
        request["version"] = version
    return Case(arguments, version, request)


def draw_assignment(s: Sampler) -> Case:
    partitions = topic_partitions(s)
    # Kafka's writer groups the partitions by topic, the topics in the order they first come
    arguments: dict[str, Any] = {}
    if partitions or maybe(s):
        arguments["assigned_partitions"] = grouped_in_order(partitions)
    request: dict[str, Any] = {"op": "constructed.consumer.assignment", "partitions": [list(tp) for tp in partitions]}
    if maybe(s):
        data = None if maybe(s, 0.2) else s.binary()
        arguments["user_data"], request["userData"] = data, hexed(data)
    return at_a_version(s, arguments, request)


# ---------------------------------------------------------------------------------------------- assignors' user data
def draw_sticky(s: Sampler) -> Case:
    partitions = topic_partitions(s)
    # StickyAssignor groups the partitions by topic with HashMap.computeIfAbsent: the topics in that map's order
    by_topic: JavaHashMap[str, list[int]] = JavaHashMap(string_hash)
    for topic, partition in partitions:
        by_topic.compute_if_absent(topic, list).append(partition)
    arguments: dict[str, Any] = {}
    if partitions or maybe(s):
        arguments["previous_assignment"] = [{"topic": t, "partitions": ps} for t, ps in by_topic.items()]
    request: dict[str, Any] = {"op": "constructed.sticky", "partitions": [list(tp) for tp in partitions]}
    if maybe(s):
        arguments["generation"] = request["generation"] = s.integer(*INT32)
    return Case(arguments, s.rng.choice((None, 1)), request)


def draw_cooperative(s: Sampler) -> Case:
    arguments: dict[str, Any] = {}
    request: dict[str, Any] = {"op": "constructed.cooperative"}
    if maybe(s):
        arguments["generation"] = request["generation"] = s.integer(*INT32)
    return Case(arguments, s.rng.choice((None, 0)), request)


# ---------------------------------------------------------------------------------------------- Kafka Streams
def streams_version(s: Sampler) -> int:
    """1 - 11, now and then one no writer of 4.4 takes (0, 12)."""
    return s.rng.choice((0, 12)) if maybe(s, 0.03) else s.rng.randint(1, LATEST_SUPPORTED_VERSION)


def topology(s: Sampler, share: float) -> str | None:
    """A named topology (never ""), or None: the task has none."""
    if not maybe(s, share):
        return None
    text = s.text(STRING_LIMIT)
    return text or "t"


def task_arguments(task: tuple[int, int, str | None], s: Sampler) -> dict[str, Any]:
    """A task as a user passes it: ``named_topology`` mostly left out when it has none."""
    out: dict[str, Any] = {"topic_group_id": task[0], "partition": task[1]}
    if task[2] is not None:
        out["named_topology"] = task[2]
    elif maybe(s, 0.2):
        out["named_topology"] = None  # said, though it is the default
    return out


def task_request(task: tuple[int, int, str | None]) -> list[Any]:
    """``[subtopology, partition]`` (Kafka's two-argument TaskId) or with the topology's name."""
    return [task[0], task[1]] if task[2] is None else [task[0], task[1], task[2]]


def draw_subscription_info(s: Sampler) -> Case:
    version = streams_version(s)
    process = uuid.UUID(bytes=s.rng.randbytes(16))
    arguments: dict[str, Any] = {"process_id": process}
    request: dict[str, Any] = {"op": "constructed.streams.subscription", "version": version,
                               "processId": str(process)}
    if version >= 3 and maybe(s, 0.8):
        latest = s.rng.choice((version - 1, -1)) if maybe(s, 0.05) else s.rng.randint(version, 13)
        arguments["latest_supported_version"] = request["latestSupportedVersion"] = latest
    if version >= 2 and maybe(s, 0.6):
        endpoint = "" if maybe(s, 0.1) else s.text()
        arguments["user_end_point"], request["userEndPoint"] = endpoint.encode(), endpoint
    sums = task_offset_sums(s, version)
    if sums or maybe(s, 0.3):
        request["taskOffsetSums"] = [[task_request(t), offset] for t, offset in sums.items()]
        arguments.update(subscription_tasks(s, version, sums))
    if version >= 8 and maybe(s):
        arguments["unique_field"] = request["uniqueField"] = s.integer(*INT_BOUNDS["int8"])
    if version >= 9 and maybe(s):
        code = s.rng.randint(0, 4) if maybe(s, 0.7) else s.integer(*INT32)
        arguments["error_code"] = request["errorCode"] = code
    if version >= 11 and maybe(s):
        tags = {s.text(): s.text() for _ in range(s.size(True))}
        arguments["client_tags"] = [{"key": k.encode(), "value": v.encode()} for k, v in tags.items()]
        request["clientTags"] = [[k, v] for k, v in tags.items()]
    encode_at = None if version == LATEST_SUPPORTED_VERSION and maybe(s, 0.3) else version
    return Case(arguments, encode_at, request)


def task_offset_sums(s: Sampler, version: int) -> dict[tuple[int, int, str | None], int]:
    """The tasks and offset sums Kafka's constructor takes (a map: each task once), named topologies from v7 on
    (which v7-v9 cannot write: both sides refuse)."""
    share = 0.0 if version < 7 else 0.05 if version < 10 else 0.3
    sums: dict[tuple[int, int, str | None], int] = {}
    for _ in range(s.size(True)):
        task = (s.integer(*INT32), s.integer(*INT32), topology(s, share))
        sums[task] = s.rng.choice((LATEST_OFFSET, LATEST_OFFSET, UNKNOWN_OFFSET_SUM, s.integer(*INT64)))
    return sums


def subscription_tasks(s: Sampler, version: int, sums: dict[tuple[int, int, str | None], int]) -> dict[str, Any]:
    """The model's task fields for ``sums`` at ``version``, listed as Kafka's constructor orders them."""
    if version < 7:
        # two HashSets of TaskIds (offset sum -2: active; any other: standby), filled in the map's order
        active: JavaHashSet[tuple[int, int]] = JavaHashSet(lambda t: task_id_hash(*t))
        standby: JavaHashSet[tuple[int, int]] = JavaHashSet(lambda t: task_id_hash(*t))
        for (sub, partition, _), offset in sums.items():
            (active if offset == LATEST_OFFSET else standby).add((sub, partition))
        out: dict[str, Any] = {}
        for key, tasks in (("prev_tasks", active), ("standby_tasks", standby)):
            if len(tasks) or maybe(s, 0.3):
                out[key] = [{"topic_group_id": sub, "partition": p} for sub, p in tasks]
        return out
    if version < 10:
        # grouped by subtopology with HashMap.computeIfAbsent; a named task cannot be said (both sides refuse)
        groups: JavaHashMap[int, list[dict[str, Any]]] = JavaHashMap(lambda sub: sub)
        named = []
        for (sub, partition, topology_name), offset in sums.items():
            if topology_name is not None:
                named.append({"topic_group_id": sub, "named_topology": topology_name,
                              "partition_to_offset_sum": [{"partition": partition, "offset_sum": offset}]})
                continue
            groups.compute_if_absent(sub, list).append({"partition": partition, "offset_sum": offset})
        listed = [{"topic_group_id": sub, "partition_to_offset_sum": ps} for sub, ps in groups.items()]
        return {"task_offset_sums": listed + named}
    return {"task_offset_sums": [{**task_arguments(t, s), "offset_sum": offset} for t, offset in sums.items()]}


def draw_assignment_info(s: Sampler) -> Case:
    version = streams_version(s)
    arguments: dict[str, Any] = {}
    request: dict[str, Any] = {"op": "constructed.streams.assignment", "version": version}
    share = 0.05 if maybe(s, 0.8) else 0.5  # named topologies: v10+ only (below, both sides refuse)
    if maybe(s, 0.6):
        commonly = s.rng.choice((-1, version, LATEST_SUPPORTED_VERSION, s.integer(*INT32)))
        arguments["commonly_supported_version"] = request["commonlySupportedVersion"] = commonly
    if maybe(s, 0.7):
        active = [(s.integer(*INT32), s.integer(*INT32), topology(s, share)) for _ in range(s.size(True))]
        if active and maybe(s, 0.1):
            active.append(s.rng.choice(active))  # a list: a task may come twice
        arguments["active_tasks"] = [task_arguments(t, s) for t in active]
        request["activeTasks"] = [task_request(t) for t in active]
    if maybe(s, 0.5):
        standby = {(s.integer(*INT32), s.integer(*INT32), topology(s, share)):
                   topic_partitions(s, UTF_LIMIT, "modified-utf-8", distinct=True) for _ in range(s.size(True))}
        arguments["standby_tasks"] = [{"task": task_arguments(t, s), "partitions": partitions_arguments(ps)}
                                      for t, ps in standby.items()]
        request["standbyTasks"] = [[task_request(t), [list(tp) for tp in ps]] for t, ps in standby.items()]
    for key, wire in (("partitions_by_host", "partitionsByHost"),
                      ("standby_partitions_by_host", "standbyPartitionsByHost")):
        if maybe(s, 0.5):
            hosts = {(s.text(UTF_LIMIT, "modified-utf-8"), s.integer(*INT32)):
                     topic_partitions(s, UTF_LIMIT, "modified-utf-8", distinct=True) for _ in range(s.size(True))}
            arguments[key] = [{"host": h, "port": p, "partitions": partitions_arguments(ps)}
                              for (h, p), ps in hosts.items()]
            request[wire] = [[[h, p], [list(tp) for tp in ps]] for (h, p), ps in hosts.items()]
    if maybe(s):
        code = s.rng.randint(0, 4) if maybe(s, 0.7) else s.integer(*INT32)
        arguments["err_code"] = request["errCode"] = code
    if maybe(s, 0.4):
        at = s.rng.choice((0, NO_NEXT_REBALANCE, s.integer(*INT64), s.integer(0, 2**41)))
        arguments["next_rebalance_ms"] = request["nextRebalanceMs"] = at
    finish = None
    if arguments.get("partitions_by_host") or arguments.get("standby_partitions_by_host") or maybe(s, 0.1):
        finish = dictionary_for(version)  # the topic dictionary (v5+) is the public helper's
        in_java_order(arguments, version)
    return Case(arguments, version, request, finish)


def in_java_order(arguments: dict[str, Any], version: int) -> None:
    """Raise :class:`JavaOrderError` (the case is drawn again) where the host maps' partitions fill a hash bucket
    Java turns into a tree: the helper's dictionary order there is its fallback, not Kafka's (whose own order in
    such a bucket can rest on identity hash codes). A value the model refuses is left to :func:`build`."""
    try:
        model = kafka_meta.model("AssignmentInfo")(**arguments)
    except (KafkaMetaError, ValidationError):
        return
    with_topic_dictionary(model, version, exact=True)


def dictionary_for(version: int) -> Callable[[Any], Any]:
    """What a user writing ``version`` does to an assignment with host maps: :func:`with_topic_dictionary`."""
    return lambda model: with_topic_dictionary(model, version)


def partitions_arguments(pairs: list[tuple[str, int]]) -> list[dict[str, Any]]:
    return [{"topic": t, "partition": p} for t, p in pairs]


KINDS = (
    Kind("ConsumerProtocolSubscription", draw_subscription),
    Kind("ConsumerProtocolAssignment", draw_assignment),
    Kind("StickyAssignorUserData", draw_sticky),
    Kind("CooperativeStickyAssignorUserData", draw_cooperative),
    Kind("SubscriptionInfo", draw_subscription_info),
    Kind("AssignmentInfo", draw_assignment_info),
)


def types() -> list[str]:
    """Every type ``run`` knows, as ``Result.type`` names them."""
    return [k.type for k in KINDS]


# ---------------------------------------------------------------------------------------------- both sides
def build(kind: Kind, case: Case) -> tuple[bytes | None, str | None]:
    """The project's side: the public model built from the case's keyword arguments, and encoded; or why not."""
    try:
        model = kafka_meta.model(kind.registered)(**case.arguments)
        if case.finish is not None:
            model = case.finish(model)
        return kafka_meta.encode(model, case.version), None
    except (KafkaMetaError, ValidationError) as e:
        return None, f"{type(e).__name__}: {e}"


# the kinds of reason a value is refused for, each side's words for it (Kafka's: the exception and its message)
REFUSALS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "version": (re.compile(r"version must be between 1 and|Should never try to encode a SubscriptionInfo with "
                           r"version|Only versions 1 and 2 are expected to use an UNKNOWN"),
                re.compile(r"is outside the known versions|Kafka refuses a latestSupportedVersion below the version")),
    "named topology": (re.compile(r"^TaskAssignmentException: Named topolog"),
                       re.compile(r"(?:has no field|field) namedTopology|\.namedTopology\b")),
    "too long": (re.compile(r"field is too long to be serialized|is larger than the maximum string length|"
                            r"UTFDataFormatException: encoded string .* too long"),
                 re.compile(r"exceeds (?:Kafka's|Java's writeUTF) limit")),
}


def refusal_kind(kafka: str, ours: str) -> str | None:
    """The kind of reason both refusals give (:data:`REFUSALS`), or None when they give none in common."""
    for kind, (theirs, mine) in REFUSALS.items():
        if theirs.search(kafka) and mine.search(ours):
            return kind
    return None


def check(case: Case, built: tuple[bytes | None, str | None], answer: Answer, result: Result) -> None:
    """Compare one case's two sides (``built``: the project's, from :func:`build`) and count it into ``result``."""
    result.cases += 1
    ours, refusal = built
    kafka = bytes.fromhex(answer.result["hex"]) if answer.ok else None
    if kafka is None:
        result.kafka_refusals += 1
    if ours is None:
        result.our_refusals += 1

    def example() -> dict[str, Any]:
        return {"arguments": repr(case.arguments)[:600], "version": case.version,
                "kafka request": repr(case.request)[:600]}

    if ours is not None and kafka is not None:
        if ours == kafka:
            result.identical += 1
        else:
            at = next((i for i, (a, b) in enumerate(zip(ours, kafka, strict=False)) if a != b),
                      min(len(ours), len(kafka)))
            result.differ("bytes differ", {**example(), "ours": short(ours), "kafka": short(kafka),
                                           "first difference": at})
    elif ours is None and kafka is None:
        assert refusal is not None and answer.error is not None
        if refusal_kind(answer.error, refusal) is not None:
            result.both_refused += 1
        else:
            result.differ("both refuse, for different reasons", {**example(), "ours": refusal,
                                                                 "kafka": answer.error})
    elif ours is None:
        result.differ("we refuse, Kafka writes", {**example(), "ours": refusal, "kafka": short(kafka)})
    else:
        result.differ("Kafka refuses, we write", {**example(), "ours": short(ours), "kafka": answer.error})


def run(peer: Peer, cases: int, types: set[str] | None = None, seed: int = 0,
        shard: tuple[int, int] = (0, 1)) -> list[Result]:
    """``cases`` values of each type (all, or those ``types`` names, by this family's name for it or by the
    registered type's: ``SubscriptionInfo`` runs ``SubscriptionInfo (built by hand)`` too), drawn reproducibly from
    ``seed``; while Kafka builds a batch, the project builds it too."""
    if types is not None:
        types = {k.type for k in KINDS if k.type in types or k.registered in types}

    def check_batch(kind: Kind, batch: list[Case], result: Result) -> None:
        pending = peer.submit(case.request for case in batch)
        built = [build(kind, case) for case in batch]  # while Kafka's code builds the same values
        for case, ours, answer in zip(batch, built, pending.answers(), strict=True):
            check(case, ours, answer, result)

    return run_in_batches(KINDS, cases, types, seed, shard, BATCH, check_batch)
