"""JSON as Kafka writes it: ``Message.to_json_dict()`` against Kafka's generated ``XJsonConverter``, both ways.

For every registered type that has a generated class in Kafka (those :func:`~kafka_meta.testing.conformance.
messages.kafka_class` names, at the versions :func:`~kafka_meta.testing.conformance.messages.coverage` finds a
release for), each case draws a value at a version both sides know (:class:`~kafka_meta.testing.conformance.values.
Sampler`), writes it with the project's encoder, reads those bytes back into a model and checks two things:

* **write**: the model's ``to_json_dict()`` is what Kafka's converter writes for the same bytes: the peer's
  ``message.decode`` reads them with the generated class and answers ``XJsonConverter.write(data, version)``.
  Compared strictly: the same keys in the same order, the same values of the same JSON types.
* **read**: Kafka's converter reads that JSON (``XJsonConverter.read(json, version)``, the peer's
  ``message.encode``) into a value whose bytes are the project's for the drawn value without its unknown tagged
  fields, which JSON does not carry (the converter writes none and reads none).

A case is identical when both hold; the first check that fails is its difference. A value the project's encoder
refuses is sent to Kafka as the converter's JSON of it (``message.encode``): both refusing for the same kind of
reason (:data:`WRITE_REFUSALS`: a string over the int16 length limit) is *both refuse*; Kafka writing it, or
refusing it for another reason, is a difference.

Also compared: ``MetadataRecord``, the metadata log's frame, which has no converter (Kafka frames records by hand,
``AbstractApiMessageSerde``): its ``record`` is a message of its own, whose JSON must be the one Kafka's converter
writes for that record type at the frame's record version, not at the frame's version.

Kafka Streams' ``SubscriptionInfo`` and ``AssignmentInfo`` are not here. Streams builds its generated
``SubscriptionInfoData`` (the class the project's ``SubscriptionInfo`` spec describes) without a JsonConverter: the
kafka-streams jar holds no ``*JsonConverter`` class at all, so Kafka has no JSON of it to compare with (the peer's
``message.versions`` says so). ``AssignmentInfo`` has no generated class either: Streams writes it by hand
(``DataOutputStream`` in ``AssignmentInfo.encode``). The StreamsInfo checks compare both through Streams' own classes.
Neither are the assignors' user data here (Kafka's sticky assignors write theirs with protocol ``Struct`` schemas,
not generated messages) nor the retired layouts (``Name@date``: no class of Kafka's describes them).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from kafka_meta.codec.framing import Int16Prefixed, RecordTypePrefixed, Unframed
from kafka_meta.errors import EncodeError, KafkaMetaError
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.testing.conformance import tag_rule
from kafka_meta.testing.conformance.engine import in_shard, short, shown
from kafka_meta.testing.conformance.kafka_json import from_plain, has_unknown, strip_unknown
from kafka_meta.testing.conformance.messages import Coverage, coverage, kafka_class
from kafka_meta.testing.conformance.peer import Answer, Peer
from kafka_meta.testing.conformance.results import Result, finished
from kafka_meta.testing.conformance.values import Sampler
from kafka_meta.wire.runtime import uvarint_bytes

BATCH = 100  # cases per round trip to the peer (two requests each)
SUFFIX = " (JsonConverter)"
FRAME = "MetadataRecord"  # the metadata log's frame: its record is compared at the record's own version


@dataclass
class Case:
    """One drawn value and what the project made of it."""

    version: int  # the version of the message Kafka's class is asked about (the record version, in a frame)
    value: Any  # the drawn plain value
    kafka_name: str  # Kafka's class
    release: str | None  # the kafka-clients release whose class describes the version (None: Kafka 4.4's)
    body: bytes | None = None  # the bytes Kafka's class reads (the project's encoding, without its framing)
    json: Any = None  # the project's to_json_dict() of the message read back from ``body``
    written: bytes | None = None  # the project's bytes of the value without its unknown tagged fields
    refusal: str | None = None  # why the project did not write (or read back) the value
    plain_json: Any = None  # the converter's JSON of the drawn value, for Kafka to write when the project refuses

    def request(self, op: str, **arguments: Any) -> dict[str, Any]:
        return {"op": op, "type": self.kafka_name, "version": self.version,
                **({"release": self.release} if self.release else {}), **arguments}


class Kind:
    """One registered type whose messages have a generated class in Kafka."""

    fmt: Any  # the registered format (a MessageFormat: framing, construct trees, encode and decode)

    def __init__(self, name: str, kafka_name: str, cover: Coverage) -> None:
        self.name = name
        self.kafka_name = kafka_name
        self.cover = cover
        self.fmt = REGISTRY.get(name)
        self.versions = sorted(cover.releases)
        framing = self.fmt.framing
        # the leading bytes of the project's encoding that are framing (an int16 version, a record type), not body
        self.prefix = 2 if isinstance(framing, (Int16Prefixed, RecordTypePrefixed)) else 0
        self.unframed = isinstance(framing, Unframed)

    def draw(self, sampler: Sampler) -> Case:
        version = sampler.rng.choice(self.versions)
        tree = self.fmt.construct(version)
        value = sampler.value(tree)
        while _kafka_refuses_tags(self.name, version, value):
            value = sampler.value(tree)
        case = Case(version, value, self.kafka_name, self.cover.releases[version])
        try:
            framed = self.fmt.encode(value, version)
            plain = strip_unknown(value, tree)
            case.written = (framed if not has_unknown(value, tree) else self.fmt.encode(plain, version))[self.prefix:]
        except EncodeError as e:
            case.refusal = f"we refuse to write it: {e}"
            case.plain_json = from_plain(strip_unknown(value, tree), tree)
            return case
        case.body = framed[self.prefix:]
        try:
            message = self.fmt.decode(framed, version=version if self.unframed else None)
            case.json = self.json_of(message)
        except KafkaMetaError as e:
            case.refusal = f"we cannot read back what we wrote: {e}"
        return case

    def json_of(self, message: Any) -> Any:
        return message.to_json_dict()


class FrameKind(Kind):
    """The metadata log's frame: the record inside it, compared with Kafka's class of the record's type."""

    def __init__(self, covers: dict[str, Coverage]) -> None:
        self.name = FRAME
        self.fmt = REGISTRY.get(FRAME)
        self.covers = covers  # by the record's registered type, which is Kafka's class's name

    def draw(self, sampler: Sampler) -> Case:
        tree = self.fmt.construct(1)
        while True:  # a record type and version a release of Kafka's describes (a loaded spec may have none)
            value = sampler.value(tree)
            record_type = self.fmt.model.record_formats()[value["api_key"]].name
            release = self.covers.get(record_type, Coverage({}, ())).releases
            if value["record_version"] in release and not _kafka_refuses_tags(record_type, value["record_version"],
                                                                              value["record"]):
                break
        version = value["record_version"]
        record_tree = REGISTRY.get(record_type).construct(version)  # type: ignore[attr-defined]
        case = Case(version, value, record_type, release[version])
        head = len(uvarint_bytes(value["frame_version"])) + len(uvarint_bytes(value["api_key"])) + len(
            uvarint_bytes(version))
        try:
            framed = self.fmt.encode(value, 1)
            plain = {**value, "record": strip_unknown(value["record"], record_tree)}
            unknown = has_unknown(value["record"], record_tree)
            case.written = (self.fmt.encode(plain, 1) if unknown else framed)[head:]
        except EncodeError as e:
            case.refusal = f"we refuse to write it: {e}"
            case.plain_json = from_plain(strip_unknown(value["record"], record_tree), record_tree)
            return case
        case.body = framed[head:]
        try:
            case.json = self.fmt.decode(framed).to_json_dict()["record"]
        except KafkaMetaError as e:
            case.refusal = f"we cannot read back what we wrote: {e}"
        return case


