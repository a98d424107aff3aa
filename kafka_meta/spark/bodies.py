"""Request and response bodies of captured exchanges as Spark structs: their types, derived from the specs,
and the conversion of the protocol layer's decoded bodies into rows of those types (and back).

Each side of an exchange is one struct with one field per api whose bodies the protocol layer decodes
(named by api: ``JoinGroup``, ``SyncGroup``...), each the struct of that message's model: the union of the
fields of every version (tagged fields included), so a field its version lacks is null, as are the other
apis' fields. Beside them ``_raw`` holds the body's bytes when the api has no spec here or its body did
not decode. So exactly one field is set per body, and ``request.JoinGroup.groupId`` is a column path.

Member metadata that the protocol layer decodes in place of its bytes (the places in :data:`NESTED`) is a
struct of the consumer protocol message found there (subscription or assignment, the union over its
versions) plus four fields of our own: ``_type`` and ``_version`` of what was decoded, ``_error`` when
the bytes did not decode and ``_raw``, the bytes themselves when they were not decoded (another protocol
type, an empty assignment, damage). Its ``userData`` holds a type chosen by the assignor (sticky,
cooperative-sticky, Streams): one field per type it can hold, named as ``from_kafka_meta`` names the
types of a polymorphic field (``subscriptionInfo``), beside the same four fields.

Every type is derived from the models (:func:`kafka_meta.spark.schema.struct_type`, the derivation
``from_kafka_meta`` uses) and the api table, so a spec that gains a field or a version changes the
columns with it. The derived views the JSON form adds to member metadata (``clientView``,
``streamsView``) are not stored: they follow from the fields beside them.

The conversion checks every value against its type (an int's range, a string Spark can encode, a
struct's field names): a body that does not fit raises :class:`UnfitValue` naming the field path, which
the data source reports in the row's ``_error`` instead of failing the task.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

import pyarrow as pa

import kafka_meta as km
from kafka_meta.inputs.struct_bodies import (  # noqa: F401 - body_value: rows back to values, read by both faces
    ERROR,
    NESTED_NAMES,
    RAW,
    TYPE,
    UNKNOWN_TAGGED,
    VERSION,
    body_value,
)
from kafka_meta.models.values import kafka_uuid_text
from kafka_meta.protocol import APIS, BODIES
from kafka_meta.protocol.member_metadata import ASSIGNMENT, PLACES, SUBSCRIPTION, USER_DATA_TYPES
from kafka_meta.spark.schema import choice_name, spark_type, struct_type

# the fields member metadata (and its user data) has besides the decoded message's
NESTED_FIELDS = [pa.field(TYPE, pa.string()), pa.field(VERSION, pa.int32()), pa.field(ERROR, pa.string()),
                 pa.field(RAW, pa.binary())]
KINDS = ("Request", "Response")

NESTED = PLACES  # where the protocol layer nests member metadata, and whether it is an assignment


class UnfitValue(ValueError):
    """A decoded value that does not fit its derived type; ``path`` is where, from the body's root."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.path: list[str | int] = []

    def where(self, root: str) -> str:
        text = root
        for step in self.path:
            text += f"[{step}]" if isinstance(step, int) else f".{step}"
        return f"{text}: {self.message}"


# --- types -------------------------------------------------------------------------------------------


def decoded_apis(kind: str) -> dict[str, str]:
    """Api name -> body type name, for every api whose ``kind`` bodies (Request or Response) the protocol
    layer decodes, in api key order."""
    return {api.name: api.name + kind for api in APIS.values() if BODIES.has_spec(api.name + kind)}


def user_data_types(assignment: bool) -> list[str]:
    """The types an assignor's user data is decoded as, on the subscription or the assignment side."""
    side = 1 if assignment else 0
    return sorted({types[side] for types in USER_DATA_TYPES.values() if types[side] is not None})


@cache
def user_data_type(assignment: bool) -> pa.StructType:
    choices = [pa.field(choice_name(t), struct_type(km.model(t))) for t in user_data_types(assignment)]
    return pa.struct([*choices, *NESTED_FIELDS])


@cache
def member_metadata_type(assignment: bool) -> pa.StructType:
    """A consumer protocol subscription or assignment where its bytes were, ``userData`` by assignor."""
    message = struct_type(km.model(ASSIGNMENT if assignment else SUBSCRIPTION))
    fields = [f.with_type(user_data_type(assignment)) if f.name == "userData" else f for f in message]
    return pa.struct([*fields, *NESTED_FIELDS])


