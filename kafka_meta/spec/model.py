"""The in-memory form of a message spec: messages, structs, fields and field types.

These classes hold what a spec *says*; turning that into bytes is the builder's job
(:mod:`kafka_meta.codec.builder`). Everything here is plain data so that the schema-evolution checker can
compare two specs without building codecs.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.spec.naming import RESERVED, json_name, snake_case
from kafka_meta.spec.versions import NONE, Versions
from kafka_meta.wire.primitives import INT_BOUNDS

PRIMITIVES = frozenset({"bool", "float64", "string", "bytes", "uuid", "records", *INT_BOUNDS})
NULLABLE_KINDS = frozenset({"string", "bytes", "array", "struct", "records"})
ZERO_UUID = bytes(16)


class _EmptyStruct:
    """Marker for "the struct with every field at its default"."""

    def __repr__(self) -> str:
        return "EMPTY_STRUCT"


EMPTY_STRUCT = _EmptyStruct()


@dataclass(frozen=True, slots=True)
class FieldType:
    """``int32``, ``string``, ``[]TopicPartition``, ``Endpoint``... as a small tree."""

    kind: str  # a primitive name, "array" or "struct"
    element: FieldType | None = None
    struct_name: str | None = None

    @classmethod
    def parse(cls, text: str) -> FieldType:
        if not isinstance(text, str) or not text:
            raise ValueError(f"not a field type: {text!r}")
        if text.startswith("[]"):
            element = cls.parse(text[2:])
            if element.kind == "array":
                raise ValueError(f"arrays of arrays are not allowed: {text!r}")
            return cls("array", element=element)
        if text in PRIMITIVES:
            return cls(text)
        if text[0].isupper() and text.isidentifier():
            return cls("struct", struct_name=text)
        raise ValueError(f"unknown field type {text!r}")

    @property
    def is_array(self) -> bool:
        return self.kind == "array"

    @property
    def is_struct(self) -> bool:
        return self.kind == "struct"

    @property
    def is_struct_array(self) -> bool:
        return self.kind == "array" and self.element is not None and self.element.kind == "struct"

    @property
    def struct_ref(self) -> str | None:
        """The struct this type names, directly or as its array element."""
        if self.kind == "struct":
            return self.struct_name
        if self.element is not None and self.element.kind == "struct":
            return self.element.struct_name
        return None

    @property
    def nullable_kind(self) -> bool:
        return self.kind in NULLABLE_KINDS

    def __str__(self) -> str:
        if self.kind == "array":
            return f"[]{self.element}"
        if self.kind == "struct":
            return str(self.struct_name)
        return self.kind


@dataclass(slots=True)
class FieldSpec:
    name: str
    type: FieldType
    versions: Versions
    nullable_versions: Versions = NONE
    tagged_versions: Versions = NONE
    tag: int | None = None
    default: str | None = None  # the spec's text; None when the spec gives none (JSON null or absent)
    ignorable: bool = False
    map_key: bool = False
    entity_type: str | None = None
    about: str | None = None
    zero_copy: bool = False
    flexible_versions: Versions | None = None  # field-level override for string/bytes
    struct: StructSpec | None = None  # resolved struct for struct and struct-array types
    path: str = ""  # location in the spec, for error messages

    @property
    def py_name(self) -> str:
        name = snake_case(self.name)
        return name + "_" if name in RESERVED else name

    @property
    def json_name(self) -> str:
        return json_name(self.name)

    def present(self, version: int) -> bool:
        return version in self.versions

    def tagged(self, version: int) -> bool:
        return version in self.tagged_versions

    def nullable(self, version: int) -> bool:
        return version in self.nullable_versions

    @property
    def ever_nullable(self) -> bool:
        return not self.nullable_versions.intersect(self.versions).empty

    def default_value(self) -> Any:
        """The value a reader sets when the field is absent; :data:`EMPTY_STRUCT` for a struct whose
        default is the struct with every field at its default (the codec layer materialises it)."""
        if self.type.kind == "struct" and self.default != "null":
            return EMPTY_STRUCT
        return parse_default(self.type, self.default, nullable=True)


@dataclass(slots=True)
class StructSpec:
    name: str
    versions: Versions
    fields: list[FieldSpec]
    common: bool = False

    def field(self, name: str) -> FieldSpec:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


@dataclass(slots=True)
class MessageSpec:
    name: str
    type: str
    valid_versions: Versions
    flexible_versions: Versions
    fields: list[FieldSpec]
    api_key: int | None = None
    common_structs: list[StructSpec] = field(default_factory=list)
    structs: dict[str, StructSpec] = field(default_factory=dict)  # every named struct, inline or common
    source: str = ""
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def root(self) -> StructSpec:
        return StructSpec(self.name, self.valid_versions, self.fields)

    def flexible(self, version: int) -> bool:
        return version in self.flexible_versions

    @property
    def ever_flexible(self) -> bool:
        return not self.flexible_versions.intersect(self.valid_versions).empty


def parse_uuid_text(text: str) -> bytes:
    """Kafka prints uuids as URL-safe base64 without padding; accept that and the usual hex forms."""
    text = text.strip()
    if len(text) == 22:
        raw = base64.urlsafe_b64decode(text + "==")
        if len(raw) == 16:
            return raw
    return uuid.UUID(text).bytes


def parse_default(ftype: FieldType, text: str | None, nullable: bool) -> Any:
    """Materialise a default's text for a field type; raises ``ValueError`` explaining what is wrong."""
    if text == "null":
        if not nullable:
            raise ValueError("default 'null' on a field that is never nullable")
        return None
    kind = ftype.kind
    if kind in INT_BOUNDS:
        if text is None or text == "":
            return 0
        value = int(text, 16) if text.lower().startswith(("0x", "-0x")) else int(text)
        low, high = INT_BOUNDS[kind]
        if not low <= value <= high:
            raise ValueError(f"default {text} does not fit in {kind}")
        return value
    if kind == "bool":
        if text in (None, ""):
            return False
        if text not in ("true", "false"):
            raise ValueError(f"bool default must be true or false, not {text!r}")
        return text == "true"
    if kind == "float64":
        return float(text) if text not in (None, "") else 0.0
    if kind == "string":
        return text or ""
    if kind == "bytes":
        if text not in (None, ""):
            raise ValueError("a bytes field's default can only be empty or null")
        return b""
    if kind == "uuid":
        return ZERO_UUID if text in (None, "") else parse_uuid_text(text)
    if kind == "array":
        if text not in (None, ""):
            raise ValueError("an array field's default can only be empty or null")
        return []
    if kind == "struct":
        if text not in (None, ""):
            raise ValueError("a struct field's default can only be empty or null")
        return None  # resolved to the empty struct by default_value()
    if kind == "records":
        return None
    raise ValueError(f"no default for type {ftype}")
