"""``__remote_log_metadata``: tiered storage's record of remote log segments (KIP-405), as Kafka's
``TopicBasedRemoteLogMetadataManager`` writes it.

A record has no key; its value is one record framed by ``RemoteLogMetadataSerde``, whose
``BytesApiMessageSerde`` is the metadata log's ``AbstractApiMessageSerde``: ``uvarint frame version (1) | uvarint
apiKey | uvarint version | body``. So the frame is the metadata log's own (:mod:`kafka_meta.kraft.records`),
around the four record types of ``schemas/remote-log-metadata/`` (apiKeys 0-3, all at version 0, flexible): a
segment copied to remote storage (RemoteLogSegmentMetadataRecord), a change of its state
(RemoteLogSegmentMetadataUpdateRecord), a partition's remote data being deleted
(RemotePartitionDeleteMetadataRecord), a segment in snapshot form (RemoteLogSegmentMetadataSnapshotRecord).

Their specs are ``type: metadata`` as Kafka's are, and their apiKeys are those of ``__cluster_metadata``
records too (0 RegisterBrokerRecord...): registered beside the metadata log's they would be taken for them.
So they live in a registry of their own (:data:`REGISTRY`), which gives them to this topic's frame alone
(:func:`frame_format`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import SerializeAsAny

from kafka_meta.codec.declared import DeclaredFormat
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, Unframed
from kafka_meta.codec.registry import Registry, schema_root
from kafka_meta.errors import DecodeError
from kafka_meta.kraft.records import FRAME_VERSION, SHORT, metadata_record_format, metadata_record_formats, read_frame
from kafka_meta.models.base import KafkaModel, Message
from kafka_meta.models.values import KafkaBytes, bytes_to_json
from kafka_meta.spec.loader import iter_spec_files, load_spec

__all__ = [
    "PARTITION_DELETE_STATES",
    "REGISTRY",
    "SEGMENT_STATES",
    "TOPIC",
    "RemoteLogMetadataRecord",
    "UnknownRemoteLogMetadataRecord",
    "body_format",
    "decode_record",
    "encode_record",
    "frame_format",
    "record_json",
]

TOPIC = "__remote_log_metadata"
FAMILY = "remote-log-metadata"

# the state ids the records carry (RemoteLogSegmentState and RemotePartitionDeleteState, Kafka 4.4)
SEGMENT_STATES: dict[int, str] = {0: "COPY_SEGMENT_STARTED", 1: "COPY_SEGMENT_FINISHED",
                                  2: "DELETE_SEGMENT_STARTED", 3: "DELETE_SEGMENT_FINISHED"}
PARTITION_DELETE_STATES: dict[int, str] = {0: "DELETE_PARTITION_MARKED", 1: "DELETE_PARTITION_STARTED",
                                           2: "DELETE_PARTITION_FINISHED"}


def load(registry: Registry) -> None:
    """Register the record bodies: unframed (the frame carries their version), a newer version refused.

    Why refused: ``AbstractApiMessageSerde`` hands any version to the generated reader, which reads the top level
    at it, but every nested struct's reader refuses a version above its own (``Can't read version N of
    RemoteLogSegmentIdEntry``), and each of these records starts with, or soon holds, a nested struct.
    """
    directory = schema_root() / FAMILY
    for path in iter_spec_files(directory):
        spec = load_spec(path)
        registry.register(SpecFormat(spec, Unframed(ForwardPolicy.REFUSE), family=FAMILY))


REGISTRY = Registry()
REGISTRY.add_loader(load)


def body_format(name: str) -> SpecFormat:
    """One record body's format, by its spec's name (``RemoteLogSegmentMetadataRecord``)."""
    return REGISTRY.get(name)  # type: ignore[return-value]


@cache
def frame_format() -> DeclaredFormat:
    """The topic's value: the metadata log's frame around this topic's record bodies (chosen by apiKey)."""
    return metadata_record_format(metadata_record_formats(REGISTRY, FAMILY))


RECORD = f"{TOPIC} record"


