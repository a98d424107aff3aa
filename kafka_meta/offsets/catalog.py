"""The record types of ``__consumer_offsets``, built from the registered key and value formats.

A record type is the apiKey shared by a ``coordinator-key`` and a ``coordinator-value`` spec. Its value
layouts are the current one followed by older variants (newest label first); layouts that Kafka once
shared between record types are listed in :data:`SHARED_VALUE_LAYOUTS`. So a new record type needs one
pair of spec files and no Python.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.registry import REGISTRY, Registry
from kafka_meta.codec.variants import Variant, VariantFormat
from kafka_meta.formats.offsets import CURRENT, VARIANTS_DIR

# (record type, variant label) -> the record type whose value layout it used then. Until December 2024
# (KAFKA-18301) record type 0 had no value schema of its own: a type-0 key was followed by an
# OffsetCommitValue of any version.
SHARED_VALUE_LAYOUTS: dict[tuple[int, str], int] = {(0, "2024-10"): 1}


@dataclass(frozen=True)
class RecordType:
    number: int
    name: str  # e.g. "OffsetCommit": the key spec's name without "Key"
    key: SpecFormat
    values: VariantFormat
    retired: bool  # known only from older layouts (no current spec)


def _label(fmt: SpecFormat) -> str:
    return CURRENT if fmt.family == "offsets" else fmt.name.rsplit("@", 1)[1]


def build_catalog(registry: Registry = REGISTRY) -> dict[int, RecordType]:
    keys: dict[int, list[SpecFormat]] = {}
    values: dict[int, list[SpecFormat]] = {}
    for fmt in registry.formats():
        if not isinstance(fmt, SpecFormat) or fmt.family not in ("offsets", VARIANTS_DIR):
            continue
        number = fmt.spec.api_key
        table = keys if fmt.spec.type == "coordinator-key" else values
        table.setdefault(number, []).append(fmt)  # type: ignore[arg-type]
    catalog: dict[int, RecordType] = {}
    for number, key_formats in keys.items():
        key_formats.sort(key=_label, reverse=True)  # labels are dates: newest first
        layouts = sorted(values.get(number, []), key=_label, reverse=True)
        variants = [Variant(_label(f), f) for f in layouts]
        for (record_type, label), source in SHARED_VALUE_LAYOUTS.items():
            if record_type == number:
                variants += [Variant(label, f) for f in values.get(source, []) if _label(f) == CURRENT]
        if not variants:
            continue
        key = key_formats[0]
        name = key.spec.name[:-3] if key.spec.name.endswith("Key") else key.spec.name
        catalog[number] = RecordType(number, name, key, VariantFormat(f"{name}Value", variants, family="offsets"),
                                     retired=_label(key) != CURRENT)
    return dict(sorted(catalog.items()))


_lock = threading.Lock()
_catalog: dict[int, RecordType] | None = None


def catalog() -> dict[int, RecordType]:
    global _catalog
    if _catalog is None:
        with _lock:
            if _catalog is None:
                _catalog = build_catalog()
    return _catalog


def record_type(number_or_name: int | str) -> RecordType:
    """Look a record type up by number or by name (``"OffsetCommit"``, ``"GroupMetadata"``...)."""
    table = catalog()
    if isinstance(number_or_name, int):
        return table[number_or_name]
    for rt in table.values():
        if rt.name == number_or_name:
            return rt
    raise KeyError(number_or_name)