def _replaced(struct: pa.StructType, path: tuple[str, ...], new: pa.DataType, type_name: str) -> pa.StructType:
    """``struct`` with the field at ``path`` (through structs and arrays of structs) of type ``new``."""
    fields = []
    for f in struct:
        if f.name == path[0]:
            inner = f.type
            if len(path) == 1:
                inner = new
            elif pa.types.is_list(inner) and pa.types.is_struct(inner.value_type):
                inner = pa.list_(_replaced(inner.value_type, path[1:], new, type_name))
            elif pa.types.is_struct(inner):
                inner = _replaced(inner, path[1:], new, type_name)
            else:
                raise LookupError(f"{type_name}: {'.'.join(path)} does not lead through structs")
            f = f.with_type(inner)
        fields.append(f)
    if not any(f.name == path[0] for f in struct):
        raise LookupError(f"{type_name} has no field {path[0]!r} "
                          "(kafka_meta.protocol.member_metadata.PLACES is out of date)")
    return pa.struct(fields)


@cache
def message_type(type_name: str) -> pa.StructType:
    """One api's body: its model's struct, with member metadata where the protocol layer nests it."""
    struct = struct_type(km.model(type_name))
    for path, assignment in NESTED.get(type_name, {}).items():
        struct = _replaced(struct, path, member_metadata_type(assignment), type_name)
    return struct


@cache
def body_type(kind: str) -> pa.StructType:
    """The ``request`` (``kind`` Request) or ``response`` column: one field per decoded api, then ``_raw``."""
    apis = [pa.field(api, message_type(type_name)) for api, type_name in decoded_apis(kind).items()]
    return pa.struct([*apis, pa.field(RAW, pa.binary())])


def body_spark_type(kind: str) -> Any:
    """:func:`body_type` as a Spark SQL type."""
    return spark_type(body_type(kind))


# --- decoded values -> rows ------------------------------------------------------------------------

Convert = Callable[[Any], Any]

_INT_RANGES = {8: (-(2**7), 2**7 - 1), 16: (-(2**15), 2**15 - 1), 32: (-(2**31), 2**31 - 1),
               64: (-(2**63), 2**63 - 1)}


def _int(bits: int) -> Convert:
    low, high = _INT_RANGES[bits]

    def convert(v: Any) -> int:
        if isinstance(v, int) and not isinstance(v, bool) and low <= v <= high:
            return v
        raise UnfitValue(f"{v!r} does not fit int{bits}")

    return convert


def _string(v: Any) -> str:
    if isinstance(v, str):
        if not v.isascii():
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise UnfitValue(f"a string Spark cannot hold ({exc.reason} at character {exc.start})") from None
        return v
    if isinstance(v, uuid.UUID):
        return kafka_uuid_text(v)
    raise UnfitValue(f"a string, not {type(v).__name__}")


def _binary(v: Any) -> bytes:
    if isinstance(v, bytes):
        return v
    if isinstance(v, (bytearray, memoryview)):
        return bytes(v)
    raise UnfitValue(f"bytes, not {type(v).__name__}")