class RemoteLogMetadataRecord(KafkaModel):
    """One decoded record: its frame and its body (``record``, a model of the record type of that apiKey)."""

    frame_version: int
    api_key: int
    record_version: int
    record_name: str
    record: SerializeAsAny[Message]


class UnknownRemoteLogMetadataRecord(KafkaModel):
    """A record whose apiKey Kafka 4.4 has no record type for: its frame, and its bytes kept whole."""

    frame_version: int
    api_key: int
    record_version: int
    value: KafkaBytes
    reason: str


def decode_record(key: bytes | None, value: bytes | None, *, strict: bool = False,
                  ) -> RemoteLogMetadataRecord | UnknownRemoteLogMetadataRecord:
    """One ``__remote_log_metadata`` record from its value (its key, null as Kafka writes it, is not read).

    Lenient (default): an apiKey with no record type is kept as an :class:`UnknownRemoteLogMetadataRecord`;
    ``strict`` refuses it, as ``RemoteLogMetadataSerde`` does. A frame Kafka refuses (a frame version other
    than 1, an apiKey or version beyond int16), bytes that do not read and bytes after the record are a
    :class:`~kafka_meta.errors.DecodeError` naming the field and the byte offset.
    """
    if not isinstance(value, (bytes, bytearray, memoryview)):
        what = "null" if value is None else type(value).__name__
        raise DecodeError(f"a remote log metadata record's value must be bytes, not {what}", type_name=RECORD,
                          path="value")
    value = bytes(value)
    fmt = frame_format()
    frame_version, api_key, version = read_frame(value, RECORD)
    known = fmt.model.record_formats()  # type: ignore[attr-defined]
    if frame_version == FRAME_VERSION and max(api_key, version) <= SHORT and api_key not in known:
        reason = f"unknown remote log metadata record apiKey {api_key}"
        if strict:
            raise DecodeError(reason, type_name=RECORD, path="apiKey", offset=1)
        return UnknownRemoteLogMetadataRecord(frame_version=frame_version, api_key=api_key, record_version=version,
                                              value=value, reason=reason)
    try:
        framed = fmt.decode(value, strict=strict)
    except DecodeError as e:  # the frame is the metadata log's: say whose record it was
        raise DecodeError(e.reason, type_name=RECORD, version=e.version, path=e.path, offset=e.offset) from None
    return RemoteLogMetadataRecord.model_construct(
        frame_version=framed.frame_version, api_key=framed.api_key,  # type: ignore[attr-defined]
        record_version=framed.record_version, record_name=type(framed.record).kafka_type,  # type: ignore[attr-defined]
        record=framed.record)  # type: ignore[attr-defined]


def encode_record(record: RemoteLogMetadataRecord | UnknownRemoteLogMetadataRecord) -> bytes:
    """The value bytes of a record (as ``RemoteLogMetadataSerde`` writes them), byte-exact for decoded records."""
    if isinstance(record, UnknownRemoteLogMetadataRecord):
        return bytes(record.value)
    fmt = frame_format()
    framed = fmt.model(frame_version=record.frame_version, api_key=record.api_key,
                       record_version=record.record_version, record=record.record)
    return fmt.encode(framed, FRAME_VERSION)


def record_json(decoded: RemoteLogMetadataRecord | UnknownRemoteLogMetadataRecord) -> dict[str, Any]:
    """The record as ``kafka-meta log --decode`` prints it, shaped as offsets records are: ``recordType`` (the
    apiKey), ``record`` (its name), ``key`` (null), ``value`` (the body's fields), ``valueVersion``, and the
    frame's ``frameVersion``; for an unknown apiKey, ``unknown``, ``reason`` and the value's bytes (base64)."""
    if isinstance(decoded, UnknownRemoteLogMetadataRecord):
        return {"recordType": decoded.api_key, "unknown": True, "reason": decoded.reason, "key": None,
                "value": bytes_to_json(decoded.value), "valueVersion": decoded.record_version,
                "frameVersion": decoded.frame_version}
    return {"recordType": decoded.api_key, "record": decoded.record_name, "key": None,
            "value": decoded.record.to_json_dict(every_field=True), "valueVersion": decoded.record_version,
            "frameVersion": decoded.frame_version}
