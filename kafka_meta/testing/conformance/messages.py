"""Messages Kafka describes with generated classes, compared through those classes (the peer's ``message.*``).

Every registered type that has a generated class in Kafka (request and response bodies, the consumer protocol's
messages, ``__consumer_offsets`` keys and values, metadata records, transaction markers and the KRaft log's control
record values) is compared at every
version both know, as a body: the version travels outside it (an int16 prefix, a record type, a request header).
Values are compared in Kafka's JSON converter form (:mod:`~kafka_meta.testing.conformance.kafka_json`), together
with the bytes each side writes back for what it read: Kafka keeps unknown tagged fields and writes them back, and so
does the project.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from kafka_meta.codec.framing import Int16Prefixed, LeadingVersion, RecordTypePrefixed, Unframed
from kafka_meta.errors import EncodeError, KafkaMetaError
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.formats.control import KRAFT_CONTROL_VALUES
from kafka_meta.golden.subjects import decode_message, present_only
from kafka_meta.testing.conformance import deliberate as why
from kafka_meta.testing.conformance import refusals, tag_rule
from kafka_meta.testing.conformance.engine import MUTANTS, Drawn, Read, Subject, damage
from kafka_meta.testing.conformance.kafka_json import from_plain, has_unknown, kafka_form, strip_unknown
from kafka_meta.testing.conformance.peer import Answer, Peer
from kafka_meta.testing.conformance.values import Sampler
from kafka_meta.wire.errors import Fault

# older kafka-clients releases the peer can load, newest first: the versions 4.4's classes no longer have
# (KIP-896 removed OffsetCommit v0-v1 and OffsetFetch v0 in 4.0; ShareGroupHeartbeat and ShareGroupDescribe v0 are
# 4.0's early access)
RELEASES = ("4.0.0", "3.9.1")


def kafka_class(name: str, family: str) -> str | None:
    """The simple name of Kafka's generated class for a registered type (None: Kafka has none)."""
    if "@" in name:
        return None  # a layout Kafka has since changed or retired: no class of 4.4 describes it
    if family == "protocol":
        return name + "Data"
    if family in ("consumer", "offsets", "transaction-log", "share-state", "metadata") or name == "EndTxnMarker" \
            or name in KRAFT_CONTROL_VALUES:
        return name
    return None


@dataclass(frozen=True)
class Coverage:
    """Which versions of a type are compared, and with which release's class (None: Kafka 4.4's)."""

    releases: dict[int, str | None]
    missing: tuple[int, ...]  # versions no release the peer has describes


def coverage(peer: Peer, kafka_name: str, versions: list[int]) -> Coverage:
    ranges: dict[str | None, tuple[int, int]] = {}
    for release in (None, *RELEASES):
        request = {"op": "message.versions", "type": kafka_name, **({"release": release} if release else {})}
        answer = next(iter(peer.many([request])))
        if answer.ok:
            ranges[release] = (answer.result["lowest"], answer.result["highest"])
    found: dict[int, str | None] = {}
    for v in versions:
        for release, (low, high) in ranges.items():
            if low <= v <= high:
                found[v] = release
                break
    return Coverage(found, tuple(v for v in versions if v not in found))