def _kafka_refuses_tags(type_name: str, version: int, value: Any) -> bool:
    """Whether a drawn value holds, as an unknown tagged field, a tag its spec gives a field at another version:
    Kafka's reader refuses such bytes (deliberate difference ``tag-of-another-version``, compared by the codecs'
    subjects), so they have no JSON of Kafka's to compare with."""
    other = _other_version_tags(type_name, version)
    if not other:
        return False
    entries = tag_rule.unknown_in_plain(value, REGISTRY.get(type_name).construct(version))  # type: ignore[attr-defined]
    return any(tag_rule.another_versions_tag(entries, other, e[1]) for e in entries)


@cache
def _other_version_tags(type_name: str, version: int) -> dict[str, set[int]]:
    return tag_rule.tags_of_other_versions(REGISTRY.get(type_name), version)


# why a writer refuses a value: (the project's EncodeError, Kafka's exception) for each kind of refusal
WRITE_REFUSALS = {
    "string too long": (re.compile(r"exceeds Kafka's limit"), re.compile(r"field is too long to be serialized")),
}


def same_refusal(ours: str, kafka: str) -> bool:
    """Whether both refused to write a value for the same kind of reason (:data:`WRITE_REFUSALS`); a refusal no
    entry describes agrees with nothing."""
    return any(mine.search(ours) and theirs.search(kafka) for mine, theirs in WRITE_REFUSALS.values())


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON texts would be: the same keys in the same order, and ``true`` is not ``1``, nor ``1.0`` ``1``."""
    if isinstance(a, dict):
        return (isinstance(b, dict) and list(a) == list(b)
                and all(same_json(x, b[k]) for k, x in a.items()))
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    return a == b or (isinstance(a, float) and a != a and b != b)  # NaN is NaN


def check(cases: list[Case], answers: Iterator[Answer], result: Result) -> None:
    """Count each case in ``result``: identical, both refused, or its first difference."""
    for case in cases:
        result.cases += 1
        example = _example(case)
        if case.body is None:  # the project refused to write the value: Kafka was asked to write it
            wrote = next(answers)
            result.our_refusals += 1
            if wrote.ok:
                result.differ("we refuse to write, Kafka writes", example(ours=case.refusal,
                                                                          kafka=short(_written(wrote))))
                continue
            result.kafka_refusals += 1
            if same_refusal(case.refusal or "", wrote.error or ""):
                result.both_refused += 1
            else:
                result.differ("both refuse to write, for different reasons", example(ours=case.refusal,
                                                                                     kafka=wrote.error))
            continue
        read, wrote = next(answers), next(answers)
        if case.refusal is not None:
            result.our_refusals += 1
            result.differ("we cannot read back what we wrote", example(ours=case.refusal, bytes=short(case.body)))
        elif not read.ok:
            result.kafka_refusals += 1
            result.differ("Kafka refuses our bytes", example(ours=short(case.body), kafka=read.error))
        elif not same_json(case.json, read.result["json"]):
            result.differ("to_json_dict differs from Kafka's converter", example(
                bytes=short(case.body), ours=shown(case.json), kafka=shown(read.result["json"])))
        elif not wrote.ok:
            result.kafka_refusals += 1
            result.differ("Kafka's converter refuses our JSON", example(ours=shown(case.json), kafka=wrote.error))
        elif _written(wrote) != case.written:
            result.differ("Kafka writes other bytes from our JSON", example(
                json=shown(case.json), ours=short(case.written), kafka=short(_written(wrote))))
        else:
            result.identical += 1


def _example(case: Case) -> Any:
    """``example(**more)``: a difference's example for ``case``, built only when there is a difference (the repr of a
    large value is not cheap)."""
    return lambda **more: {"version": case.version, "value": shown(case.value), **more}


def _written(answer: Answer) -> bytes:
    """The bytes of Kafka's answer to ``message.encode``."""
    return bytes.fromhex(answer.result["hex"])


