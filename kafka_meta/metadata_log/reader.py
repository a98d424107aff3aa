"""Records of the KRaft metadata log as a broker's ``__cluster_metadata`` segments hold them.

Each record of that log has no key; its value is one framed metadata record (``MetadataRecord``). A
controller writes dozens of record types (topics, partitions, brokers, configs...); kafka_meta declares every
one Kafka 4.4 has (``TopicRecord`` among them, which names the topic ids KIP-848 groups use:
:func:`topic_names`), and a newer Kafka's can be loaded with :func:`kafka_meta.load_specs`. Its control records
are :mod:`kafka_meta.metadata_log.control`'s.
As :func:`kafka_meta.offsets.decode_record` does for ``__consumer_offsets``, a lenient read keeps a
record of an apiKey no registered spec has as an :class:`UnknownMetadataRecord` with its frame and bytes,
instead of failing the log it sits in; a strict read refuses it. Anything else that does not read (a frame
version other than 1, a damaged body, bytes after the record) is a :class:`~kafka_meta.errors.DecodeError`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, NamedTuple, get_args

from kafka_meta.api import decode, model
from kafka_meta.errors import DecodeError
from kafka_meta.kraft.records import FRAME_VERSION, SHORT, TYPE_NAME, MetadataRecord
from kafka_meta.kraft.records import read_frame as read_record_frame
from kafka_meta.models.base import KafkaModel
from kafka_meta.models.values import KafkaBytes, bytes_to_json

RECORD = "__cluster_metadata record"
# the name kafka_meta.log.topics gives the metadata log too: this layer stands below the log readers and may not
# import them (docs/architecture.md), and tests/test_log_topics.py holds the two to one name
METADATA_TOPIC = "__cluster_metadata"
TOPIC_RECORD_API_KEY = 2  # TopicRecord: a topic's name and id


class Frame(NamedTuple):
    """The three unsigned varints before a metadata record's body."""

    frame_version: int
    api_key: int
    record_version: int


class UnknownMetadataRecord(KafkaModel):
    """A metadata record whose apiKey no registered spec has: its frame, and its bytes kept whole."""

    frame_version: int
    api_key: int
    record_version: int
    value: KafkaBytes
    reason: str


def read_frame(value: bytes) -> Frame:
    """The frame version, apiKey and record version at the start of a record's value (the metadata-record
    format's own reading of them)."""
    return Frame(*read_record_frame(value, RECORD))


def known_api_keys() -> frozenset[int]:
    """The apiKeys of every registered metadata-record spec (bundled, and loaded with ``load_specs``)."""
    return frozenset(model(TYPE_NAME).record_formats())


def decode_metadata_record(value: bytes | None, *, strict: bool = False) -> MetadataRecord | UnknownMetadataRecord:
    """One record of the metadata log, from its value (metadata records have no key).

    ``strict`` refuses what a lenient read keeps: an apiKey no registered spec has, a record version newer
    than its spec, unknown tagged fields.
    """
    if value is None:
        raise DecodeError("a metadata-log record without a value cannot be read", type_name=RECORD)
    value = bytes(value)
    frame = read_frame(value)
    # a frame Kafka refuses (another frame version, an apiKey or version beyond int16) is the codec's to explain
    readable = frame.frame_version == FRAME_VERSION and max(frame.api_key, frame.record_version) <= SHORT
    if readable and frame.api_key not in known_api_keys():
        reason = f"unknown metadata record apiKey {frame.api_key}"
        if strict:
            raise DecodeError(reason, type_name=RECORD, path="apiKey", offset=1)
        return UnknownMetadataRecord(frame_version=frame.frame_version, api_key=frame.api_key,
                                     record_version=frame.record_version, value=value, reason=reason)
    return decode(TYPE_NAME, value, strict=strict)  # type: ignore[return-value]


