"""Records as Kafka's logs hold them, through the serdes its coordinators and its metadata log use (the peer's
``records.*``).

* ``__consumer_offsets``: every record type, key and value together, tombstones included, through
  ``GroupCoordinatorRecordSerde`` and the project's :func:`~kafka_meta.offsets.decode_record` (lenient, as the
  project reads logs by default). Kafka 4.4 refuses record types and value versions it has no class for (its
  loader skips such records); the project reads them (the retired types with their older layouts, newer versions
  KIP-915 style), which the deliberate differences name.
* ``__transaction_state`` and ``__share_group_state``: the same, through ``TransactionCoordinatorRecordSerde`` and
  ``ShareCoordinatorRecordSerde`` against :mod:`kafka_meta.internal_topics` (the same catalogue reader).
* the metadata log's frame: ``MetadataRecordSerde`` against the project's ``MetadataRecord``, for every record type
  the project registers (every one Kafka 4.4 has, all their versions).
* ``__remote_log_metadata``: the same frame around tiered storage's four record types, through the remote-log
  metadata records' ``BytesApiMessageSerde`` against the project's reader of that topic
  (:func:`kafka_meta.internal_topics.remote_log_metadata.decode_record`).

A record travels through the engine as one byte string: the key's length (4 bytes), the key, then, unless it is a
tombstone, a 1 and the value.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from kafka_meta.codec.framing import read_number
from kafka_meta.errors import EncodeError, KafkaMetaError
from kafka_meta.formats import share_state, transaction_log
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.formats.family import CoordinatorLog, build_catalog
from kafka_meta.formats.offsets import LOG as OFFSETS
from kafka_meta.golden.subjects import present_only
from kafka_meta.internal_topics import remote_log_metadata
from kafka_meta.internal_topics.coordinator_log import decode as decode_coordinator_record
from kafka_meta.offsets import decode_record
from kafka_meta.offsets.records import UnknownRecord
from kafka_meta.testing.conformance import commit_lanes, refusals, tag_rule
from kafka_meta.testing.conformance import deliberate as why
from kafka_meta.testing.conformance.engine import Drawn, Read, Subject, damage
from kafka_meta.testing.conformance.kafka_json import from_plain, has_unknown, kafka_form, strip_unknown
from kafka_meta.testing.conformance.messages import coverage
from kafka_meta.testing.conformance.peer import Answer, Peer
from kafka_meta.testing.conformance.values import Sampler
from kafka_meta.wire.errors import Fault

METADATA_RECORD = "MetadataRecord"
RECORD_FIELD = "record"  # the frame's field holding the record


def pack(key: bytes, value: bytes | None) -> bytes:
    return len(key).to_bytes(4, "big") + key + (b"" if value is None else b"\x01" + value)


def unpack(data: bytes) -> tuple[bytes, bytes | None]:
    n = int.from_bytes(data[:4], "big")
    rest = data[4 + n:]
    return data[4:4 + n], (rest[1:] if rest else None)


def json_of(message: Any, fmt: Any, layout_version: int) -> Any:
    layout = fmt.construct(layout_version)
    return kafka_form(present_only(message.to_json_dict(), layout), layout)


Reader = Callable[[bytes, "bytes | None"], Any]


def read_offsets(key: bytes, value: bytes | None) -> Any:
    """The production reader of ``__consumer_offsets`` (its nest aside: the serde does not read it)."""
    return decode_record(key, value, nested=False)


class Coordinator:
    """A coordinator log compared with its serde: the log, the peer's operations (``records.<op>.*``), the serde's
    name, the project's reader of its records, and the log's catalogue."""

    def __init__(self, log: CoordinatorLog, op: str, serde: str, reader: Reader) -> None:
        self.log, self.op, self.serde, self.reader = log, op, serde, reader
        self.catalog = build_catalog(REGISTRY, log)


def coordinators() -> list[Coordinator]:
    def reader_of(log: CoordinatorLog) -> Reader:
        return lambda key, value: decode_coordinator_record(log, key, value, False)

    return [Coordinator(OFFSETS, "group", "GroupCoordinatorRecordSerde", read_offsets),
            Coordinator(transaction_log.LOG, "transaction", "TransactionCoordinatorRecordSerde",
                        reader_of(transaction_log.LOG)),
            Coordinator(share_state.LOG, "share", "ShareCoordinatorRecordSerde", reader_of(share_state.LOG))]


class GroupRecordSubject(Subject):
    """A coordinator's record type (``__consumer_offsets``' and the others'), key and value through its serde."""

    family = "Records"

    def __init__(self, number: int, record: Any, versions: list[int], known_to_kafka: bool,
                 coordinator: Coordinator | None = None) -> None:
        self.coordinator = coordinator or coordinators()[0]
        self.current = self.coordinator.log.current
        self.number = number
        self.record = record
        self.name = f"{record.name} record ({self.coordinator.serde})"
        self.types = (record.key.name, record.values.name, record.name)
        self.key_fmt = record.key
        self.value_fmt = record.values.variants[0].format  # the current layout
        self.versions = versions
        self.known_to_kafka = known_to_kafka
        self.sampler: Sampler | None = None

    def draw(self, rng: random.Random) -> Drawn:
        if self.sampler is None or self.sampler.rng is not rng:
            self.sampler = Sampler(rng)
        version = rng.choice(self.versions)
        key_tree = self.key_fmt.construct(0)
        key = self.sampler.value(key_tree)
        tombstone = rng.random() < 0.1
        value = None if tombstone else self.sampler.value(self.value_fmt.construct(version))
        value_tree = self.value_fmt.construct(version)
        key_plain = strip_unknown(key, key_tree)
        value_plain = None if value is None else strip_unknown(value, value_tree)
        request: dict[str, Any] | None = None
        if self.known_to_kafka:
            request = {"op": f"records.{self.coordinator.op}.serialize", "recordType": self.number,
                       "key": from_plain(key_plain, key_tree), "version": version,
                       "value": None if value_plain is None else from_plain(value_plain, value_tree)}
        try:
            ours = pack(self.key_fmt.encode(key), None if value is None else self.value_fmt.encode(value, version))
            written = ours
            if has_unknown(key, key_tree) or (value is not None and has_unknown(value, value_tree)):
                written = pack(self.key_fmt.encode(key_plain),
                               None if value_plain is None else self.value_fmt.encode(value_plain, version))
            refusal = None
        except EncodeError as e:
            ours = written = None
            refusal = str(e)
        # read back, a nested struct keeps its unknown tagged fields (and so is not at its default): Kafka's
        # converter shows it; what Kafka writes itself has none
        expected = self.view(key_tree, key, version, value_tree, value)
        expected_written = self.view(key_tree, key_plain, version, value_tree, value_plain)
        return Drawn(version, {"key": key, "value": value}, ours, refusal, request, expected, written=written,
                     expected_written=expected_written)

    def view(self, key_tree: Any, key: Any, version: int, value_tree: Any, value: Any) -> dict[str, Any]:
        return {"recordType": self.number, "key": from_plain(key, key_tree),
                "version": None if value is None else version,
                "value": None if value is None else from_plain(value, value_tree),
                "keyRemaining": 0, "valueRemaining": None if value is None else 0}

    def kafka_bytes(self, result: Any) -> bytes:
        return pack(bytes.fromhex(result["key"]), None if result["value"] is None else bytes.fromhex(result["value"]))

    def kafka_read_request(self, data: bytes, drawn: Drawn) -> dict[str, Any]:
        key, value = unpack(data)
        return {"op": f"records.{self.coordinator.op}.deserialize", "key": key.hex(),
                "value": None if value is None else value.hex()}

    def kafka_read(self, answer: Answer, drawn: Drawn) -> Read:
        if not answer.ok:
            return Read(refused=answer.error)
        r = answer.result
        tombstone = r["value"] is None
        return Read({"recordType": r["recordType"], "key": r["key"], "version": None if tombstone else r["version"],
                     "value": r["value"], "keyRemaining": r["keyRemaining"],
                     "valueRemaining": None if tombstone else r["valueRemaining"]})

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        key, value = unpack(data)
        lanes = self.coordinator.log is OFFSETS  # report's fast lanes read this log's commits: held here too
        try:
            record = self.coordinator.reader(key, value)
        except (KafkaMetaError, ValueError):
            wrong = commit_lanes.disagreement(key, value, None) if lanes else None
            if wrong is None:
                raise
            return Read({"fastLane": wrong})  # a lane reads what the typed reader refuses: never Kafka's read
        wrong = commit_lanes.disagreement(key, value, record) if lanes else None
        if wrong is not None:
            return Read({"fastLane": wrong})
        if isinstance(record, UnknownRecord):
            return Read({"recordType": record.record_type}, facts={"unknown type": True})
        # the current layouts' label is the log's own: the deliberate differences know no label but offsets'
        variant = None if record.value_variant == self.current else record.value_variant
        facts = {"variant": variant, "read forward": record.read_forward, "retired": record.retired}
        key_fmt = self._catalog()[record.record_type].key  # damage may have made it a record of another type
        view: dict[str, Any] = {"recordType": record.record_type, "key": json_of(record.key, key_fmt, 0),
                                "version": None, "value": None, "keyRemaining": len(record.key.unknown_trailing),
                                "valueRemaining": None}
        if record.value is not None:
            layout_fmt = self._layout_format(record)
            header = layout_fmt.header(value)
            view.update(version=record.value_version,
                        value=json_of(record.value, layout_fmt, header.layout_version),
                        valueRemaining=len(record.value.unknown_trailing))
        return Read(view, facts=facts)

    def mutants(self, data: bytes, rng: random.Random) -> list[bytes]:
        key, value = unpack(data)
        out = []
        for _ in range(2):
            r = rng.random()
            if value is not None and r < 0.7:
                out.append(pack(key, damage(value, rng, 1)[0]))
            elif r < 0.75:
                out.append(pack(key, None if value is not None else b""))
            elif r < 0.85 and value is not None:  # a version newer than known over the same value
                out.append(pack(key, rng.choice((self.versions[-1] + 1, 0x7FFF)).to_bytes(2, "big") + value[2:]))
            else:
                out.append(pack(damage(key, rng, 1)[0], value))
        return out

    def refusal_places(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> tuple[bool, str] | None:
        """Compared where the project's error names a key or value type Kafka has a class of the same name for (not
        an older layout's, nor a record framing's own refusal)."""
        error = ours.error
        name = getattr(error, "type_name", None)
        if error is None or kafka.refused is None or not name or "@" in name:
            return None
        try:
            fmt = REGISTRY.get(name)
            layout = fmt.construct(fmt.layout_slot(min(error.version, max(fmt.versions))))
        except (KafkaMetaError, KeyError, TypeError, ValueError):
            return None
        return refusals.places_agree(kafka.refused, name, layout, getattr(error, "path", "") or "")

    def companion_request(self, data: bytes, drawn: Drawn) -> dict[str, Any] | None:
        """For a value of a version newer than Kafka 4.4 knows: Kafka's reading of the same value as the newest
        version it knows (what the project's forward reading must equal to be the deliberate difference)."""
        key, value = unpack(data)
        newest = self.newest_known(key)
        if newest is None or value is None or len(value) < 2:
            return None
        if int.from_bytes(value[:2], "big", signed=True) <= newest:
            return None
        return self.kafka_read_request(pack(key, newest.to_bytes(2, "big", signed=True) + value[2:]), drawn)

    def newest_known(self, key: bytes) -> int | None:
        """The newest value version of the record type the key names (damage may have made it another type's),
        as Kafka 4.4 knows it: this subject's covered versions for its own type, the current layout's for another
        type that has one (the same as Kafka 4.4's); None for a retired or unknown type."""
        rt = self._catalog().get(int.from_bytes(key[:2], "big", signed=True)) if len(key) >= 2 else None
        if rt is None or not any(v.label == self.current for v in rt.values.variants):
            return None
        if rt.number == self.number and self.known_to_kafka:
            return self.versions[-1]
        return max(rt.values.variants[0].format.versions)

    def deliberate(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> why.Deliberate | None:
        same = Subject.same.__get__(self)
        forward = None
        companion = kafka.facts.get("companion")
        if companion is not None and ours.refused is not None:
            forward = self.kafka_read(companion, drawn)
        if ours.refused is not None:  # what the refused bytes are: a retired type's, a value of a newer version
            ours = Read(ours.view, ours.refused, ours.unread, {**ours.facts, **self.record_facts(data)}, ours.error)
            if forward is not None and forward.refused is None:  # shown with the version on the wire
                _key, value = unpack(data)
                forward.view["version"] = int.from_bytes(value[:2], "big", signed=True)
        elif companion is not None:
            forward = self.kafka_read(companion, drawn)
            if forward.refused is None:  # as read at the newest version, shown with the version on the wire
                forward.view["version"] = ours.view["version"]
        found = why.recognise_record(ours, kafka, self.current_layout_read(data, ours), forward, same,
                                     self.current_layout_read(data, ours, forward=True))
        if found is None:
            tag_size = why.recognise_tag_sizes(self.production_situation(ours, data), self.tree_read(data),
                                               self.tree_read(data, kafka_tags=True), forward or kafka, same)
            # a value of a newer version holding a misfitting tag: Kafka, reading it as the newest version it knows,
            # differs from the project's forward reading by the tag-size rule alone (both situations at once)
            found = why.get("offsets-newer-value-version") if tag_size and forward is not None else tag_size
        return found

    def record_facts(self, data: bytes) -> dict[str, Any]:
        """What the bytes of a record the project refused are, read from its framing alone: a retired record type's
        (``retired``), or a value of a version newer than the project knows (``read forward``)."""
        key, value = unpack(data)
        rt = self._catalog().get(int.from_bytes(key[:2], "big", signed=True)) if len(key) >= 2 else None
        if rt is None:
            return {}
        if not any(v.label == self.current for v in rt.values.variants):
            return {"retired": True}
        newest = max(rt.values.variants[0].format.versions)
        newer = value is not None and len(value) >= 2 and int.from_bytes(value[:2], "big", signed=True) > newest
        return {"read forward": newer}

    def current_layout_read(self, data: bytes, ours: Read, forward: bool = False) -> Read | None:
        """For a record the production reader read with an older layout: the production reader's reading of the
        same bytes with the current layout only (Kafka 4.4's one layout); ``forward``: a value of a newer version
        read as the newest, shown with the version on the wire (as Kafka's class reads it when asked to)."""
        variant = ours.facts.get("variant")
        if ours.refused is not None or variant in (None, self.current):
            return None
        _key, value = unpack(data)
        number = ours.view["recordType"]
        current = self._catalog()[number].values.variants[0]
        if value is None or current.label != self.current:
            return None
        newest = max(current.format.versions)
        if forward and len(value) >= 2 and int.from_bytes(value[:2], "big", signed=True) > newest:
            # read forward, as Kafka's class reads a newer value when asked to read it as its newest version
            value = newest.to_bytes(2, "big", signed=True) + value[2:]
        try:
            message = current.format.decode(value)
        except KafkaMetaError as e:
            return Read(refused=str(e), error=e)
        header = current.format.header(value)
        return Read({**ours.view,
                     "value": json_of(message, current.format, header.layout_version),
                     "valueRemaining": len(message.unknown_trailing)})

    def _value_format(self, data: bytes) -> tuple[Any, bytes | None, Any]:
        """The current layout's format of the record's type (as its key says), the value, and the key read."""
        key, value = unpack(data)
        record = self.coordinator.reader(key, None)
        if isinstance(record, UnknownRecord):
            raise KafkaMetaError("unknown record type")
        return self._catalog()[record.record_type].values.variants[0].format, value, record

    def production_situation(self, ours: Read, data: bytes) -> Read:
        """``ours`` with the unknown tagged fields the production reader kept in the value, or whether its refusal
        was a known tag's size past the end (what the tag-size rule looks for)."""
        facts = dict(ours.facts)
        try:
            value_fmt, value, _ = self._value_format(data)
        except KafkaMetaError:
            return ours
        if value is None:
            return ours
        if ours.refused is None:
            try:
                message = value_fmt.decode(value)
                layout = value_fmt.construct(value_fmt.header(value).layout_version)
            except KafkaMetaError:
                return ours
            facts["unknown tags"] = tag_rule.unknown_of(message, layout)
        else:
            try:
                layout = value_fmt.construct(value_fmt.header(value).layout_version)
            except (KafkaMetaError, Fault):
                layout = None
            facts["refused known tag"] = tag_rule.refused_known_tag(ours.error, layout)
        return Read(ours.view, ours.refused, ours.unread, facts, ours.error)

    def tree_read(self, data: bytes, kafka_tags: bool = False) -> Read:
        """The construct tree's reading of the record's value (a second reader beside the production one), with the
        project's rule for known tagged fields or Kafka's (``kafka_tags``)."""
        try:
            value_fmt, value, record = self._value_format(data)
        except KafkaMetaError as e:
            return Read(refused=str(e))
        if value is None:
            return Read(refused="a tombstone has no tagged fields")
        misfits: list[int] = []
        parsed, end, tree = tag_rule.parse_tree(value_fmt, value, None, kafka_tags, misfits)
        if tree is None:
            return Read(refused=str(parsed), facts={"tag misfits": misfits}, error=parsed)
        key_fmt = self._catalog()[record.record_type].key
        return Read({"recordType": record.record_type, "key": json_of(record.key, key_fmt, 0),
                     "version": int.from_bytes(value[:2], "big", signed=True),
                     "value": from_plain(parsed, tree),
                     "keyRemaining": len(record.key.unknown_trailing), "valueRemaining": len(value) - end},
                    facts={"tag misfits": misfits, "unknown tags": tag_rule.unknown_in_plain(parsed, tree)})


    def _catalog(self) -> dict[int, Any]:
        return self.coordinator.catalog  # type: ignore[no-any-return]

    def _layout_format(self, record: Any) -> Any:
        rt = self._catalog()[record.record_type]
        for variant in rt.values.variants:
            if variant.label == record.value_variant:
                return variant.format
        return rt.values.variants[0].format


class MetadataRecordSubject(Subject):
    """The metadata log's frame around each record type the project registers (every type Kafka 4.4 has)."""

    family = "Records"
    name = f"{METADATA_RECORD} (MetadataRecordSerde)"
    types = (METADATA_RECORD,)

    op = "metadata"  # the peer's records.<op>.* operations

    def __init__(self, bodies: dict[int, tuple[Any, list[int]]], fmt: Any = None) -> None:
        self.fmt = fmt or REGISTRY.get(METADATA_RECORD)
        self.bodies = bodies  # apiKey -> (format, versions)
        self.sampler: Sampler | None = None

    def draw(self, rng: random.Random) -> Drawn:
        if self.sampler is None or self.sampler.rng is not rng:
            self.sampler = Sampler(rng)
        api_key = rng.choice(sorted(self.bodies))
        body_fmt, versions = self.bodies[api_key]
        version = rng.choice(versions)
        tree = body_fmt.construct(version)
        body = self.sampler.value(tree)
        plain = strip_unknown(body, tree)
        frame = {"frame_version": 1, "api_key": api_key, "record_version": version, "record": body}
        try:
            ours, refusal = self.fmt.encode(frame, 1), None
            written = ours if not has_unknown(body, tree) else self.fmt.encode({**frame, "record": plain}, 1)
        except EncodeError as e:
            ours = written = None
            refusal = str(e)
        request = {"op": f"records.{self.op}.serialize", "apiKey": api_key, "version": version,
                   "json": from_plain(plain, tree)}
        return Drawn(version, frame, ours, refusal, request,
                     {"apiKey": api_key, "version": version, "json": from_plain(body, tree)}, written=written,
                     expected_written={"apiKey": api_key, "version": version, "json": from_plain(plain, tree)})

    def kafka_read_request(self, data: bytes, drawn: Drawn) -> dict[str, Any]:
        return {"op": f"records.{self.op}.deserialize", "hex": data.hex()}

    def kafka_read(self, answer: Answer, drawn: Drawn) -> Read:
        if not answer.ok:
            return Read(refused=answer.error)
        r = answer.result
        return Read({"apiKey": r["apiKey"], "version": r["version"], "json": r["json"]})

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        message = self.fmt.decode(data)
        return self.view_of(message.api_key, message.record_version, message.record)

    def view_of(self, api_key: int, version: int, record: Any) -> Read:
        body_fmt = self.bodies[api_key][0]
        layout = body_fmt.construct(body_fmt.layout_slot(version))
        return Read({"apiKey": api_key, "version": version,
                     "json": json_of(record, body_fmt, body_fmt.layout_slot(version))},
                    facts={"unknown tags": tag_rule.unknown_of(record, layout)})

    def _body(self, data: bytes) -> tuple[Any, int, bytes] | None:
        """The registered format of the record's apiKey, its version and its body, as the frame says (None: a frame
        that does not read, or an apiKey no registered spec has)."""
        try:
            _frame, at = read_number("uvarint", data, 0, "frameVersion", METADATA_RECORD)
            api_key, at = read_number("uvarint", data, at, "apiKey", METADATA_RECORD)
            version, at = read_number("uvarint", data, at, "recordVersion", METADATA_RECORD)
        except KafkaMetaError:
            return None
        if api_key not in self.bodies:
            return None
        return self.bodies[api_key][0], version, data[at:]

    @staticmethod
    def _in_body(error: Any) -> Any:
        """A refusal of the frame's (its field path ``record.members[0]``) as the body's own reader would say it
        (``members[0]``), for the tag-size rule's look at the body."""
        path = getattr(error, "path", "") or ""
        inner = path[len(RECORD_FIELD) + 1:] if path.startswith(RECORD_FIELD + ".") else path
        return SimpleNamespace(reason=getattr(error, "reason", None), path=inner)

    @staticmethod
    def _in_frame(error: Any) -> Any:
        """A refusal of the body's tree reader as the frame's says it (its field path under ``record``)."""
        inner = getattr(error, "field_path", getattr(error, "path", "")) or ""
        return SimpleNamespace(reason=getattr(error, "reason", None),
                               field_path=f"{RECORD_FIELD}.{inner}" if inner else RECORD_FIELD)

    def production_situation(self, ours: Read, data: bytes) -> Read:
        """``ours`` with what the tag-size rule looks for where the production reader refused: whether it refused a
        known tag's size past the end (``refused known tag``); a reading has its ``unknown tags`` already."""
        body = self._body(data)
        if ours.refused is None or body is None:
            return ours
        body_fmt, version, _ = body
        try:
            layout = body_fmt.construct(body_fmt.layout_slot(version))
        except (KafkaMetaError, Fault):
            layout = None
        facts = {**ours.facts, "refused known tag": tag_rule.refused_known_tag(self._in_body(ours.error), layout)}
        return Read(ours.view, ours.refused, ours.unread, facts, ours.error)

    def tree_read(self, data: bytes, kafka_tags: bool = False) -> Read:
        """The construct tree's reading of the record's body (a second reader beside the production one), with the
        project's rule for known tagged fields or Kafka's (``kafka_tags``); bytes after the body are refused, as
        the frame (and MetadataRecordSerde) refuses them."""
        body = self._body(data)
        if body is None:
            return Read(refused="the frame does not read")
        body_fmt, version, raw = body
        misfits: list[int] = []
        parsed, end, tree = tag_rule.parse_tree(body_fmt, raw, version, kafka_tags, misfits)
        if tree is None:
            return Read(refused=str(parsed), facts={"tag misfits": misfits}, error=self._in_frame(parsed))
        if end != len(raw):  # the frame's own refusal of them, at the same byte
            error = self.fmt.trailing_error(len(raw) - end, 1, len(data) - len(raw) + end, False)
            return Read(refused=str(error), facts={"tag misfits": misfits}, error=error)
        return Read({"apiKey": body_fmt.spec.api_key, "version": version, "json": from_plain(parsed, tree)},
                    facts={"tag misfits": misfits, "unknown tags": tag_rule.unknown_in_plain(parsed, tree)})

    def deliberate(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> why.Deliberate | None:
        found = why.recognise_metadata_record(ours, kafka, set(self.bodies))
        body = self._body(data)
        if found is not None or body is None:
            return found
        body_fmt, version, _ = body
        newest = max(body_fmt.versions)
        found = why.recognise_newer_version_struct(kafka, version, newest,
                                                   set(body_fmt.spec.structs) - {body_fmt.spec.name})
        if found is not None:
            return found
        same = Subject.same.__get__(self)
        found = why.recognise_tag_sizes(self.production_situation(ours, data), self.tree_read(data),
                                        self.tree_read(data, kafka_tags=True), kafka, same)
        if found is None:
            other = tag_rule.tags_of_other_versions(body_fmt, min(version, newest))
            in_body = Read(ours.view, ours.refused, ours.unread, ours.facts, self._in_body(ours.error))
            found = why.recognise_tag_of_another_version(in_body, kafka, other)
        return found


class RemoteLogMetadataSubject(MetadataRecordSubject):
    """``__remote_log_metadata`` records: the metadata log's frame around tiered storage's record types, read by
    the project's reader of that topic (:func:`kafka_meta.internal_topics.remote_log_metadata.decode_record`)."""

    op = "remote"
    name = "RemoteLogMetadata (RemoteLogMetadataSerde's BytesApiMessageSerde)"

    def __init__(self) -> None:
        bodies = {}
        for name in remote_log_metadata.REGISTRY.names():
            fmt = remote_log_metadata.body_format(name)
            bodies[fmt.spec.api_key] = (fmt, list(fmt.versions))
        self.types = (*sorted(remote_log_metadata.REGISTRY.names()), "RemoteLogMetadata")
        super().__init__(bodies, remote_log_metadata.frame_format())

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        record = remote_log_metadata.decode_record(None, data)
        if isinstance(record, remote_log_metadata.UnknownRemoteLogMetadataRecord):
            return Read({"apiKey": record.api_key}, facts={"unknown type": True})
        return self.view_of(record.api_key, record.record_version, record.record)

    def deliberate(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> why.Deliberate | None:
        return why.recognise_remote_log_metadata(ours, kafka)


def subjects(peer: Peer, types: set[str] | None) -> list[Subject]:
    out: list[Subject] = []
    for coordinator in coordinators():
        out += coordinator_subjects(peer, types, coordinator)
    if types is None or METADATA_RECORD in types:
        bodies = {}
        for fmt in REGISTRY.formats():
            spec = getattr(fmt, "spec", None)
            if getattr(fmt, "family", None) == "metadata" and spec is not None and spec.api_key is not None:
                bodies[spec.api_key] = (fmt, list(fmt.versions))
        out.append(MetadataRecordSubject(bodies))
    remote = RemoteLogMetadataSubject()
    if types is None or set(remote.types) & types:
        out.append(remote)
    return out


def coordinator_subjects(peer: Peer, types: set[str] | None, coordinator: Coordinator) -> list[Subject]:
    out: list[Subject] = []
    for number, rt in coordinator.catalog.items():
        subject_types = {rt.key.name, rt.values.name, rt.name}
        if types is not None and not subject_types & types:
            continue
        current = [v for v in rt.values.variants if v.label == coordinator.log.current]
        if current:
            cover = coverage(peer, rt.values.name, list(current[0].format.versions))
            versions = sorted(v for v, release in cover.releases.items() if release is None)
            out.append(GroupRecordSubject(number, rt, versions or list(current[0].format.versions), bool(versions),
                                          coordinator))
        else:  # a retired record type: Kafka 4.4 has no class for it, so only its reading is compared
            retired = GroupRecordSubject(number, rt, list(rt.values.variants[0].format.versions), False, coordinator)
            retired.apart = (f"record type {number} is retired: Kafka 4.4 has no class for it "
                             "(UnknownRecordTypeException), so no value of it is compared with Kafka's")
            out.append(retired)
    return out
