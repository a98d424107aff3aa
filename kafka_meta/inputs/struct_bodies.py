"""Exchange bodies as the Spark face stores them (the ``kafka-meta-capture`` source's structs, in the Parquet
``kafka-meta analyze`` writes under ``exchanges/``), back in the protocol layer's form: the rule both faces
read such a body by, so ``kafka-meta report`` of that Parquet reads the exchanges the job read.

A body struct has one field per api (all null but the exchange's own) beside ``_raw``, the bytes of a body
that did not decode; member metadata is a struct of the decoded message plus ``_type``, ``_version``,
``_error`` and ``_raw``; a type chosen at run time (assignor user data) sits in a field named after it.
:mod:`kafka_meta.spark.bodies` derives those structs from the specs.
"""

from __future__ import annotations

from typing import Any

RAW = "_raw"
TYPE, VERSION, ERROR = "_type", "_version", "_error"
UNKNOWN_TAGGED = "_unknownTaggedFields"
NESTED_NAMES = frozenset((TYPE, VERSION, ERROR, RAW))  # the fields member metadata has besides the message's


def choice_name(type_name: str) -> str:
    """The field of one possible type of a polymorphic field (``FeatureLevelRecord`` -> ``featureLevelRecord``),
    as :func:`kafka_meta.spark.schema.choice_name` names it."""
    return type_name[:1].lower() + type_name[1:]


def body_value(row: dict[str, Any] | None) -> dict[str, Any] | None:
    """A body column's value (``Row.asDict(recursive=True)``, or a Parquet row's) back in the protocol layer's
    form: the set api's fields (a null field left out, as a field its version lacks), ``{"_raw": bytes}`` for
    a raw body, member metadata as its decoded dict or its bytes, user data merged back from its type's field,
    unknown tagged fields as ``(tag, bytes)`` pairs. Derived views are not restored."""
    if row is None:
        return None
    for name, value in row.items():
        if name != RAW and value is not None:
            return _plain(value)
    return {RAW: _plain(row.get(RAW))}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        if NESTED_NAMES.issubset(value) and value[TYPE] is None and value[ERROR] is None:
            return _plain(value[RAW])
        out = {k: _plain(v) for k, v in value.items() if v is not None}
        if isinstance(out.get(TYPE), str) and isinstance(out.get(choice_name(out[TYPE])), dict):
            out.update(out.pop(choice_name(out[TYPE])))
        if UNKNOWN_TAGGED in out:
            out[UNKNOWN_TAGGED] = [(u["tag"], u["data"]) for u in out[UNKNOWN_TAGGED]]
        return out
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value