def metadata_record_json(record: MetadataRecord | UnknownMetadataRecord) -> dict[str, Any]:
    """A record as ``kafka-meta log --decode`` prints it: the frame, the record's type and its fields
    (Kafka's JSON names), or for an unknown apiKey the frame and the value's bytes (base64)."""
    if isinstance(record, UnknownMetadataRecord):
        return {"frameVersion": record.frame_version, "apiKey": record.api_key,
                "recordVersion": record.record_version, "unknown": True, "reason": record.reason,
                "value": bytes_to_json(record.value)}
    out = record.to_json_dict(every_field=True)
    body = out["record"]
    if record.record is not None and isinstance(body, dict) and _holds_float(type(record.record)):
        _kafka_floats(record.record, body)
    return {"frameVersion": out["frameVersion"], "apiKey": out["apiKey"], "recordVersion": out["recordVersion"],
            "recordType": record.record_type, "record": body}


# what Kafka's JSON converters give a float64 that is no number (ClientQuotaRecord's value): Jackson writes such a
# double as a string by default (its QUOTE_NON_NUMERIC_NUMBERS), as DumpLogSegments prints: "NaN", "Infinity",
# "-Infinity"; a model's JSON dump would give null (docs/internal-topics.md, "Numbers JSON cannot hold")
def kafka_float_text(value: float) -> str:
    """A non-finite double as Kafka's JSON writes it."""
    if value != value:
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


@cache
def _holds_float(cls: type[KafkaModel]) -> bool:
    """Whether a struct has a float64 field, itself or in a struct it holds (only ClientQuotaRecord in Kafka 4.4):
    the others' JSON needs no second look."""
    return any(_float_in(f.annotation) for f in cls.model_fields.values())


def _float_in(annotation: Any) -> bool:
    if annotation is float:
        return True
    if isinstance(annotation, type) and issubclass(annotation, KafkaModel):
        return _holds_float(annotation)
    return any(_float_in(arg) for arg in get_args(annotation))


def _kafka_floats(message: KafkaModel, dumped: dict[str, Any]) -> None:
    """Put Kafka's text for every non-finite float of ``message`` (and the structs it holds) in its JSON dump."""
    for name, field in type(message).model_fields.items():
        value, key = message.__dict__.get(name), field.serialization_alias or field.alias or name
        if isinstance(value, float):
            if not math.isfinite(value) and key in dumped:
                dumped[key] = kafka_float_text(value)
        elif isinstance(value, KafkaModel) and isinstance(dumped.get(key), dict):
            _kafka_floats(value, dumped[key])
        elif isinstance(value, list) and isinstance(dumped.get(key), list):
            for item, item_dump in zip(value, dumped[key], strict=False):
                if isinstance(item, KafkaModel) and isinstance(item_dump, dict):
                    _kafka_floats(item, item_dump)


def topic_names(rows: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Topic id -> topic name, from the ``TopicRecord`` of each topic among metadata-log rows.

    KIP-848 consumer groups name topics by id alone (their ``__consumer_offsets`` records, OffsetCommit v10+,
    ConsumerGroupHeartbeat), and so does the rest of the metadata log; the ``TopicRecord`` a controller writes
    when it creates a topic is what gives each id its name back. ``rows`` are shaped as
    :func:`kafka_meta.log.read_log` yields them (``topic``, ``key``, ``value``, ``control``, ``_error``...), and
    may come from a whole log directory: rows of other topics, keyed rows, control records, damage and records
    that do not read are passed over (this gathers names; reading the log record by record is
    :func:`decode_metadata_record`'s job), so a damaged log still names the topics it can.

    The ids are keys in the form ``str(uuid.UUID)`` gives (lowercase hex with dashes,
    ``"70305a98-b91e-4bdd-89d6-f0373f456994"``), the form kafka_meta uses for the ``topic_id`` of KIP-848
    records' models: not Kafka's base64 form (``cDBamLkeS92J1vA3P0VplA``) that JSON output uses. A topic deleted
    and created again has a new id, so both ids name it; an id recorded twice keeps its latest name.
    """
    names: dict[str, str] = {}
    for row in rows:
        value = row.get("value")
        if (value is None or row.get("key") is not None or row.get("control") or row.get("_error")
                or row.get("topic") not in (METADATA_TOPIC, None)):
            continue
        try:
            if read_frame(bytes(value)).api_key != TOPIC_RECORD_API_KEY:
                continue
            record = decode_metadata_record(value)
        except DecodeError:
            continue
        if isinstance(record, MetadataRecord) and record.record_type == "TopicRecord":
            body = record.record
            names[str(body.topic_id)] = body.name  # type: ignore[attr-defined]
    return names
