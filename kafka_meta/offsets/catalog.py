"""The record types of ``__consumer_offsets`` known to the bundled catalogue, built once and kept.

How a record type is made of its key and value layouts is the offsets format plugin's business
(:func:`kafka_meta.formats.offsets.build_catalog`); this module keeps the result for the record reader.
"""

from __future__ import annotations

import threading

from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.formats.offsets import SHARED_VALUE_LAYOUTS, RecordType, build_catalog

__all__ = ["SHARED_VALUE_LAYOUTS", "RecordType", "build_catalog", "catalog", "record_type"]

_lock = threading.Lock()
_catalog: dict[int, RecordType] | None = None


def catalog() -> dict[int, RecordType]:
    global _catalog
    if _catalog is None:
        with _lock:
            if _catalog is None:
                _catalog = build_catalog(REGISTRY)
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
