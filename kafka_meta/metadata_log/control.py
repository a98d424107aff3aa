"""The control records of the KRaft metadata log and its snapshots, read as their key's type says.

A control batch of ``__cluster_metadata`` holds one control record: a leader's ``LEADER_CHANGE`` at the start of
its epoch, the ``KRAFT_VERSION`` and ``KRAFT_VOTERS`` of a dynamic quorum, and in a snapshot (``.checkpoint``) the
``SNAPSHOT_HEADER`` first and the ``SNAPSHOT_FOOTER`` last. The key's type picks the value's layout from
:data:`kafka_meta.kraft.control.CONTROL_TYPES`, the one table of them; a type Kafka does not know (its
``UNKNOWN``) keeps its value's bytes, as DumpLogSegments prints only the type for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_meta.api import get_format
from kafka_meta.errors import DecodeError
from kafka_meta.kraft.control import KEY_TYPE, UNKNOWN, ControlType, control_type, value_version
from kafka_meta.models.base import Message
from kafka_meta.models.values import bytes_to_json

RECORD = "__cluster_metadata control record"


@dataclass(frozen=True)
class ControlRecord:
    """One control record: its key, the type the key names (None: one Kafka calls UNKNOWN) and its value, read
    with that type's layout (``value`` None for an unknown type, whose bytes are ``raw_value``)."""

    key: Message
    kind: ControlType | None
    value: Message | None
    raw_value: bytes | None

    @property
    def type_number(self) -> int:
        return self.key.type  # type: ignore[attr-defined,no-any-return]

    @property
    def type_name(self) -> str:
        """Kafka's ``ControlRecordType`` name (``LEADER_CHANGE``), ``UNKNOWN`` for a type it does not know."""
        return self.kind.name if self.kind is not None else UNKNOWN


def decode_control_record(key: bytes | None, value: bytes | None, *, strict: bool = False) -> ControlRecord:
    """A control record from its key and value: the key's type chooses the value's layout and version."""
    if key is None:
        raise DecodeError("a control record without a key cannot be read: the key says its type", type_name=RECORD)
    key_message = get_format(KEY_TYPE).decode(bytes(key), strict=strict)
    kind = control_type(key_message.type)  # type: ignore[attr-defined]
    raw = None if value is None else bytes(value)
    if kind is None or raw is None:
        return ControlRecord(key_message, kind, None, raw)
    message = get_format(kind.value_type).decode(raw, version=value_version(kind), strict=strict)
    return ControlRecord(key_message, kind, message, raw)


def encode_control_record(record: ControlRecord) -> tuple[bytes, bytes | None]:
    """The key and value bytes of a control record: a decoded one's bytes again, byte for byte."""
    key = get_format(KEY_TYPE).encode(record.key)
    if record.value is None or record.kind is None:
        return key, record.raw_value
    return key, get_format(record.kind.value_type).encode(record.value, value_version(record.kind))


def control_record_json(record: ControlRecord) -> dict[str, Any]:
    """A control record as ``kafka-meta log --decode`` prints it: ``control``, its type's number and Kafka's name
    for it (``controlType``, ``marker``), the key, and the value's fields (Kafka's JSON names; ``null`` when it has
    none) or, for an unknown type, the value's bytes (base64, ``rawValue``)."""
    out: dict[str, Any] = {"control": True, "controlType": record.type_number, "marker": record.type_name,
                           "key": record.key.to_json_dict(every_field=True),
                           "value": None if record.value is None else record.value.to_json_dict(every_field=True)}
    if record.value is None and record.raw_value is not None:
        out["rawValue"] = bytes_to_json(record.raw_value)
    return out
