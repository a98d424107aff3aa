"""Records of the KRaft metadata log as a broker's ``__cluster_metadata`` segments hold them.

Each record of that log has no key; its value is one framed metadata record (``MetadataRecord``). A
controller writes dozens of record types (topics, partitions, brokers, configs...), of which kafka_meta
declares the ones rebalances depend on (``FeatureLevelRecord``; more with :func:`kafka_meta.load_specs`).
So, as :func:`kafka_meta.offsets.decode_record` does for ``__consumer_offsets``, a lenient read keeps a
record of an apiKey no registered spec has as an :class:`UnknownMetadataRecord` with its frame and bytes,
instead of failing the log it sits in; a strict read refuses it. Anything else that does not read (a frame
version other than 1, a damaged body, bytes after the record) is a :class:`~kafka_meta.errors.DecodeError`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kafka_meta.api import decode, model
from kafka_meta.errors import DecodeError
from kafka_meta.kraft.records import FRAME_VERSION, SHORT, TYPE_NAME, MetadataRecord
from kafka_meta.models.base import KafkaModel
from kafka_meta.models.values import KafkaBytes, bytes_to_json

RECORD = "__cluster_metadata record"
FRAME_FIELDS = ("frameVersion", "apiKey", "recordVersion")  # Kafka's names, for errors


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
    """The frame version, apiKey and record version at the start of a record's value."""
    fields = []
    position = 0
    for name in FRAME_FIELDS:
        number, shift = 0, 0
        start = position
        while True:
            if position >= len(value):
                raise DecodeError(f"the value ends inside the frame's {name}", type_name=RECORD, offset=start)
            byte = value[position]
            position += 1
            number |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
            if shift >= 35:
                raise DecodeError(f"the frame's {name} is a varint longer than 5 bytes", type_name=RECORD,
                                  offset=start)
        fields.append(number)
    return Frame(*fields)


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
    out = record.to_json_dict()
    return {"frameVersion": out["frameVersion"], "apiKey": out["apiKey"], "recordVersion": out["recordVersion"],
            "recordType": record.record_type, "record": out["record"]}
