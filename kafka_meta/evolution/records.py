"""Coordinator records (``__consumer_offsets``): a key spec and a value spec per record type number.

Two conventions describe them. Up to late 2024 both were ``"type": "data"`` specs named ``<X>Key`` /
``<X>Value``, and the key's validVersions *were* the record type numbers (OffsetCommitKey "0-1" = types 0
and 1). Since then they are ``"coordinator-key"`` / ``"coordinator-value"`` specs with ``"apiKey"`` = the
record type and the key re-based to version 0. On the wire nothing changed: the key still starts with the
int16 record type, followed by the same key body. So records are matched by record type number, the old
key at version T is compared with the new key at version 0, and the switch itself is reported as
information, not as a shrunk validVersions.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_meta.spec.model import MessageSpec

KEY_TYPES = frozenset({"coordinator-key"})
VALUE_TYPES = frozenset({"coordinator-value"})


@dataclass
class Record:
    number: int
    key: MessageSpec | None
    key_version: int | None  # the key schema version its body is parsed at
    value: MessageSpec | None
    coordinator_convention: bool  # apiKey convention (True) or record type in the key's validVersions

    @property
    def name(self) -> str:
        spec = self.key or self.value
        assert spec is not None
        return spec.name.removesuffix("Key").removesuffix("Value")


def split_records(specs: list[MessageSpec]) -> tuple[dict[int, Record], list[MessageSpec]]:
    """Records by type number, and the specs that are not records."""
    by_name = {s.name: s for s in specs}
    records: dict[int, Record] = {}
    used: set[str] = set()
    for spec in specs:
        if spec.type in KEY_TYPES and spec.api_key is not None:
            value = next((s for s in specs if s.type in VALUE_TYPES and s.api_key == spec.api_key), None)
            records[spec.api_key] = Record(spec.api_key, spec, spec.valid_versions.low, value, True)
            used.update(s.name for s in (spec, value) if s is not None)
    for spec in specs:
        if spec.type in VALUE_TYPES and spec.api_key is not None and spec.name not in used:
            records.setdefault(spec.api_key, Record(spec.api_key, None, None, spec, True))
            used.add(spec.name)
    for spec in specs:
        if spec.type == "data" and spec.name.endswith("Key") and spec.name not in used:
            value = by_name.get(spec.name[: -len("Key")] + "Value")
            if value is None or value.type != "data":
                continue
            for number in spec.valid_versions:
                records.setdefault(number, Record(number, spec, number, value, False))
            used.update((spec.name, value.name))
    return dict(sorted(records.items())), [s for s in specs if s.name not in used]


def is_old_convention_value(spec: MessageSpec) -> bool:
    """A ``data`` spec named like a coordinator value (when there is no directory to find its key in)."""
    return spec.type == "data" and spec.name.endswith("Value")


def key_version_pairs(old: MessageSpec, new: MessageSpec) -> list[tuple[int, int]] | None:
    """For a key that moved to the apiKey convention: (record type, 0); None when it did not."""
    if old.type == "data" and new.type in KEY_TYPES and new.api_key is not None and new.api_key in old.valid_versions:
        return [(new.api_key, new.valid_versions.low)]
    return None