def requests(case: Case) -> list[dict[str, Any]]:
    if case.body is None:
        return [case.request("message.encode", json=case.plain_json)]
    # the JSON is sent even when the project could not make it (null): the answers keep their places
    return [case.request("message.decode", hex=case.body.hex()), case.request("message.encode", json=case.json)]


def kinds(peer: Peer, types: set[str] | None) -> list[Kind]:
    """Every registered type with a generated class of Kafka's (``types``: only these), and the metadata frame, whose
    records are the metadata types."""
    out: list[Kind] = []
    records: dict[str, Coverage] = {}
    frame = FRAME in REGISTRY.names() and (types is None or FRAME in types)
    for name in REGISTRY.names():
        fmt = REGISTRY.get(name)
        kafka_name = kafka_class(name, getattr(fmt, "family", ""))
        wanted = types is None or name in types
        record = frame and getattr(fmt, "family", "") == "metadata"
        if kafka_name is None or not hasattr(fmt, "construct") or not (wanted or record):
            continue
        cover = coverage(peer, kafka_name, list(fmt.versions))
        if record:
            records[name] = cover
        if wanted and cover.releases:
            out.append(Kind(name, kafka_name, cover))
    if records:
        out.append(FrameKind(records))
    return out


def run(peer: Peer, cases: int, types: set[str] | None, seed: int, shard: tuple[int, int] = (0, 1)) -> list[Result]:
    results = []
    for n, kind in enumerate(kinds(peer, types)):
        if not in_shard(n, shard):
            continue
        sampler = Sampler(random.Random(f"{seed}/json/{kind.name}"))
        result = Result(kind.name + SUFFIX)
        done = 0
        while done < cases:
            batch = [kind.draw(sampler) for _ in range(min(BATCH, cases - done))]
            pending = peer.submit([r for case in batch for r in requests(case)])
            check(batch, iter(pending.answers()), result)
            done += len(batch)
        results.append(finished(result))
    return results