def _boolean(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise UnfitValue(f"a boolean, not {type(v).__name__}")


def _double(v: Any) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise UnfitValue(f"a number, not {type(v).__name__}")


def _list(item: Convert) -> Convert:
    def convert(v: Any) -> list:
        if not isinstance(v, (list, tuple)):
            raise UnfitValue(f"a list, not {type(v).__name__}")
        out = []
        for i, x in enumerate(v):
            try:
                out.append(None if x is None else item(x))
            except UnfitValue as exc:
                exc.path.insert(0, i)
                raise
        return out

    return convert


def _struct(t: pa.StructType, ignored: Callable[[dict], frozenset[str]] | None = None) -> Convert:
    """Dicts by field name (every key must be a field, or one of ``ignored(value)``) and tuples by
    position (the protocol layer's ``(tag, bytes)`` unknown tagged fields) to tuples in field order."""
    pairs = [(f.name, compile_converter(f.type)) for f in t]
    names_in_order = [name for name, _ in pairs]
    names = frozenset(names_in_order)

    def convert(v: Any) -> tuple:
        if isinstance(v, dict):
            if not names.issuperset(v):
                extra = set(v) - names - (ignored(v) if ignored is not None else frozenset())
                if extra:
                    raise UnfitValue(f"fields the type does not have: {', '.join(sorted(map(str, extra)))}")
            get = v.get
        elif isinstance(v, tuple) and len(v) == len(pairs):
            get = dict(zip(names_in_order, v, strict=True)).get
        else:
            raise UnfitValue(f"a struct, not {type(v).__name__}")
        out = []
        name = None
        try:
            for name, item in pairs:
                x = get(name)
                out.append(None if x is None else item(x))
        except UnfitValue as exc:
            exc.path.insert(0, name)
            raise
        return tuple(out)

    return convert


@lru_cache(maxsize=64)
def _views(type_name: Any) -> frozenset[str]:
    """The derived views (computed fields) a decoded message's dict shows, by their JSON names."""
    try:
        fields = km.model(type_name).model_computed_fields
    except (km.KafkaMetaError, AttributeError, TypeError):
        return frozenset()
    return frozenset(info.alias or name for name, info in fields.items())


def _nested(t: pa.StructType) -> Convert:
    """Member metadata or user data (a struct with the four :data:`NESTED_FIELDS`): bytes left undecoded
    go to ``_raw``; a decoded message's fields go in place (member metadata), or under its type's own
    field when the struct has one (user data: one struct per type)."""
    positions = {f.name: i for i, f in enumerate(t)}
    fields = {f.name: f.type for f in t}
    flat = _struct(t, lambda v: _views(v.get(TYPE)))
    by_type: dict[str, Convert] = {}  # at most one per field of t
    type_at, version_at, raw_at = positions[TYPE], positions[VERSION], positions[RAW]
    version = _int(32)

    def convert(v: Any) -> tuple:
        row: list[Any] = [None] * len(positions)
        if isinstance(v, (bytes, bytearray, memoryview)):
            row[raw_at] = bytes(v)
            return tuple(row)
        if not isinstance(v, dict):
            raise UnfitValue(f"bytes or a decoded message, not {type(v).__name__}")
        kind = v.get(TYPE)
        choice = choice_name(kind) if isinstance(kind, str) and kind else None
        if choice is None or choice not in positions or ERROR in v or not pa.types.is_struct(fields[choice]):
            return flat(v)
        item = by_type.get(choice)
        if item is None:
            item = by_type[choice] = _struct(fields[choice], lambda _v, k=kind: _views(k))
        step: str = choice
        try:
            row[positions[choice]] = item({k: x for k, x in v.items() if k not in NESTED_NAMES})
            step = VERSION
            row[version_at] = None if v.get(VERSION) is None else version(v[VERSION])
        except UnfitValue as exc:
            exc.path.insert(0, step)
            raise
        row[type_at] = kind
        return tuple(row)

    return convert


def compile_converter(t: pa.DataType) -> Convert:
    """The function turning a decoded value (never None: the caller keeps nulls) into a row of type ``t``."""
    if pa.types.is_struct(t):
        if NESTED_NAMES.issubset(f.name for f in t):
            return _nested(t)
        return _struct(t)
    if pa.types.is_list(t):
        return _list(compile_converter(t.value_type))
    if pa.types.is_integer(t):
        return _int(t.bit_width)
    if pa.types.is_string(t):
        return _string
    if pa.types.is_binary(t):
        return _binary
    if pa.types.is_boolean(t):
        return _boolean
    if pa.types.is_floating(t):
        return _double
    raise TypeError(f"no row conversion for the Arrow type {t}")


class BodyRows:
    """Bodies of one side (``kind`` Request or Response) as rows of :func:`body_type`."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.type = body_type(kind)
        self.width = len(self.type)
        self.raw_at = self.width - 1
        self.apis = {f.name: (i, compile_converter(f.type)) for i, f in enumerate(self.type) if f.name != RAW}

    def row(self, api_name: str | None, body: dict[str, Any] | None) -> tuple | None:
        """The row of one decoded body (None for none); raises :class:`UnfitValue` for a body that does
        not fit (its ``where(kind)`` names the field)."""
        if body is None:
            return None
        if not isinstance(body, dict):
            raise UnfitValue(f"a body (a dict), not {type(body).__name__}")
        out: list[Any] = [None] * self.width
        if RAW in body:
            if len(body) != 1:
                raise UnfitValue(f"a raw body with other fields: {', '.join(sorted(k for k in body if k != RAW))}")
            out[self.raw_at] = _binary(body[RAW])
            return tuple(out)
        api = self.apis.get(api_name or "")
        if api is None:
            raise UnfitValue(f"a decoded body of {api_name}, which has no field here")
        try:
            out[api[0]] = api[1](body)
        except UnfitValue as exc:
            exc.path.insert(0, api_name or "")
            raise
        return tuple(out)


@cache
def body_rows(kind: str) -> BodyRows:
    """One converter per side and process (compiled on first use; executors build their own)."""
    return BodyRows(kind)
