"""Arrow and Spark schemas of decoded messages, derived from their typed models.

Every format has a pydantic model (spec-described or hand-declared), so one derivation serves all: ints
get the width their bounds allow (Spark has no unsigned types, so uint16 becomes int32 and uint32
int64), bytes are binary, uuids are strings in Kafka's base64 form, lists are arrays, structs are
structs. Field names are Kafka's JSON names, as in the JSON the CLI prints.
"""

from __future__ import annotations

import typing
import uuid
from functools import cache
from typing import Any

import annotated_types
import pyarrow as pa

from kafka_meta.codec.registry import REGISTRY
from kafka_meta.models.base import KafkaModel, Message

VERSION_FIELD = "_version"
ERROR_FIELD = "_error"
UNKNOWN_TAGS = pa.list_(pa.struct([("tag", pa.int64()), ("data", pa.binary())]))
_WIDTHS = [((-(2**7), 2**7 - 1), pa.int8()), ((-(2**15), 2**15 - 1), pa.int16()),
           ((-(2**31), 2**31 - 1), pa.int32()), ((-(2**63), 2**63 - 1), pa.int64())]


def _int_type(metadata: list[Any]) -> pa.DataType:
    low = next((m.ge for m in metadata if isinstance(m, annotated_types.Ge)), -(2**63))
    high = next((m.le for m in metadata if isinstance(m, annotated_types.Le)), 2**63 - 1)
    for (lo, hi), arrow_type in _WIDTHS:
        if lo <= low and high <= hi:
            return arrow_type
    return pa.int64()


def _unwrap(annotation: Any, metadata: list[Any]) -> tuple[Any, list[Any]]:
    """Strip Optional and Annotated, collecting Annotated's metadata (constraints live there)."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            args = typing.get_args(annotation)
            annotation, metadata = args[0], [*metadata, *args[1:]]
            for m in args[1:]:  # pydantic FieldInfo from Field(ge=..., le=...) carries them as metadata too
                metadata.extend(getattr(m, "metadata", []))
        elif origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                raise TypeError(f"no Arrow type for the union {annotation}")
            annotation = args[0]
        else:
            return annotation, metadata


def arrow_type(annotation: Any, metadata: list[Any] | None = None) -> pa.DataType:
    annotation, metadata = _unwrap(annotation, list(metadata or []))
    if typing.get_origin(annotation) is list:
        return pa.list_(arrow_type(typing.get_args(annotation)[0]))
    if isinstance(annotation, type):
        if issubclass(annotation, KafkaModel):
            return struct_type(annotation)
        if annotation is bool:
            return pa.bool_()
        if annotation is int:
            return _int_type(metadata)
        if annotation is float:
            return pa.float64()
        if annotation is str:
            return pa.string()
        if annotation is bytes:
            return pa.binary()
        if annotation is uuid.UUID:
            return pa.string()
    raise TypeError(f"no Arrow type for {annotation!r}")


def field_name(name: str, info: Any) -> str:
    return info.serialization_alias or info.alias or name


def choice_name(type_name: str) -> str:
    """The column of one possible type of a polymorphic field (``FeatureLevelRecord`` -> ``featureLevelRecord``)."""
    return type_name[:1].lower() + type_name[1:]


def struct_type(cls: type[KafkaModel]) -> pa.StructType:
    """The Arrow struct of a model: its stored fields (derived views are left out); a polymorphic field
    becomes a struct with one field per type it can hold (so the struct changes when types are registered)."""
    return _struct_type(cls, REGISTRY.generation)


@cache
def _struct_type(cls: type[KafkaModel], generation: int) -> pa.StructType:
    fields = []
    polymorphic = cls.polymorphic_fields()
    for name, info in cls.model_fields.items():
        if name == "unknown_tagged_fields":
            fields.append(pa.field(field_name(name, info), UNKNOWN_TAGS))
        elif name in polymorphic:
            choices = [pa.field(choice_name(t), struct_type(m)) for t, m in polymorphic[name].items()]
            fields.append(pa.field(field_name(name, info), pa.struct(choices)))
        else:
            fields.append(pa.field(field_name(name, info), arrow_type(info.annotation, info.metadata)))
    return pa.struct(fields)


def message_row_type(cls: type[Message]) -> pa.StructType:
    """What ``from_kafka_meta`` returns per row: the message's fields, then ``_version`` and ``_error``."""
    return pa.struct([*struct_type(cls), pa.field(VERSION_FIELD, pa.int32()), pa.field(ERROR_FIELD, pa.string())])


def spark_type(arrow: pa.DataType) -> Any:
    """The Spark SQL type for an Arrow type (imports pyspark lazily: the codec does not need it)."""
    from pyspark.sql.pandas.types import from_arrow_type

    return from_arrow_type(arrow)
