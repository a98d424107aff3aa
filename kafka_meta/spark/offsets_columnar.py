"""``decode_offsets``' fast path: records of one record type decoded a whole group at a time into columns.

A batch of ``__consumer_offsets`` records is split by record type (the key's first two bytes, read for all
rows at once). Each record type whose value has a single layout goes through the batch decoders of its key
and value (:mod:`kafka_meta.spark.columnar`, a column at a time where the layout allows it: the mechanism
``from_kafka_meta`` uses), and its header columns (``groupId``, ``valueVersion``, ``readForward``...) are
derived from those columns by Arrow, not per row; GroupMetadata's consumer members are decoded the same way.
Everything else keeps the row path it had: older or shared layouts (record types 0, 11, 15), the nest of
ConsumerGroupMemberMetadata and of groups whose assignor writes user data, unknown record types, control
records, and every record that does not decode, so its ``_error`` is the full reader's own words.

The groups' columns are then put back in input order: a column filled by several groups (the header) with
one ``take``, a record type's own column spread to its rows (:func:`spread`). Rows in = rows out, in the
same order, with exactly the values the row path gives (``tests/test_offsets_columnar.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_meta.api import get_format
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.registry import REGISTRY
from kafka_meta.offsets import RecordType, catalog
from kafka_meta.offsets.nest import ASSIGNOR_USER_DATA, CONSUMER
from kafka_meta.offsets.records import GROUP_JSON_NAMES
from kafka_meta.spark.columnar import BatchProgram, batch_program
from kafka_meta.spark.columnar_vector import binary_buffers, numbers
from kafka_meta.spark.columns import InvalidUtf8, null_array
from kafka_meta.spark.schema import ERROR_FIELD, VERSION_FIELD
from kafka_meta.spec.naming import json_name

NESTED = frozenset({2, 5})  # record types whose rows carry the decoded nest
GROUP_METADATA = 2  # its nest goes columnar too, for consumer groups whose assignor writes no user data we decode

# one slow row: (key, value, control) -> the row's dict (or raises KafkaMetaError, handled by the caller)
SlowRow = Callable[[bytes | None, bytes | None, bool], dict[str, Any]]


@dataclass(frozen=True)
class TypePlan:
    """How one record type goes columnar: its key and value batch decoders and its output column."""

    rt: RecordType
    column: str  # e.g. "offsetCommit"
    key: BatchProgram
    value: BatchProgram
    label: str  # the value's variant label, what ``valueVariant`` says
    newest: int  # the newest value version known: beyond it, ``readForward``
    group_field: str | None  # the key field holding the group id


def spread(array: pa.Array, rows: np.ndarray, total: int) -> pa.Array:
    """``array``'s entries at the positions ``rows`` (ascending) of ``total`` entries, null elsewhere: what a
    ``take`` with null indices gives, but strings and list elements stay in their buffers (the offsets
    around them are spread), and only fixed-width values are copied."""
    arrow_type = array.type
    valid = np.zeros(total, bool)
    valid[rows] = array.is_valid().to_numpy(zero_copy_only=False)
    validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    nulls = total - int(np.count_nonzero(valid))
    if pa.types.is_struct(arrow_type):
        children = [spread(array.field(i), rows, total) for i in range(arrow_type.num_fields)]
        return pa.Array.from_buffers(arrow_type, total, [validity], null_count=nulls, children=children)
    buffers = array.buffers()
    if pa.types.is_list(arrow_type) or pa.types.is_string(arrow_type) or pa.types.is_binary(arrow_type):
        offsets = np.frombuffer(buffers[1], np.int32)[array.offset:array.offset + len(array) + 1]
        lengths = np.zeros(total, np.int32)
        lengths[rows] = np.diff(offsets)
        spread_offsets = np.empty(total + 1, np.int32)
        spread_offsets[0] = offsets[0]
        np.cumsum(lengths, out=spread_offsets[1:])
        spread_offsets[1:] += offsets[0]
        if pa.types.is_list(arrow_type):
            return pa.Array.from_buffers(arrow_type, total, [validity, pa.py_buffer(spread_offsets)],
                                         null_count=nulls, children=[array.values])
        return pa.Array.from_buffers(arrow_type, total, [validity, pa.py_buffer(spread_offsets), buffers[2]],
                                     null_count=nulls)
    if pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type):
        dtype = np.dtype(arrow_type.to_pandas_dtype())
        values = np.zeros(total, dtype)
        values[rows] = np.frombuffer(buffers[1], dtype)[array.offset:array.offset + len(array)]
        return pa.Array.from_buffers(arrow_type, total, [validity, pa.py_buffer(values)], null_count=nulls)
    if pa.types.is_boolean(arrow_type):
        values = np.zeros(total, bool)
        values[rows] = pc.fill_null(array, False).to_numpy(zero_copy_only=False)
        bits = pa.py_buffer(np.packbits(values, bitorder="little"))
        return pa.Array.from_buffers(arrow_type, total, [validity, bits], null_count=nulls)
    lookup = np.full(total, -1, np.int64)
    lookup[rows] = np.arange(len(rows))
    return array.take(pa.array(lookup, mask=lookup < 0))


def columnar_plan(rt: RecordType, strict: bool) -> TypePlan | None:
    """A record type's plan, or None when it must stay on the row path (see the module docstring)."""
    if (rt.number in NESTED and rt.number != GROUP_METADATA) or len(rt.values.variants) != 1:
        return None
    variant = rt.values.variants[0]
    fmt = variant.format
    if not isinstance(fmt, SpecFormat) or not isinstance(rt.key, SpecFormat):
        return None
    key_fields = {m.json for m in rt.key.construct(0).members}
    group = next((name for name in GROUP_JSON_NAMES if name in key_fields), None)
    return TypePlan(rt, json_name(rt.name), batch_program(rt.key, False, None, strict),
                    batch_program(fmt, False, None, strict), variant.label, fmt.newest, group)


