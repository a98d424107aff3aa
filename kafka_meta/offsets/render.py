"""JSON for ``__consumer_offsets`` records, with the nested decoding in place of the opaque bytes.

In the rendered value, a consumer group member's ``subscription`` and ``assignment`` (and a KIP-848
classic member's protocol ``metadata``) appear decoded, their user data decoded by the group's assignor;
with ``raw=True`` the original bytes stay beside them (``subscriptionRaw``...).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kafka_meta.counts import add_counts
from kafka_meta.models.base import Message
from kafka_meta.models.values import bytes_to_json
from kafka_meta.offsets.records import (
    GROUP_JSON_NAMES,
    ControlRecord,
    MemberNest,
    OffsetsRecord,
    ProtocolNest,
    UnknownRecord,
    group_of,
)

UNKNOWN, CONTROL = "unknown", "control"
GROUP_METADATA = 2  # the record type whose members carry decoded nests (and their errors)


def kind_of_json(rendered: dict[str, Any]) -> str:
    """What a record's JSON is: its record type's name, ``unknown`` or ``control``."""
    if "record" in rendered:
        return rendered["record"]  # type: ignore[no-any-return]
    return UNKNOWN if rendered.get("unknown") else CONTROL


def group_of_json(rendered: dict[str, Any]) -> str | None:
    """A record's group (``group_id``) from its JSON: the key's group field; None for unknown and control records."""
    return group_of(rendered["key"], GROUP_JSON_NAMES) if "record" in rendered else None


def b64_or_none(data: bytes | None) -> str | None:
    """Bytes as the JSON output prints them (base64), a null (a tombstone's value) as null."""
    return None if data is None else bytes_to_json(data)


def message_json(message: Message | None, user_data: Message | None = None) -> dict[str, Any] | None:
    if message is None:
        return None
    out: dict[str, Any] = {"version": message.version, **message.to_json_dict(every_field=True)}
    if user_data is not None:
        out["userData"] = {"type": type(user_data).kafka_type, "version": user_data.version,
                           "variant": user_data.variant, **user_data.to_json_dict(every_field=True)}
    return out


def _nest_member(member: dict[str, Any], nest: MemberNest, raw: bool) -> None:
    for field, message, user_data in (("subscription", nest.subscription, nest.subscription_user_data),
                                      ("assignment", nest.assignment, nest.assignment_user_data)):
        if message is None:
            continue
        if raw:
            member[f"{field}Raw"] = member[field]
        member[field] = message_json(message, user_data)
    if nest.errors:
        member["errors"] = list(nest.errors)


def _nest_protocol(protocol: dict[str, Any], nest: ProtocolNest, raw: bool) -> None:
    if nest.subscription is not None:
        if raw:
            protocol["metadataRaw"] = protocol["metadata"]
        protocol["metadata"] = message_json(nest.subscription, nest.subscription_user_data)
    if nest.errors:
        protocol["errors"] = list(nest.errors)


def record_json(record: OffsetsRecord, raw: bool = False) -> dict[str, Any]:
    if isinstance(record, UnknownRecord):
        return {"recordType": record.record_type, "unknown": True, "reason": record.reason,
                "key": b64_or_none(record.key), "value": b64_or_none(record.value)}
    if isinstance(record, ControlRecord):
        return {"control": True, "marker": record.marker, "key": message_json(record.key),
                "value": message_json(record.value)}
    out: dict[str, Any] = {
        "recordType": record.record_type,
        "record": record.record_name,
        "key": record.key.to_json_dict(every_field=True),
        "value": None if record.value is None else record.value.to_json_dict(every_field=True),
        "valueVersion": record.value_version,
    }
    if record.value is not None:
        out["valueVariant"] = record.value_variant
    if record.read_forward:
        out["readForward"] = True
    if record.retired:
        out["retired"] = True
    if record.members is not None:
        for member, nest in zip(out["value"]["members"], record.members, strict=True):
            _nest_member(member, nest, raw)
    if record.classic_protocols is not None:
        protocols = out["value"]["classicMemberMetadata"]["supportedProtocols"]
        for protocol, nest in zip(protocols, record.classic_protocols, strict=True):
            _nest_protocol(protocol, nest, raw)
    return out


class RecordStats:
    """Counts for the summary line: records per type, tombstones, unknown, control, read-forward, errors."""

    def __init__(self) -> None:
        self.per_type: Counter[str] = Counter()
        self.tombstones = self.unknown = self.control = self.read_forward = self.errors = 0
        self.nested_errors = 0

    def add(self, record: OffsetsRecord) -> None:
        if isinstance(record, UnknownRecord):
            self.unknown += 1
        elif isinstance(record, ControlRecord):
            self.control += 1
        else:
            self.per_type[record.record_name] += 1
            self.tombstones += record.value is None
            self.read_forward += record.read_forward
            self.nested_errors += sum(bool(m.errors) for m in record.members or [])

    def add_json(self, rendered: dict[str, Any]) -> None:
        """:meth:`add` of a record given as its JSON (what :func:`record_json` makes of it)."""
        kind = kind_of_json(rendered)
        if kind == UNKNOWN:
            self.unknown += 1
        elif kind == CONTROL:
            self.control += 1
        else:
            value = rendered["value"]
            self.add_read(kind, value is None, "readForward" in rendered)
            if value is not None and rendered["recordType"] == GROUP_METADATA and "members" in value:
                self.nested_errors += sum("errors" in m for m in value["members"])

    def add_read(self, record_name: str, tombstone: bool, read_forward: bool) -> None:
        """:meth:`add` of a record of a known type whose members (if any) were decoded without errors."""
        self.per_type[record_name] += 1
        self.tombstones += tombstone
        self.read_forward += read_forward

    def merge(self, other: RecordStats) -> None:
        """Add the counts of another reading (of other records) to these."""
        add_counts(self, other)

    def summary(self) -> str:
        types = ", ".join(f"{name} {n}" for name, n in sorted(self.per_type.items()))
        total = sum(self.per_type.values())
        return (f"records {total} ({types or 'none'}); tombstones {self.tombstones}; unknown {self.unknown}; "
                f"control {self.control}; read-forward {self.read_forward}; member errors {self.nested_errors}; "
                f"errors {self.errors}")