class MessageSubject(Subject):
    family = "Messages"

    def __init__(self, name: str, kafka_name: str, cover: Coverage) -> None:
        self.fmt = REGISTRY.get(name)
        self.name = name
        self.types = (name,)
        self.kafka_name = kafka_name
        self.cover = cover
        self.versions = sorted(cover.releases)
        framing = self.fmt.framing  # type: ignore[attr-defined]
        # how many leading bytes of the project's encoding are framing, not body
        self.prefix = 2 if isinstance(framing, (Int16Prefixed, RecordTypePrefixed)) else 0
        self.leading = isinstance(framing, LeadingVersion)  # the version is the body's first field
        self.unframed = isinstance(framing, Unframed)
        self.sampler: Sampler | None = None

    def _request(self, version: int, **arguments: Any) -> dict[str, Any]:
        release = self.cover.releases[version]
        return {"type": self.kafka_name, "version": version, **({"release": release} if release else {}), **arguments}

    def draw(self, rng: random.Random) -> Drawn:
        if self.sampler is None or self.sampler.rng is not rng:
            self.sampler = Sampler(rng)
        version = rng.choice(self.versions)
        tree = self.fmt.construct(version)  # type: ignore[attr-defined]
        value = self.sampler.value(tree)
        plain = strip_unknown(value, tree)
        # what Kafka's converter shows: for the value read back it keeps the unknown tagged fields, so a nested
        # struct holding some is not at its default and is shown; for what Kafka itself writes it has none
        expected_json, written_json = from_plain(value, tree), from_plain(plain, tree)
        try:
            ours = self.fmt.encode(value, version)[self.prefix:]
            written = ours if not has_unknown(value, tree) else self.fmt.encode(plain, version)[self.prefix:]
            refusal = None
        except EncodeError as e:
            ours = written = None
            refusal = str(e)
        return Drawn(version, value, ours, refusal,
                     {"op": "message.encode", **self._request(version, json=written_json)},
                     (expected_json, ours.hex() if ours is not None else None),
                     written=written, expected_written=(written_json, written.hex() if written is not None else None))

    def kafka_read_request(self, data: bytes, drawn: Drawn) -> dict[str, Any]:
        return {"op": "message.decode", **self._request(drawn.version, hex=data.hex(), rewrite=True)}

    def kafka_read(self, answer: Answer, drawn: Drawn) -> Read:
        if not answer.ok:
            return Read(refused=answer.error)
        result = answer.result
        return Read((result["json"], result.get("rewritten")), unread=result["remaining"],
                    facts={"rewrite error": result.get("rewriteError")})

    def framed(self, data: bytes, version: int) -> bytes:
        """The body as the project reads it: with its framing (the int16 version or the record type) in front."""
        framing = self.fmt.framing  # type: ignore[attr-defined]
        if isinstance(framing, RecordTypePrefixed):
            return framing.record_type.to_bytes(2, "big", signed=True) + data
        if self.prefix:
            return version.to_bytes(2, "big", signed=True) + data
        return data

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        framed = self.framed(data, drawn.version)
        if not explain:  # only whether it reads (DecodeError without the re-read that says where)
            self.fmt.decode(framed, version=drawn.version if self.unframed else None, explain=False)
        message, layout = decode_message(self.fmt, framed, drawn.version)
        full = present_only(message.to_json_dict(), layout)
        json = kafka_form(full, layout)
        trailing = message.unknown_trailing
        # the production reading's own message and its layout: the tag-size rule looks for the situation it
        # excuses there
        facts: dict[str, Any] = {"message": message, "layout": layout}
        try:
            rewritten = self.fmt.encode(message)[self.prefix:]
            if trailing:
                rewritten = rewritten[:-len(trailing)]
        except EncodeError as e:  # read, but not writable back (a tag twice): as Kafka's writer refuses that too
            rewritten, facts["rewrite error"] = None, str(e)
        return Read((json, None if rewritten is None else rewritten.hex()), unread=len(trailing), facts=facts)

    def same(self, ours: Read, kafka: Read) -> bool:
        # where a side reads what it cannot write back (unknown tagged fields out of order or twice), the values
        # are compared and the rewriting is not
        if kafka.facts.get("rewrite error") or ours.facts.get("rewrite error"):
            return ours.view[0] == kafka.view[0] and ours.unread == kafka.unread
        return super().same(ours, kafka)

    def tree_read(self, data: bytes, drawn: Drawn, kafka_tags: bool = False, older_release: bool = False) -> Read:
        """The construct tree's reading of ``data`` (a second reader beside the production one): with the project's
        rule for known tagged fields, or Kafka's (``kafka_tags``: read by their type, the declared size unchecked),
        or an older release's reading of a negative tagged-field count (``older_release``)."""
        framed = self.framed(data, drawn.version)
        misfits: list[int] = []
        negative: list[int] | None = [] if older_release else None
        value, end, tree = tag_rule.parse_tree(self.fmt, framed, drawn.version if self.unframed else None,
                                               kafka_tags, misfits, negative)
        facts = {"tag misfits": misfits, "negative tag counts": negative}
        if tree is None:
            return Read(refused=str(value), facts=facts, error=value)
        return Read((from_plain(value, tree), None), unread=len(framed) - end,
                    facts={**facts, "rewrite error": "not written back",
                           "unknown tags": tag_rule.unknown_in_plain(value, tree)})

    def production_situation(self, ours: Read, data: bytes, drawn: Drawn) -> Read:
        """``ours`` with what the tag-size rule looks for: the unknown tagged fields the production reader kept
        (``unknown tags``), and whether it refused a known tag's size past the end (``refused known tag``)."""
        facts = dict(ours.facts)
        if ours.refused is None:
            facts["unknown tags"] = tag_rule.unknown_of(facts.get("message"), facts.get("layout"))
        else:
            facts["refused known tag"] = tag_rule.refused_known_tag(ours.error, self._layout(data, drawn))
        return Read(ours.view, ours.refused, ours.unread, facts, ours.error)

    def refusal_places(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> tuple[bool, str] | None:
        if ours.error is None or kafka.refused is None:
            return None
        return refusals.places_agree(kafka.refused, self.kafka_name, self._layout(data, drawn),
                                     getattr(ours.error, "path", "") or "")

    def _layout(self, data: bytes, drawn: Drawn) -> Any:
        try:
            framed = self.framed(data, drawn.version)
            header = self.fmt.header(framed, drawn.version if self.unframed else None)  # type: ignore[attr-defined]
            return None if header.layout_version is None else self.fmt.construct(header.layout_version)  # type: ignore[attr-defined]
        except (Fault, KafkaMetaError):
            return None

    def mutants(self, data: bytes, rng: random.Random) -> list[bytes]:
        # the leading version is the framing's: Kafka's class is told the version, so it stays as it was
        return damage(data, rng, MUTANTS, keep=4 if self.leading else 0)

    def deliberate(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> why.Deliberate | None:
        production = self.production_situation(ours, data, drawn)
        found = why.recognise_tag_sizes(production, self.tree_read(data, drawn),
                                        self.tree_read(data, drawn, kafka_tags=True), kafka, self.same)
        if found is None and self.cover.releases[drawn.version]:
            found = why.recognise_release(production, self.tree_read(data, drawn),
                                          self.tree_read(data, drawn, older_release=True), kafka, self.same)
        if found is None:  # a tag the spec gives a field at other versions only (the metadata records have some)
            other = tag_rule.tags_of_other_versions(self.fmt, drawn.version)
            found = why.recognise_tag_of_another_version(production, kafka, other) if other else None
        return found


def subjects(peer: Peer, types: set[str] | None) -> list[Subject]:
    out: list[Subject] = []
    for name in REGISTRY.names():
        if types is not None and name not in types:
            continue
        fmt = REGISTRY.get(name)
        kafka_name = kafka_class(name, getattr(fmt, "family", ""))
        if kafka_name is None or not hasattr(fmt, "construct"):
            continue
        cover = coverage(peer, kafka_name, list(fmt.versions))
        if cover.releases:
            out.append(MessageSubject(name, kafka_name, cover))
    return out
