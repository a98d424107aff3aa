"""``decode_offsets``: a Kafka-source DataFrame of ``__consumer_offsets`` as typed columns per record type.

Output columns, added to the input's: ``recordType``, ``recordName``, ``groupId``, ``tombstone``,
``valueVersion``, ``valueVariant``, ``readForward``, ``retired``, ``unknown``, ``_error``; one struct
column per record type (``offsetCommit``, ``groupMetadata``, ``consumerGroupMemberMetadata``, ...) with
its ``key`` and ``value``, null on rows of other types; and the decoded nest: ``members`` (for consumer
GroupMetadata: each member's subscription, assignment and assignor user data) and ``classicProtocols``
(for KIP-848 members that joined with the classic protocol). ``explode_members`` gives one row per
classic group member.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_meta.api import types
from kafka_meta.codec.registry import REGISTRY
from kafka_meta.errors import KafkaMetaError
from kafka_meta.models.base import Message
from kafka_meta.offsets import catalog, decode_record
from kafka_meta.offsets.nest import ASSIGNOR_USER_DATA
from kafka_meta.offsets.records import (
    GROUP_JSON_NAMES,
    ControlRecord,
    CoordinatorRecord,
    MemberNest,
    ProtocolNest,
    UnknownRecord,
    group_of,
)
from kafka_meta.spark.batch import FAILFAST, PERMISSIVE, paused_gc
from kafka_meta.spark.offsets_columnar import NESTED, columnar_offsets
from kafka_meta.spark.rows import row_decoder, row_from_model
from kafka_meta.spark.schema import ERROR_FIELD, VERSION_FIELD, spark_type, struct_type
from kafka_meta.spec.naming import json_name

RESULT = "_kafka_meta_record"


def union_struct(structs: list[pa.StructType]) -> pa.StructType:
    """The fields of every layout of a record value, once each, in order of first appearance."""
    fields: dict[str, pa.Field] = {}
    for struct in structs:
        for f in struct:
            if f.name in fields and fields[f.name].type != f.type:
                raise TypeError(f"field {f.name} has different types in two layouts")
            fields.setdefault(f.name, f)
    return pa.struct(list(fields.values()))


def _with_version(struct: pa.StructType) -> pa.StructType:
    return pa.struct([*struct, pa.field(VERSION_FIELD, pa.int32())])


def user_data_columns() -> list[tuple[str, str]]:
    """(column, type name) of every assignor user data type that can be decoded."""
    names = sorted({t for pair in ASSIGNOR_USER_DATA.values() for t in pair if t and t in types()})
    return [(json_name(t), t) for t in names]


def _message_type(type_name: str) -> pa.StructType:
    from kafka_meta.api import model

    return _with_version(struct_type(model(type_name)))


MEMBERS_OF = {"members": "GroupMetadata", "classicProtocols": "ConsumerGroupMemberMetadata"}  # nest -> its type


@cache
def record_columns(record_types: tuple[str, ...] | None = None) -> pa.StructType:
    """The Arrow type of what ``decode_offsets`` adds to each row: the header every record has, then a column
    per record type (only those named in ``record_types``, when given) and the nests of the types named."""
    fields = [
        pa.field("recordType", pa.int32()), pa.field("recordName", pa.string()), pa.field("groupId", pa.string()),
        pa.field("tombstone", pa.bool_()), pa.field("valueVersion", pa.int32()),
        pa.field("valueVariant", pa.string()), pa.field("readForward", pa.bool_()), pa.field("retired", pa.bool_()),
        pa.field("unknown", pa.bool_()), pa.field(ERROR_FIELD, pa.string()),
    ]
    for rt in catalog().values():
        if record_types is not None and rt.name not in record_types:
            continue
        value = union_struct([struct_type(v.format.model) for v in rt.values.variants])
        fields.append(pa.field(json_name(rt.name), pa.struct([("key", struct_type(rt.key.model)),
                                                               ("value", _with_version(value))])))
    if record_types is not None:
        return pa.struct([*fields, *(f for f in _nests() if MEMBERS_OF[f.name] in record_types)])
    return pa.struct([*fields, *_nests()])


def added_columns(record_types: tuple[str, ...] | None = None) -> list[str]:
    """The columns decoding adds beside a row's own, but ``_error``: a reader's rows may have one already, and
    the decoded row keeps one (see :func:`decode_batch`)."""
    return [name for name in record_columns(record_types).names if name != ERROR_FIELD]


def _nests() -> list[pa.Field]:
    """``members`` and ``classicProtocols``: the consumer-protocol bytes inside group records, decoded."""
    user_data = [pa.field(column, _message_type(t)) for column, t in user_data_columns()]
    member = pa.struct([("memberId", pa.string()),
                        ("subscription", _message_type("ConsumerProtocolSubscription")),
                        ("assignment", _message_type("ConsumerProtocolAssignment")),
                        *[pa.field(f"subscription{f.name[0].upper()}{f.name[1:]}", f.type) for f in user_data],
                        *[pa.field(f"assignment{f.name[0].upper()}{f.name[1:]}", f.type) for f in user_data],
                        ("errors", pa.list_(pa.string()))])
    protocol = pa.struct([("name", pa.string()), ("subscription", _message_type("ConsumerProtocolSubscription")),
                          *[pa.field(f"subscription{f.name[0].upper()}{f.name[1:]}", f.type) for f in user_data],
                          ("errors", pa.list_(pa.string()))])
    return [pa.field("members", pa.list_(member)), pa.field("classicProtocols", pa.list_(protocol))]


def _message_row(message: Message | None) -> dict[str, Any] | None:
    if message is None:
        return None
    return {**row_from_model(message), VERSION_FIELD: message.version}


def _user_data(prefix: str, message: Message | None) -> dict[str, Any]:
    if message is None:
        return {}
    return {f"{prefix}{json_name(type(message).kafka_type)[0].upper()}{json_name(type(message).kafka_type)[1:]}":
            _message_row(message)}


def _member_row(nest: MemberNest) -> dict[str, Any]:
    return {"memberId": nest.member_id, "subscription": _message_row(nest.subscription),
            "assignment": _message_row(nest.assignment),
            **_user_data("subscription", nest.subscription_user_data),
            **_user_data("assignment", nest.assignment_user_data), "errors": list(nest.errors)}


def _protocol_row(nest: ProtocolNest) -> dict[str, Any]:
    return {"name": nest.name, "subscription": _message_row(nest.subscription),
            **_user_data("subscription", nest.subscription_user_data), "errors": list(nest.errors)}


class FastRows:
    """Rows of the common records straight from the generated row decoders (no models): record types with
    one layout and no nested decoding, whose key and value fill their bytes exactly. Anything else (older
    layouts, nesting, trailing bytes, errors) returns None and goes through :func:`record_row`."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.plans: dict[int, Any] = {}

    def plan(self, number: int) -> Any:
        if number not in self.plans:
            rt = catalog().get(number)
            simple = rt is not None and number not in NESTED and len(rt.values.variants) == 1
            self.plans[number] = (rt, rt.values.variants[0]) if simple else None
        return self.plans[number]

    def row(self, key: bytes, value: bytes | None) -> dict[str, Any] | None:
        plan = self.plan(int.from_bytes(key[:2], "big", signed=True)) if len(key) >= 2 else None
        if plan is None:
            return None
        rt, variant = plan
        key_row, end = row_decoder(rt.key, 0, self.strict)(key, 2, len(key))
        if end != len(key):
            return None
        if value is None:
            return header_row(rt.number, rt.name, group_of(key_row, GROUP_JSON_NAMES), rt.retired, key_row, None)
        fmt = variant.format
        header = fmt.framing.read(value, fmt.versions, None, fmt.name, self.strict)
        value_row, end = row_decoder(fmt, header[1], self.strict)(value, header[2], len(value))
        if end != len(value):
            return None
        value_row[VERSION_FIELD] = header[0]
        return header_row(rt.number, rt.name, group_of(key_row, GROUP_JSON_NAMES), rt.retired, key_row, value_row,
                          header[0], variant.label, header[0] > fmt.newest)


