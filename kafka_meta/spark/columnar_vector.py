"""Whole-column decoding of flat layouts: a field read for every row of a batch at once, with numpy.

Generated per-row code still costs a Python statement or two per field and row. Many common layouts
(``__consumer_offsets`` keys, OffsetCommit values, most record values of the newer coordinators) are flat:
fixed-width numbers, booleans, strings and bytes, no arrays or structs. There the position of each field in
a row depends only on the lengths read before it, so one field can be read in all rows together: a gather
of the length (or number) at every row's position, a vector add to move every position past it. Strings
and bytes are gathered into Arrow's offsets and data buffers directly, with no Python object per value.

This path only takes the rows it can vouch for: rows whose framing is a known version with a flat layout,
whose lengths fit, whose tag buffer (flexible versions) is empty, and, where the format refuses trailing
bytes, that end exactly where their body does. Every other row (nulls, errors, tagged fields, versions read
forward...) goes to the per-row batch decoder, which gives it exactly the row it always gave; the two are
merged in input order. The layouts are read from the same construct trees as every other decoder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import Int16Prefixed, RecordTypePrefixed, Unframed
from kafka_meta.spark.columns import InvalidUtf8
from kafka_meta.spark.rows import UNKNOWN_ALIAS, row_default
from kafka_meta.spark.schema import ERROR_FIELD, VERSION_FIELD
from kafka_meta.wire.composite import KStruct
from kafka_meta.wire.primitives import Bool, Fixed, KBytes, KString

# wire kind of a fixed-width number -> numpy's big-endian dtype
NUMPY_KINDS = {"int8": ">i1", "int16": ">i2", "int32": ">i4", "int64": ">i8", "uint16": ">u2", "uint32": ">u4",
               "float64": ">f8"}


@dataclass(frozen=True)
class FlatField:
    """One inline field of a flat layout."""

    name: str  # the row's field (Kafka's JSON name)
    kind: str  # "number", "bool" or "sized" (a string or bytes)
    dtype: str  # numbers: numpy's big-endian dtype; sized: of the classic length ("" for a compact length)
    nullable: bool
    text: bool  # sized: a string (validated as UTF-8) rather than bytes


@dataclass(frozen=True)
class FlatLayout:
    """A layout version whose inline fields are all numbers, booleans, strings and bytes."""

    version: int
    fields: tuple[FlatField, ...]  # in wire order
    defaults: dict[str, Any]  # row fields the layout does not carry inline (absent or tagged), at their defaults
    flexible: bool  # ends with a tag buffer, taken here only when empty


def flat_layout(struct: KStruct, row_fields: set[str]) -> FlatLayout | None:
    """The flat description of one layout, or None when a field is an array, a struct or another type."""
    fields: list[FlatField] = []
    defaults: dict[str, Any] = {}
    for m in struct.members:
        if m.struct is not None:
            return None
        if m.role != "inline":
            defaults[m.json] = row_default(m.default, m)
            continue
        con = m.con
        if type(con) is Fixed and con.kind in NUMPY_KINDS:
            fields.append(FlatField(m.json, "number", NUMPY_KINDS[con.kind], False, False))
        elif type(con) is Bool:
            fields.append(FlatField(m.json, "bool", "", False, False))
        elif type(con) in (KString, KBytes):
            dtype = "" if con.compact else (">i2" if type(con) is KString else ">i4")
            fields.append(FlatField(m.json, "sized", dtype, con.nullable, type(con) is KString))
        else:
            return None
    covered = {f.name for f in fields} | set(defaults) | {VERSION_FIELD, ERROR_FIELD, UNKNOWN_ALIAS}
    if not row_fields <= covered:
        return None
    return FlatLayout(struct.version, tuple(fields), defaults, struct.flexible)


def numbers(data: np.ndarray, pos: np.ndarray, dtype: str) -> np.ndarray:
    """The big-endian number of type ``dtype`` at each position (the positions are in bounds)."""
    size = np.dtype(dtype).itemsize
    if size == 1:
        return data[pos].view(dtype).astype(np.int64)
    raw = data[pos[:, None] + np.arange(size)]
    return raw.view(dtype).ravel().astype(np.dtype(dtype).newbyteorder("="))


@dataclass
class Scan:
    """Where each field of a layout lies in each row, and which rows this path takes."""

    ok: np.ndarray  # bool per row
    spans: list[tuple[np.ndarray, np.ndarray | None, np.ndarray | None]]  # per field: start, length, null


class VectorProgram:
    """The whole-column decoder of one format's flat layouts (see the module docstring)."""

    def __init__(self, fmt: SpecFormat, row_type: pa.StructType, version: int | None, strict: bool) -> None:
        self.fmt = fmt
        self.row_type = row_type
        self.version = version
        self.trailing = fmt.refuses_trailing(strict)
        self.strict = strict
        names = {f.name for f in row_type}
        self.layouts: dict[int, FlatLayout] = {}
        for layout in fmt.versions:
            flat = flat_layout(fmt.construct(layout), names)
            if flat is not None:
                self.layouts[layout] = flat

    @staticmethod
    def applies(fmt: SpecFormat, version: int | None) -> bool:
        """Whether the format's framing is one read here (a plain int16 version, a record type or none)."""
        framing = type(fmt.framing)
        if framing is Unframed:
            return version is not None or fmt.versions.low == fmt.versions.high
        return framing in (Int16Prefixed, RecordTypePrefixed)

    # ------------------------------------------------------------------ reading
    def _header(self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per row: whether the framing is one taken here, the wire version and where the body starts."""
        framing, versions = self.fmt.framing, self.fmt.versions
        if type(framing) is Unframed:
            wanted = self.version if self.version is not None else versions.low
            ok = valid & (versions.low <= wanted <= versions.high)
            return ok, np.full(len(starts), wanted, np.int64), starts
        ok = valid & (ends - starts >= 2)
        word = numbers(data, np.where(ok, starts, 0), ">u2")
        if type(framing) is RecordTypePrefixed:
            ok &= word == (framing.record_type & 0xFFFF)
            return ok, np.full(len(starts), versions.low, np.int64), starts + 2
        ok &= (word >= versions.low) & (word <= versions.high)
        if self.version is not None:
            ok &= word == self.version
        return ok, word, starts + 2

    def _scan(self, layout: FlatLayout, data: np.ndarray, pos: np.ndarray, ends: np.ndarray) -> Scan:
        ok = np.ones(len(pos), bool)
        spans: list[tuple[np.ndarray, np.ndarray | None, np.ndarray | None]] = []
        for f in layout.fields:
            if f.kind == "number":
                size = np.dtype(f.dtype).itemsize
                ok &= pos + size <= ends
                spans.append((pos, None, None))
                pos = pos + size
                continue
            if f.kind == "bool":
                ok &= pos < ends
                if self.strict:
                    ok &= data[np.where(ok, pos, 0)] <= 1
                spans.append((pos, None, None))
                pos = pos + 1
                continue
            if f.dtype:  # classic: a signed length, -1 for null
                size = np.dtype(f.dtype).itemsize
                ok &= pos + size <= ends
                n = numbers(data, np.where(ok, pos, 0), f.dtype).astype(np.int64)
                pos = pos + size
            else:  # compact: an unsigned varint of length + 1, taken here in its one-byte form
                ok &= pos < ends
                n = data[np.where(ok, pos, 0)].astype(np.int64)
                ok &= n < 0x80
                n -= 1
                pos = pos + 1
            null = n == -1
            ok &= (n >= 0) | (null & f.nullable)
            length = np.where(ok & ~null, n, 0)
            ok &= pos + length <= ends
            spans.append((pos, length, null))
            pos = pos + length
        if layout.flexible:  # an empty tag buffer: one zero byte
            ok &= pos < ends
            ok &= data[np.where(ok, pos, 0)] == 0
            pos = pos + 1
        if self.trailing:
            ok &= pos == ends
        return Scan(ok, spans)

    def _build(self, layout: FlatLayout, data: np.ndarray, scan: Scan, rows: np.ndarray,
               wire: np.ndarray) -> pa.StructArray:
        """The rows ``rows`` (of the scan, all taken) as the format's row type."""
        count = len(rows)
        built: dict[str, pa.Array] = {}
        for f, (start, length, null) in zip(layout.fields, scan.spans, strict=True):
            at = start[rows]
            if f.kind == "number":
                built[f.name] = pa.array(numbers(data, at, f.dtype))
            elif f.kind == "bool":
                built[f.name] = pa.array(data[at] != 0)
            else:
                assert length is not None and null is not None
                built[f.name] = _sized(data, at, length[rows], null[rows], f.text)
        arrays = []
        for field in self.row_type:
            name = field.name
            if name in built:
                array = built[name]
            elif name == VERSION_FIELD:
                array = pa.array(wire[rows])
            elif name == ERROR_FIELD:
                array = pa.nulls(count, field.type)
            elif name == UNKNOWN_ALIAS:
                array = pa.ListArray.from_arrays(pa.array(np.zeros(count + 1, np.int32)),
                                                 pa.array([], field.type.value_type))
            else:
                array = pa.repeat(pa.scalar(layout.defaults[name], field.type), count)
            arrays.append(array if array.type == field.type else array.cast(field.type))
        return pa.StructArray.from_arrays(arrays, fields=list(self.row_type))

    def decode(self, blobs: pa.Array, rest: Callable[[list[bytes | None]], pa.Array]) -> pa.Array:
        """Every row of ``blobs``: the flat rows read here, the others by ``rest`` (the per-row batch
        decoder, given the rows' bytes), in input order."""
        total = len(blobs)
        data, starts, ends, valid = binary_buffers(blobs)
        if total == 0 or not self.layouts or len(data) > np.iinfo(np.int32).max:  # Arrow's binary: 32-bit offsets
            return rest(blobs.to_pylist())
        ok, wire, pos = self._header(data, starts, ends, valid)
        pieces: list[tuple[np.ndarray, pa.Array]] = []
        for version, layout in self.layouts.items():
            rows = np.flatnonzero(ok & (wire == version))
            if not len(rows):
                continue
            scan = self._scan(layout, data, pos[rows], ends[rows])
            taken = np.flatnonzero(scan.ok)
            if len(taken):
                pieces.append((rows[taken], self._build(layout, data, scan, taken, wire[rows])))
        done = np.zeros(total, bool)
        for rows, _ in pieces:
            done[rows] = True
        left = np.flatnonzero(~done)
        if len(left):
            pieces.append((left, rest(blobs.take(pa.array(left)).to_pylist())))
        if len(pieces) == 1:
            return pieces[0][1]
        order = np.concatenate([rows for rows, _ in pieces])
        where = np.empty(total, np.int64)
        where[order] = np.arange(total)
        return pa.concat_arrays([array for _, array in pieces]).take(pa.array(where))


def binary_buffers(blobs: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A binary array's bytes (padded so that a read at position 0 stays in bounds), each row's start and
    end in them, and which rows are not null."""
    large = pa.types.is_large_binary(blobs.type)
    _, offsets_buffer, data_buffer = blobs.buffers()
    offsets = np.frombuffer(offsets_buffer, np.int64 if large else np.int32)[blobs.offset:blobs.offset + len(blobs) + 1]
    data = np.frombuffer(data_buffer, np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    if len(data) < 8:
        data = np.concatenate([data, np.zeros(8, np.uint8)])
    valid = blobs.is_valid().to_numpy(zero_copy_only=False)
    return data, offsets[:-1].astype(np.int64), offsets[1:].astype(np.int64), valid


def _sized(data: np.ndarray, start: np.ndarray, length: np.ndarray, null: np.ndarray, text: bool) -> pa.Array:
    """Strings or bytes gathered straight into Arrow's buffers; strings validated as UTF-8 by Arrow."""
    offsets = np.zeros(len(start) + 1, np.int64)
    np.cumsum(length, out=offsets[1:])
    index = np.repeat(start - offsets[:-1], length) + np.arange(offsets[-1])
    values = data[index]
    validity = None
    if null.any():
        validity = pa.py_buffer(np.packbits(~null, bitorder="little"))
    array = pa.Array.from_buffers(pa.binary(), len(start), [validity, pa.py_buffer(offsets.astype(np.int32)),
                                                             pa.py_buffer(values)])
    if not text:
        return array
    try:
        return array.cast(pa.string())
    except pa.ArrowInvalid as e:
        raise InvalidUtf8(str(e)) from None