class ColumnarOffsets:
    """The columnar decoder of ``decode_offsets`` rows, one per worker process and settings."""

    def __init__(self, strict: bool, columns: pa.StructType) -> None:
        self.strict = strict
        self.columns = columns
        self.plans: dict[int, TypePlan | None] = {}
        # members' consumer-protocol bytes are read leniently in every mode, as the record reader's nest does
        self.subscription = batch_program(get_format("ConsumerProtocolSubscription"), False, None, False)
        self.assignment = batch_program(get_format("ConsumerProtocolAssignment"), False, None, False)
        for rt in catalog().values():  # a type without its column here (decode_offsets' record_types) goes by row
            self.plans[rt.number] = columnar_plan(rt, strict) if json_name(rt.name) in columns.names else None

    def decode(self, keys: pa.Array, values: pa.Array, controls: np.ndarray, slow_row: SlowRow,
               on_error: Callable[[Exception], dict[str, Any]]) -> pa.Array:
        """All rows of a batch, in order. ``controls`` marks control records; ``slow_row`` decodes a row the
        row path's way; ``on_error`` turns its KafkaMetaError into an error row (or re-raises it, in
        FAILFAST mode)."""
        keys, values = (a.cast(pa.binary()) if pa.types.is_null(a.type) else a for a in (keys, values))
        data, starts, ends, valid = binary_buffers(keys)
        keyed = valid & (ends - starts >= 2) & ~controls
        record_type = np.where(keyed, numbers(data, np.where(keyed, starts, 0), ">i2").astype(np.int64), 0)
        parts: list[dict[str, pa.Array]] = []  # per group: the columns it fills (the others are null there)
        order: list[np.ndarray] = []
        slow = [np.flatnonzero(~keyed)]
        present = np.bincount(record_type[keyed] + 0x8000, minlength=0x10000)  # record types are int16
        for number in (np.flatnonzero(present) - 0x8000).tolist():
            rows = np.flatnonzero(keyed & (record_type == number))
            plan = self.plans.get(number)
            if plan is None:
                slow.append(rows)
                continue
            index = pa.array(rows)
            part, failed = self._group(plan, keys.take(index), values.take(index))
            if part is None:
                slow.append(rows)
                continue
            if len(failed):
                slow.append(rows[failed])
                rows = np.delete(rows, failed)
            parts.append(part)
            order.append(rows)
        slow_rows = np.sort(np.concatenate(slow))
        if len(slow_rows):
            index = pa.array(slow_rows)
            flags = controls[slow_rows].tolist()
            dicts = []
            for key, value, control in zip(keys.take(index).to_pylist(), values.take(index).to_pylist(), flags,
                                           strict=True):
                try:
                    dicts.append(slow_row(key, value, control))
                except Exception as e:  # noqa: BLE001 - on_error re-raises what is not a KafkaMetaError
                    dicts.append(on_error(e))
            rows_array = pa.array(dicts, type=self.columns)
            parts.append({f.name: rows_array.field(f.name) for f in self.columns})
            order.append(slow_rows)
        return self._assemble(parts, np.concatenate(order) if order else np.zeros(0, np.int64))

    def _assemble(self, parts: list[dict[str, pa.Array]], order: np.ndarray) -> pa.StructArray:
        """The groups' columns as one struct array in input order: per column, only the groups that fill it
        are concatenated and taken from (a record type's column comes from its one group)."""
        sizes = [len(next(iter(part.values()))) for part in parts]
        starts = np.cumsum([0, *sizes])
        total = int(starts[-1])
        where = np.empty(total, np.int64)  # input row -> its position in the groups' concatenation
        where[order] = np.arange(total)
        in_order = bool((where == np.arange(total)).all())
        children = []
        for f in self.columns:
            fillers = [k for k, part in enumerate(parts) if f.name in part]
            if not fillers:
                children.append(null_array(f.type, total))
                continue
            pieces = [parts[k][f.name] for k in fillers]
            joined = pieces[0] if len(pieces) == 1 else pa.concat_arrays(pieces)
            if len(fillers) == len(parts):
                children.append(joined if in_order else joined.take(pa.array(where)))
                continue
            if len(fillers) == 1:  # a record type's own column: its rows are in input order already
                children.append(spread(joined, order[starts[fillers[0]]:starts[fillers[0] + 1]], total))
                continue
            lookup = np.full(total, -1, np.int64)
            position = 0
            for k in fillers:
                lookup[starts[k]:starts[k + 1]] = np.arange(position, position + sizes[k])
                position += sizes[k]
            indices = lookup[where]
            children.append(joined.take(pa.array(indices, mask=indices < 0)))
        return pa.StructArray.from_arrays(children, fields=list(self.columns))

    def _group(self, plan: TypePlan, keys: pa.Array,
               values: pa.Array) -> tuple[dict[str, pa.Array] | None, np.ndarray]:
        """One record type's rows as output rows, and the positions (in the group) of rows that failed; None
        when a string column held bytes that are not UTF-8 (the whole group then goes row by row)."""
        try:
            key_out = plan.key.decode_array(keys)
            value_out = plan.value.decode_array(values)
        except InvalidUtf8:
            return None, np.zeros(0, np.int64)
        failed_mask = pc.or_(pc.is_valid(key_out.field(ERROR_FIELD)), pc.is_valid(value_out.field(ERROR_FIELD)))
        bad = failed_mask.to_numpy(zero_copy_only=False)
        if plan.rt.number == GROUP_METADATA:
            bad = bad | np.array(self._nest_on_rows(value_out), bool)
        kept = np.arange(len(keys))
        while True:
            if bad.any():
                keep = pa.array(~bad)
                key_out, value_out = key_out.filter(keep), value_out.filter(keep)
                kept = kept[~bad]
            members = None
            if plan.rt.number == GROUP_METADATA:
                try:
                    members, member_bad = self._members(value_out)
                except InvalidUtf8:
                    return None, np.zeros(0, np.int64)
                bad = np.array(member_bad, bool)
                if bad.any():
                    continue
            break
        failed = np.ones(len(keys), bool)
        failed[kept] = False
        return self._rows(plan, key_out, value_out, members), np.flatnonzero(failed)

    @staticmethod
    def _nest_on_rows(value_out: pa.StructArray) -> list[bool]:
        """Consumer groups whose assignor writes user data (sticky, Streams...): their nest goes row by row."""
        return [kind == CONSUMER and protocol in ASSIGNOR_USER_DATA for kind, protocol in
                zip(value_out.field("protocolType").to_pylist(), value_out.field("protocol").to_pylist(), strict=True)]

    def _members(self, value_out: pa.StructArray) -> tuple[pa.Array, list[bool]]:
        """GroupMetadata's ``members`` column: each consumer group member's subscription and assignment
        decoded a batch at a time; the rows (in ``value_out``) whose members did not decode, to go row by row."""
        member_type = self.columns.field("members").type
        kinds = value_out.field("protocolType").to_pylist()
        raw = value_out.field("members")
        offsets = raw.offsets.to_pylist()
        valid = raw.is_valid().to_pylist()
        picked: list[int] = []
        lengths: list[int] = []
        nulls: list[bool] = []
        owner: list[int] = []
        for r, kind in enumerate(kinds):
            consumer = kind == CONSUMER and valid[r]
            nulls.append(not consumer)
            count = offsets[r + 1] - offsets[r] if consumer else 0
            lengths.append(count)
            picked.extend(range(offsets[r], offsets[r] + count))
            owner.extend([r] * count)
        flat = raw.values.take(pa.array(picked, pa.int64()))
        decoded = []
        bad = [False] * len(kinds)
        for field, program in (("subscription", self.subscription), ("assignment", self.assignment)):
            blobs = flat.field(field)  # empty bytes: no metadata, as a null
            out = program.decode_array(pc.if_else(pc.equal(pc.binary_length(blobs), 0),
                                                  pa.scalar(None, pa.binary()), blobs))
            for m in pc.indices_nonzero(pc.is_valid(out.field(ERROR_FIELD))).to_pylist():
                bad[owner[m]] = True
            wanted = member_type.value_type.field(field).type
            decoded.append(pa.StructArray.from_arrays([out.field(f.name) for f in wanted], fields=list(wanted),
                                                      mask=out.is_null()))
        n = len(picked)
        known = {"memberId": flat.field("memberId"), "subscription": decoded[0], "assignment": decoded[1],
                 "errors": pa.ListArray.from_arrays(pa.array([0] * (n + 1), pa.int32()), pa.array([], pa.string()))}
        element = member_type.value_type
        members = pa.StructArray.from_arrays([known[f.name] if f.name in known else null_array(f.type, n)
                                              for f in element], fields=list(element))
        list_offsets = pa.array(list(accumulate(lengths, initial=0)), pa.int32())
        return pa.ListArray.from_arrays(list_offsets, members, type=member_type,
                                        mask=pa.array(nulls, pa.bool_())), bad

    def _rows(self, plan: TypePlan, key_out: pa.StructArray, value_out: pa.StructArray,
              members: pa.Array | None = None) -> dict[str, pa.Array]:
        n = len(key_out)
        column_type = self.columns.field(plan.column).type
        key_type, value_type = column_type.field("key").type, column_type.field("value").type
        key = pa.StructArray.from_arrays([key_out.field(f.name) for f in key_type], fields=list(key_type))
        tombstone = value_out.is_null()
        value = pa.StructArray.from_arrays([value_out.field(f.name) for f in value_type], fields=list(value_type),
                                           mask=tombstone if tombstone.true_count else None)
        version = value_out.field(VERSION_FIELD)
        no_value = pa.nulls(n, pa.string())
        known = {
            "recordType": pa.repeat(pa.scalar(plan.rt.number, pa.int32()), n),
            "recordName": pa.repeat(pa.scalar(plan.rt.name, pa.string()), n),
            "groupId": key_out.field(plan.group_field) if plan.group_field else pa.nulls(n, pa.string()),
            "tombstone": tombstone,
            "valueVersion": version,
            "valueVariant": pc.if_else(tombstone, no_value, pa.scalar(plan.label, pa.string())),
            "readForward": pc.fill_null(pc.greater(version, plan.newest), False),
            "retired": pa.repeat(pa.scalar(plan.rt.retired, pa.bool_()), n),
            "unknown": pa.repeat(pa.scalar(False, pa.bool_()), n),
            ERROR_FIELD: pa.nulls(n, pa.string()),
            plan.column: pa.StructArray.from_arrays([key, value], fields=list(column_type)),
        }
        if members is not None:
            known["members"] = members
        return {f.name: known[f.name] if known[f.name].type == f.type else known[f.name].cast(f.type)
                for f in self.columns if f.name in known}


_DECODERS: dict[tuple[bool, int, int], tuple[pa.StructType, ColumnarOffsets]] = {}


def columnar_offsets(strict: bool, columns: pa.StructType) -> ColumnarOffsets:
    """One per worker process and registry state (its batch decoders are compiled once). Kept by the
    identity of ``columns`` (held here): hashing a type of a few hundred fields would cost each batch more
    than some of its decoding."""
    key = (strict, id(columns), REGISTRY.generation)
    if key not in _DECODERS:
        _DECODERS[key] = (columns, ColumnarOffsets(strict, columns))
    return _DECODERS[key][1]