@cache
def fast_rows(strict: bool, generation: int) -> FastRows:
    """One per worker process (and registry state): its plans are looked up once per record type."""
    return FastRows(strict)


def record_row(key: bytes | None, value: bytes | None, strict: bool = False, control: bool = False) -> dict[str, Any]:
    record = decode_record(key, value, strict=strict, control=control)
    if isinstance(record, ControlRecord):
        return {"recordName": f"control {record.marker}", "tombstone": value is None, "unknown": False,
                ERROR_FIELD: None}
    if isinstance(record, UnknownRecord):
        return {"recordType": record.record_type, "unknown": True, "tombstone": value is None,
                ERROR_FIELD: None}
    assert isinstance(record, CoordinatorRecord)
    row = header_row(record.record_type, record.record_name, record.group_id, record.retired,
                     row_from_model(record.key), _message_row(record.value), record.value_version,
                     record.value_variant, record.read_forward)
    row["members"] = None if record.members is None else [_member_row(m) for m in record.members]
    row["classicProtocols"] = None if record.classic_protocols is None else [
        _protocol_row(p) for p in record.classic_protocols]
    return row


def header_row(number: int, name: str, group: str | None, retired: bool, key: dict[str, Any],
               value: dict[str, Any] | None, version: int | None = None, variant: str | None = None,
               forward: bool = False) -> dict[str, Any]:
    """A decoded record's row: what every record has, then its type's column with its key and value."""
    return {"recordType": number, "recordName": name, "groupId": group, "tombstone": value is None,
            "valueVersion": version, "valueVariant": variant, "readForward": forward, "retired": retired,
            "unknown": False, ERROR_FIELD: None, json_name(name): {"key": key, "value": value}}


