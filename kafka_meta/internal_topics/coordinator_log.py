"""The face of a coordinator log's topic module: its records read through the one catalogue reader
(:func:`kafka_meta.offsets.catalog.read_record`) and printed as ``__consumer_offsets`` records are."""

from __future__ import annotations

from typing import Any

from kafka_meta.errors import DecodeError
from kafka_meta.formats.family import CoordinatorLog
from kafka_meta.offsets.catalog import read_record, write_record
from kafka_meta.offsets.records import CoordinatorRecord, UnknownRecord
from kafka_meta.offsets.render import record_json as offsets_record_json

CoordinatorLogRecord = CoordinatorRecord | UnknownRecord


def decode(log: CoordinatorLog, key: bytes | None, value: bytes | None, strict: bool) -> CoordinatorLogRecord:
    """One record of ``log`` from its key and value (None: a tombstone); a coordinator record has a key."""
    if key is None:
        raise DecodeError("a record without a key cannot be read", type_name=f"{log.topic} record", path="key")
    return read_record(log, _bytes(key, log, "key"), None if value is None else _bytes(value, log, "value"),
                       strict=strict)


def encode(log: CoordinatorLog, record: CoordinatorLogRecord) -> tuple[bytes, bytes | None]:
    """The key and value bytes of a record (value None: a tombstone), byte-exact for decoded records."""
    return write_record(log, record)


def as_json(record: CoordinatorLogRecord) -> dict[str, Any]:
    """The record as ``kafka-meta log --decode`` prints an offsets record (``recordType``, ``record``, ``key``,
    ``value``, ``valueVersion``, ``valueVariant``...), the value's derived views beside its fields."""
    out = offsets_record_json(record)
    if isinstance(record, CoordinatorRecord) and record.value is not None:
        out["value"] = record.value.to_json_dict(views=True, every_field=True)
    return out


def _bytes(data: Any, log: CoordinatorLog, what: str) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise DecodeError(f"the {what} must be bytes, not {type(data).__name__}", type_name=f"{log.topic} record",
                      path=what)
