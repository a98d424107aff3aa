"""Read and write whole ``__consumer_offsets`` records (key + value), with Kafka's reading rules.

Reading policy (KIP-915), chosen with ``strict``:

* lenient (default, for bulk work): an unknown record type gives an :class:`UnknownRecord` keeping the raw
  bytes; a value version newer than known is read with the newest layout (flexible values only) and the
  record says ``read_forward``; unknown tagged fields are kept and written back.
* strict: the same cases raise :class:`~kafka_meta.errors.DecodeError`, as Kafka 4.0+ brokers refuse them.

Transaction markers share the topic; their keys look like offset-commit keys, so the caller says when a
record came from a control batch (``control=True``) and it is read as a marker, never as an offset.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.api import get_format
from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.formats.control import KEY_TYPE, control_type, marker_name
from kafka_meta.offsets import nest
from kafka_meta.offsets.catalog import OFFSETS, catalog, read_record
from kafka_meta.offsets.records import ControlRecord, CoordinatorRecord, OffsetsRecord, UnknownRecord

RECORD = "__consumer_offsets record"


def _bytes(data: Any, what: str) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    raise DecodeError(f"the {what} must be bytes, not {type(data).__name__}", type_name=RECORD)


def decode_record(key: bytes, value: bytes | None, *, strict: bool = False, control: bool = False,
                  variant: str | None = None, nested: bool = True) -> OffsetsRecord:
    """Decode one record: the int16 at the start of the key says its type, the value carries its version.

    ``value=None`` is a tombstone (a delete) and gives a record without a value. ``variant`` forces one
    of a record type's layouts (see ``kafka_meta.offsets.catalog``). ``nested`` also decodes what group
    records carry as bytes (members' subscriptions, assignments and assignor user data).
    """
    if key is None:
        raise DecodeError("a record without a key cannot be read", type_name=RECORD)
    key = _bytes(key, "key")
    if value is not None:
        value = _bytes(value, "value")
    if control:
        return _control(key, value)
    record = read_record(OFFSETS, key, value, strict=strict, variant=variant)
    if nested and isinstance(record, CoordinatorRecord) and record.value is not None:
        number, message = record.record_type, record.value
        record.members = nest.group_members(message) if number == nest.GROUP_METADATA else None
        classic = number == nest.CONSUMER_GROUP_MEMBER_METADATA
        record.classic_protocols = nest.classic_protocols(message) if classic else None
    return record


def marker_value_type(number: int) -> str | None:
    """The type a control record's value is read as in a topic's control batches: a transaction marker's
    (``EndTxnMarker``, by the control types' table), None for any other type (its value is left unread)."""
    kind = control_type(number)
    return kind.value_type if kind is not None and kind.marker else None


def _control(key: bytes, value: bytes | None) -> ControlRecord:
    key_message = get_format(KEY_TYPE).decode(key)
    value_type = marker_value_type(key_message.type)
    value_message = None
    if value is not None and value_type is not None:
        value_message = get_format(value_type).decode(value)
    return ControlRecord.model_construct(key=key_message, value=value_message, marker=marker_name(key_message.type))


def encode_record(record: OffsetsRecord) -> tuple[bytes, bytes | None]:
    """The key and value bytes of a record (value None for a tombstone), byte-exact for decoded records."""
    if isinstance(record, UnknownRecord):
        return record.key, record.value
    if isinstance(record, ControlRecord):
        key = get_format(KEY_TYPE).encode(record.key)
        value = None if record.value is None else get_format(type(record.value).kafka_type).encode(record.value)
        return key, value
    if not isinstance(record, CoordinatorRecord):
        raise EncodeError(f"not a __consumer_offsets record: {type(record).__name__}", type_name=RECORD)
    rt = catalog().get(record.record_type)
    if rt is None:
        raise EncodeError(f"unknown record type {record.record_type}", type_name=RECORD)
    key = rt.key.encode(record.key)
    return key, None if record.value is None else rt.values.encode(record.value)


def new_record(record_type: int | str, key: Any, value: Any = None) -> CoordinatorRecord:
    """Build a record to write, from models or dicts of Kafka field names (``value=None``: a tombstone)."""
    from kafka_meta.offsets.catalog import record_type as lookup

    rt = lookup(record_type)
    key_message = key if not isinstance(key, dict) else rt.key.model.model_validate(key)
    value_message = value
    if isinstance(value, dict):
        value_message = rt.values.model.model_validate(value)
    return CoordinatorRecord(record_type=rt.number, record_name=rt.name, key=key_message, value=value_message,
                             value_version=getattr(value_message, "version", None),
                             value_variant=getattr(value_message, "variant", None), retired=rt.retired)