def decode_batch(keys: pa.Array, values: pa.Array, mode: str = PERMISSIVE, strict: bool = False,
                 controls: pa.Array | None = None, record_types: tuple[str, ...] | None = None,
                 read_errors: pa.Array | None = None) -> pa.Array:
    """A batch of records as rows of :func:`record_columns`: record types with one layout and no nest go
    columnar (:mod:`kafka_meta.spark.offsets_columnar`), the others through :func:`decode_rows`' rows.

    ``read_errors``: the reader's own damage per row (the log source's ``_error``). Where there is one it is
    the row's one ``_error``: it is the first thing that went wrong, and a damage row has no record to read."""
    decoded = _decoded(keys, values, mode, strict, controls, record_types)
    if read_errors is None:
        return decoded
    children = [pc.coalesce(read_errors.cast(pa.string()), child) if f.name == ERROR_FIELD else child
                for f, child in zip(decoded.type, decoded.flatten(), strict=True)]
    return pa.StructArray.from_arrays(children, fields=list(decoded.type))


def _decoded(keys: pa.Array, values: pa.Array, mode: str, strict: bool, controls: pa.Array | None,
             record_types: tuple[str, ...] | None) -> pa.StructArray:
    flags = np.zeros(len(keys), bool)
    if controls is not None:
        flags = controls.cast(pa.bool_()).fill_null(False).to_numpy(zero_copy_only=False)
    fast = fast_rows(strict, REGISTRY.generation)

    def slow_row(key: bytes | None, value: bytes | None, control: bool) -> dict[str, Any]:
        return _row(fast, key, value, strict, control)

    def on_error(exc: Exception) -> dict[str, Any]:
        if mode == FAILFAST or not isinstance(exc, KafkaMetaError):
            raise exc
        return {ERROR_FIELD: str(exc)}

    with paused_gc():
        decoder = columnar_offsets(strict, record_columns(record_types))
        return decoder.decode(keys, values, flags, slow_row, on_error)


def _row(fast: FastRows, key: bytes | None, value: bytes | None, strict: bool, control: bool) -> dict[str, Any]:
    row = None
    if not control and key is not None:
        try:
            row = fast.row(key, value)
        except Exception:  # noqa: BLE001 - the full reader below explains it
            row = None
    return row if row is not None else record_row(key, value, strict, bool(control))


def decode_rows(keys: pa.Array, values: pa.Array, mode: str = PERMISSIVE, strict: bool = False,
                controls: pa.Array | None = None) -> pa.Array:
    """The row path alone (every record as a dict, then one conversion): the reference the columnar path
    is checked against."""
    rows = []
    flags = controls.to_pylist() if controls is not None else [False] * len(keys)
    fast = fast_rows(strict, REGISTRY.generation)
    with paused_gc():
        for key, value, control in zip(keys.to_pylist(), values.to_pylist(), flags, strict=True):
            try:
                rows.append(_row(fast, key, value, strict, bool(control)))
            except KafkaMetaError as e:
                if mode == FAILFAST:
                    raise
                rows.append({ERROR_FIELD: str(e)})
        return pa.array(rows, type=record_columns())


def _column_types(df: Any) -> dict[str, str]:
    return {f.name: f.dataType.simpleString() for f in df.schema.fields}


def check_columns(df: Any, key: str, value: str, control: str | None) -> None:
    """The named columns exist and hold bytes (and booleans for ``control``): said on the driver, naming
    the columns there are, rather than by Spark's analyzer or a worker's traceback."""
    types = _column_types(df)
    for role, name, wanted in (("key", key, ("binary",)), ("value", value, ("binary", "void")),
                               ("control", control, None)):  # control: anything Spark casts to boolean
        if name is None:
            continue
        if name not in types:
            raise ValueError(f"decode_offsets: no column {name!r} for the {role}; the DataFrame has "
                             f"{', '.join(types) or 'no columns'}")
        if wanted is not None and types[name] not in wanted:
            hint = " (decode hex or base64 text first: unhex, unbase64)" if types[name] == "string" else ""
            raise TypeError(f"decode_offsets: the {role} column {name!r} holds {types[name]}, not "
                            f"{' or '.join(wanted)}{hint}")


