"""The record types of each coordinator log known to the bundled catalogue, built once and kept, and the
reading of one record through them.

How a record type is made of its key and value layouts is the format plugins' business
(:func:`kafka_meta.formats.family.build_catalog`, for ``__consumer_offsets``, ``__transaction_state`` and
``__share_group_state`` alike); this module keeps the result per log for the record readers, and
:func:`read_record` is their one way of reading a key and a value with it.
"""

from __future__ import annotations

import threading

from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.formats import family
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.formats.family import CoordinatorLog
from kafka_meta.formats.offsets import LOG as OFFSETS
from kafka_meta.formats.offsets import SHARED_VALUE_LAYOUTS, RecordType, build_catalog
from kafka_meta.offsets.records import CoordinatorRecord, UnknownRecord

__all__ = ["OFFSETS", "SHARED_VALUE_LAYOUTS", "CoordinatorLog", "RecordType", "build_catalog", "catalog",
           "read_record", "record_type", "write_record"]

_lock = threading.Lock()
_catalogs: dict[str, dict[int, RecordType]] = {}


def catalog(log: CoordinatorLog = OFFSETS) -> dict[int, RecordType]:
    """The record types of ``log`` (``__consumer_offsets`` unless told), by number."""
    found = _catalogs.get(log.family)
    if found is None:
        with _lock:
            found = _catalogs.get(log.family)
            if found is None:
                found = _catalogs[log.family] = family.build_catalog(REGISTRY, log)
    return found


def record_type(number_or_name: int | str, log: CoordinatorLog = OFFSETS) -> RecordType:
    """Look a record type up by number or by name (``"OffsetCommit"``, ``"GroupMetadata"``...)."""
    table = catalog(log)
    if isinstance(number_or_name, int):
        return table[number_or_name]
    for rt in table.values():
        if rt.name == number_or_name:
            return rt
    raise KeyError(number_or_name)


def read_record(log: CoordinatorLog, key: bytes, value: bytes | None, *, strict: bool = False,
                variant: str | None = None) -> CoordinatorRecord | UnknownRecord:
    """One record of a coordinator log, as ``CoordinatorRecordSerde`` frames it: the int16 at the start of the
    key is its record type, the value (None: a tombstone) carries its version.

    Lenient: a record type the catalogue does not know is kept, bytes and all, as an :class:`UnknownRecord`
    (Kafka's loaders skip such records); strict: it is a :class:`~kafka_meta.errors.DecodeError`, as are (both
    ways) a key too short for its type and bytes that do not read. ``variant`` forces one value layout.
    """
    what = f"{log.topic} record"
    if len(key) < 2:
        raise DecodeError(f"could not read the record type: the key has {len(key)} bytes", type_name=what,
                          offset=0)
    number = int.from_bytes(key[:2], "big", signed=True)
    rt = catalog(log).get(number)
    if rt is None:
        if strict:
            raise DecodeError(f"unknown record type {number}", type_name=what, path="key", offset=0)
        return UnknownRecord(record_type=number, key=key, value=value, reason=f"unknown record type {number}")
    key_message = rt.key.decode(key, strict=strict)
    if value is None:
        return CoordinatorRecord.model_construct(record_type=number, record_name=rt.name, key=key_message,
                                                 retired=rt.retired)
    message = rt.values.decode(value, strict=strict, variant=variant)
    return CoordinatorRecord.model_construct(record_type=number, record_name=rt.name, key=key_message,
                                             value=message, value_version=message.version,
                                             value_variant=message.variant, read_forward=message.read_forward,
                                             retired=rt.retired)


def write_record(log: CoordinatorLog, record: CoordinatorRecord | UnknownRecord) -> tuple[bytes, bytes | None]:
    """The key and value bytes of a record of ``log`` (value None for a tombstone), byte-exact for records
    :func:`read_record` gave; an unknown record's bytes as they were read."""
    if isinstance(record, UnknownRecord):
        return record.key, record.value
    rt = catalog(log).get(record.record_type) if isinstance(record, CoordinatorRecord) else None
    if rt is None:
        what = getattr(record, "record_type", type(record).__name__)
        raise EncodeError(f"not a record type of {log.topic}: {what}", type_name=f"{log.topic} record")
    return rt.key.encode(record.key), None if record.value is None else rt.values.encode(record.value)