def check_record_types(record_types: tuple[str, ...] | None, who: str) -> None:
    """Record type names, said to be unknown (with the known ones) before any row is read."""
    unknown = sorted(set(record_types or ()) - {rt.name for rt in catalog().values()})
    if unknown:
        raise ValueError(f"{who}: unknown record type(s) {unknown}; known: "
                         f"{', '.join(rt.name for rt in catalog().values())}")


def decode_offsets(df: Any, key: str = "key", value: str = "value", options: dict[str, Any] | None = None,
                   control: str | None = None, record_types: list[str] | tuple[str, ...] | None = None) -> Any:
    """Add the typed columns of each ``__consumer_offsets`` record (see the module docstring) to ``df``.

    A row that already carries an ``_error`` (the log source's damage rows) keeps it as its one ``_error``, so
    a reader's output and this function's compose into a DataFrame that writes to Parquet as it is. Every other
    column of the row is kept as it is, ``producerId`` and ``transaction`` among them where the input has them
    (the log source, ``kafka-meta log``'s JSON Lines, the analyze job's ``offsets/``): a commit of an aborted
    transaction stays marked ``"aborted"``, one of a transaction still open ``"open"``.

    options: ``mode`` (PERMISSIVE: a bad record gives a row with ``_error``; FAILFAST), ``strict``
    ("true": unknown types and newer versions are errors, as in Kafka 4.0+). ``control`` names a boolean
    column marking records of control batches (transaction markers); Spark's Kafka source never returns
    those, dumps from other tools may. ``record_types`` (names, e.g. ``["OffsetCommit"]``) keeps only those
    types' columns, and the nests of the types named: every row still gets its header columns, and the rows
    write to Parquet as fast as their columns are few (the analyze job writes a log's commits so).
    """
    from pyspark.sql import functions as F
    from pyspark.sql.functions import arrow_udf

    options = dict(options or {})
    mode = str(options.pop("mode", PERMISSIVE)).upper()
    strict = str(options.pop("strict", "false")).lower() in ("true", "1", "yes")
    if options:
        raise ValueError(f"decode_offsets: unknown option(s) {sorted(options)}; known: mode, strict")
    if mode not in (PERMISSIVE, FAILFAST):
        raise ValueError(f"decode_offsets: mode must be {PERMISSIVE} or {FAILFAST}, not {mode!r}")
    check_columns(df, key, value, control)
    typed = None if record_types is None else tuple(record_types)
    check_record_types(typed, "decode_offsets")

    def decode(keys: pa.Array, values: pa.Array, controls: pa.Array, read_errors: pa.Array) -> pa.Array:
        return decode_batch(keys, values, mode, strict, controls, typed, read_errors)

    udf = arrow_udf(decode, spark_type(record_columns(typed)))
    flags = F.col(control).cast("boolean") if control else F.lit(False)
    # a reader's own damage column (the log source's) goes in, and comes out as the rows' one _error
    read_errors = F.col(ERROR_FIELD).cast("string") if ERROR_FIELD in df.columns else F.lit(None).cast("string")
    decoded = df.withColumn(RESULT, udf(F.col(key), F.col(value), flags, read_errors))
    return decoded.drop(ERROR_FIELD).select("*", f"{RESULT}.*").drop(RESULT)


def explode_members(df: Any) -> Any:
    """One row per member of a classic group, from ``decode_offsets`` output: the group's id, generation,
    protocol type and assignor, then the member's fields and its decoded subscription, assignment and
    assignor user data (null for members of non-consumer groups' opaque protocols)."""
    from pyspark.sql import functions as F

    missing = [c for c in ("recordType", "groupId", "groupMetadata", "members") if c not in df.columns]
    if missing:
        raise ValueError(f"explode_members: the DataFrame lacks {', '.join(missing)}; give it decode_offsets' "
                         "output")
    value = F.col("groupMetadata.value")
    groups = df.where(F.col("recordType") == 2).where(value.isNotNull())
    exploded = groups.select(
        F.col("groupId"), value["generation"].alias("generation"), value["protocolType"].alias("protocolType"),
        value["protocol"].alias("protocol"), value["leader"].alias("leader"),
        F.posexplode(value["members"]).alias("memberIndex", "member"), F.col("members").alias("_nest"),
        *[c for c in ("topic", "partition", "offset", "timestamp") if c in df.columns])
    nest = F.when(F.col("_nest").isNull(), F.lit(None)).otherwise(F.element_at("_nest", F.col("memberIndex") + 1))
    return exploded.select("*", "member.*", nest.alias("decoded")).drop("member", "_nest")
