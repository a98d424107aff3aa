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
from kafka_meta.wire.composite import KArray, KStruct
from kafka_meta.wire.primitives import Bool, Fixed, KBytes, KString

# wire kind of a fixed-width number -> numpy's big-endian dtype
NUMPY_KINDS = {"int8": ">i1", "int16": ">i2", "int32": ">i4", "int64": ">i8", "uint16": ">u2", "uint32": ">u4",
               "float64": ">f8"}
# arrays are read one element index at a time across the rows: rows with longer arrays go row by row
LOCKSTEP_LIMIT = 256


@dataclass(frozen=True)
class FlatField:
    """One inline field of a layout read here."""

    name: str  # the row's field (Kafka's JSON name)
    kind: str  # "number", "bool", "sized" (a string or bytes), "numbers" (an array of numbers), "array"
    dtype: str  # number(s): numpy's big-endian dtype; sized: of the classic length ("" for a compact length)
    nullable: bool
    text: bool = False  # sized: a string (validated as UTF-8) rather than bytes
    count: str = ""  # arrays: the dtype of the classic count ("" for a compact count)
    element: FlatField | FlatLayout | None = None  # "array": its elements, strings or structs
    min_size: int = 1  # arrays: the smallest element, to refuse counts the bytes cannot hold (as the row decoder)


@dataclass(frozen=True)
class FlatLayout:
    """A struct at one version whose inline fields are all numbers, booleans, strings, bytes, arrays of those
    and arrays of such structs."""

    version: int
    fields: tuple[FlatField, ...]  # in wire order
    defaults: dict[str, Any]  # row fields the layout does not carry inline (absent or tagged), at their defaults
    flexible: bool  # ends with a tag buffer, taken here only when empty
    row_type: pa.StructType


def flat_layout(struct: KStruct, row_type: pa.StructType) -> FlatLayout | None:
    """The description of one layout, or None when a field is of a type not read here."""
    fields: list[FlatField] = []
    defaults: dict[str, Any] = {}
    names = {f.name for f in row_type}
    for m in struct.members:
        if m.role != "inline":
            defaults[m.json] = row_default(m.default, m)
            continue
        field = _flat_field(m.json, m.con, row_type.field(m.json).type if m.json in names else None)
        if field is None:
            return None
        fields.append(field)
    covered = {f.name for f in fields} | set(defaults) | {VERSION_FIELD, ERROR_FIELD, UNKNOWN_ALIAS}
    if not names <= covered:
        return None
    return FlatLayout(struct.version, tuple(fields), defaults, struct.flexible, row_type)


def _flat_field(name: str, con: Any, arrow_type: pa.DataType | None) -> FlatField | None:
    kind = type(con)
    if kind is Fixed and con.kind in NUMPY_KINDS:
        return FlatField(name, "number", NUMPY_KINDS[con.kind], False)
    if kind is Bool:
        return FlatField(name, "bool", "", False)
    if kind in (KString, KBytes):
        dtype = "" if con.compact else (">i2" if kind is KString else ">i4")
        return FlatField(name, "sized", dtype, con.nullable, kind is KString)
    if kind is not KArray or arrow_type is None or not pa.types.is_list(arrow_type):
        return None
    element, count, min_size = con.element, "" if con.compact else ">i4", max(con.element.min_size, 1)
    if type(element) is Fixed and element.kind in NUMPY_KINDS:
        return FlatField(name, "numbers", NUMPY_KINDS[element.kind], con.nullable, count=count, min_size=min_size)
    inner: FlatField | FlatLayout | None = None
    if type(element) in (KString, KBytes):
        inner = _flat_field("", element, arrow_type.value_type)
    elif type(element) is KStruct and pa.types.is_struct(arrow_type.value_type):
        inner = flat_layout(element, arrow_type.value_type)
    if inner is None:
        return None
    return FlatField(name, "array", "", con.nullable, count=count, element=inner, min_size=min_size)


def numbers(data: np.ndarray, pos: np.ndarray, dtype: str) -> np.ndarray:
    """The big-endian number of type ``dtype`` at each position (the positions are in bounds)."""
    size = np.dtype(dtype).itemsize
    if size == 1:
        return data[pos].view(dtype).astype(np.int64)
    raw = data[pos[:, None] + np.arange(size)]
    return raw.view(dtype).ravel().astype(np.dtype(dtype).newbyteorder("="))


def _element_index(counts: np.ndarray, picked: np.ndarray) -> np.ndarray:
    """Positions, among all elements (row after row), of the elements of the rows ``picked``."""
    starts = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=starts[1:])
    chosen = counts[picked]
    to = np.zeros(len(picked) + 1, np.int64)
    np.cumsum(chosen, out=to[1:])
    return np.repeat(starts[picked] - to[:-1], chosen) + np.arange(to[-1])


# Spans: where each field lies, per row. A number or bool: its position; a string, bytes or array of numbers:
# (position, length or count, null); an array: (count, null, its elements' spans, row after row).
Spans = Any


def _take(shape: FlatField | FlatLayout, spans: Spans, picked: np.ndarray) -> Spans:
    """The spans of the rows ``picked``, in that order."""
    if isinstance(shape, FlatLayout):
        return [_take(f, s, picked) for f, s in zip(shape.fields, spans, strict=True)]
    if shape.kind in ("number", "bool"):
        return spans[picked]
    if shape.kind != "array":
        return tuple(a[picked] for a in spans)
    counts, null, elements = spans
    assert shape.element is not None
    return counts[picked], null[picked], _take(shape.element, elements, _element_index(counts, picked))


def _concat(shape: FlatField | FlatLayout, pieces: list[Spans]) -> Spans:
    if isinstance(shape, FlatLayout):
        return [_concat(f, [p[i] for p in pieces]) for i, f in enumerate(shape.fields)]
    if shape.kind in ("number", "bool"):
        return np.concatenate(pieces)
    if shape.kind != "array":
        return tuple(np.concatenate(parts) for parts in zip(*pieces, strict=True))
    assert shape.element is not None
    return (np.concatenate([p[0] for p in pieces]), np.concatenate([p[1] for p in pieces]),
            _concat(shape.element, [p[2] for p in pieces]))


class VectorProgram:
    """The whole-column decoder of one format's layouts read here (see the module docstring)."""

    def __init__(self, fmt: SpecFormat, row_type: pa.StructType, version: int | None, strict: bool) -> None:
        self.fmt = fmt
        self.row_type = row_type
        self.version = version
        self.trailing = fmt.refuses_trailing(strict)
        self.strict = strict
        self.layouts: dict[int, FlatLayout] = {}
        for layout in fmt.versions:
            flat = flat_layout(fmt.construct(layout), row_type)
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
        return ok, word.astype(np.int64), starts + 2

    def _length(self, dtype: str, nullable: bool, data: np.ndarray, pos: np.ndarray, ends: np.ndarray,
                ok: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A length or count at each position: (positions after it, the value (0 when null), null)."""
        if dtype:  # classic: signed, -1 for null
            size = np.dtype(dtype).itemsize
            ok &= pos + size <= ends
            n = numbers(data, np.where(ok, pos, 0), dtype).astype(np.int64)
            pos = pos + size
        else:  # compact: an unsigned varint of the value + 1, taken here in its one-byte form
            ok &= pos < ends
            n = data[np.where(ok, pos, 0)].astype(np.int64)
            ok &= n < 0x80
            n -= 1
            pos = pos + 1
        null = n == -1
        ok &= (n >= 0) | (null & nullable)
        return pos, np.where(ok & ~null, n, 0), null

    def _scan(self, shape: FlatField | FlatLayout, data: np.ndarray, pos: np.ndarray, ends: np.ndarray,
              ok: np.ndarray) -> tuple[np.ndarray, Spans]:
        """Read ``shape`` at each position (rows whose ``ok`` turns False are not taken): the positions after
        it and its spans."""
        if isinstance(shape, FlatLayout):
            spans = []
            for f in shape.fields:
                pos, span = self._scan(f, data, pos, ends, ok)
                spans.append(span)
            if shape.flexible:  # an empty tag buffer: one zero byte
                ok &= pos < ends
                ok &= data[np.where(ok, pos, 0)] == 0
                pos = pos + 1
            return pos, spans
        if shape.kind == "number":
            ok &= pos + np.dtype(shape.dtype).itemsize <= ends
            return pos + np.dtype(shape.dtype).itemsize, pos
        if shape.kind == "bool":
            ok &= pos < ends
            if self.strict:
                ok &= data[np.where(ok, pos, 0)] <= 1
            return pos + 1, pos
        if shape.kind == "sized":
            pos, n, null = self._length(shape.dtype, shape.nullable, data, pos, ends, ok)
            ok &= pos + n <= ends
            n = np.where(ok, n, 0)
            return pos + n, (pos, n, null)
        pos, n, null = self._length(shape.count, shape.nullable, data, pos, ends, ok)
        ok &= n * shape.min_size <= ends - pos
        if shape.kind == "numbers":
            n = np.where(ok, n, 0)
            return pos + n * np.dtype(shape.dtype).itemsize, (pos, n, null)
        ok &= n <= LOCKSTEP_LIMIT
        n = np.where(ok, n, 0)
        assert shape.element is not None
        pos = pos.copy()
        start = np.zeros(len(n) + 1, np.int64)
        np.cumsum(n, out=start[1:])
        pieces, where = [], []
        for k in range(int(n.max()) if len(n) else 0):  # element k of every row that has one
            active = np.flatnonzero(n > k)
            fine = ok[active]
            pos[active], span = self._scan(shape.element, data, pos[active], ends[active], fine)
            ok[active] &= fine
            pieces.append(span)
            where.append(start[active] + k)
        if not pieces:
            empty = np.zeros(0, np.int64)
            return pos, (n, null, self._scan(shape.element, data, empty, empty, np.zeros(0, bool))[1])
        order = np.empty(int(start[-1]), np.int64)
        order[np.concatenate(where)] = np.arange(len(order))
        return pos, (n, null, _take(shape.element, _concat(shape.element, pieces), order))

    def _build(self, shape: FlatField | FlatLayout, data: np.ndarray, spans: Spans, count: int,
               arrow_type: pa.DataType, extra: dict[str, pa.Array] | None = None) -> pa.Array:
        """The Arrow array of ``count`` values of ``shape`` from their spans."""
        if isinstance(shape, FlatLayout):
            built = {f.name: (f, s) for f, s in zip(shape.fields, spans, strict=True)}
            arrays = []
            for field in arrow_type:
                name = field.name
                if name in built:
                    array = self._build(built[name][0], data, built[name][1], count, field.type)
                elif extra and name in extra:
                    array = extra[name]
                elif name == UNKNOWN_ALIAS:
                    array = pa.ListArray.from_arrays(pa.array(np.zeros(count + 1, np.int32)),
                                                     pa.array([], field.type.value_type))
                else:
                    default = pa.scalar(shape.defaults[name], field.type)
                    array = pa.repeat(default, count) if count else pa.array([], field.type)
                arrays.append(array if array.type == field.type else array.cast(field.type))
            if not arrays:
                return pa.array([{}] * count, arrow_type)
            return pa.StructArray.from_arrays(arrays, fields=list(arrow_type))
        if shape.kind == "number":
            return pa.array(numbers(data, spans, shape.dtype))
        if shape.kind == "bool":
            return pa.array(data[spans] != 0)
        if shape.kind == "sized":
            return _sized(data, *spans, shape.text)
        n, null = spans[:2] if shape.kind == "array" else spans[1:]
        offsets = np.zeros(count + 1, np.int64)
        np.cumsum(n, out=offsets[1:])
        if shape.kind == "numbers":
            size = np.dtype(shape.dtype).itemsize
            raw = _gather(data, spans[0], n * size)
            values = pa.array(raw.view(shape.dtype).astype(np.dtype(shape.dtype).newbyteorder("=")))
        else:
            assert shape.element is not None
            values = self._build(shape.element, data, spans[2], int(offsets[-1]), arrow_type.value_type)
        if values.type != arrow_type.value_type:
            values = values.cast(arrow_type.value_type)
        mask = pa.array(null) if null.any() else None
        return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values, type=arrow_type, mask=mask)

    def decode(self, blobs: pa.Array, rest: Callable[[list[bytes | None]], pa.Array]) -> pa.Array:
        """Every row of ``blobs``: the rows read here, the others by ``rest`` (the per-row batch decoder,
        given the rows' bytes), in input order."""
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
            fine = np.ones(len(rows), bool)
            after, spans = self._scan(layout, data, pos[rows], ends[rows], fine)
            if self.trailing:
                fine &= after == ends[rows]
            taken = np.flatnonzero(fine)
            if not len(taken):
                continue
            if len(taken) < len(rows):
                spans = _take(layout, spans, taken)
            extra = {VERSION_FIELD: pa.array(wire[rows[taken]]), ERROR_FIELD: pa.nulls(len(taken), pa.string())}
            pieces.append((rows[taken], self._build(layout, data, spans, len(taken), self.row_type, extra)))
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


def _views(data: np.ndarray, start: np.ndarray, length: np.ndarray, null: np.ndarray | None = None) -> pa.Array:
    """``data[start:start + length]`` of every row as an Arrow binary view array over ``data`` itself: Arrow's
    cast to plain binary then copies the bytes in C++, with no index per byte built here."""
    count = len(start)
    views = np.zeros((count, 4), np.int32)  # per value: length, then 12 inline bytes or prefix, buffer, offset
    views[:, 0] = length
    raw = views.view(np.uint8)
    outside = length > 12
    if outside.any():
        at = start[outside]
        views[outside, 1] = data[at[:, None] + np.arange(4)].view("<i4").ravel()
        views[outside, 3] = at
    inline = np.flatnonzero(~outside & (length > 0))
    if len(inline):
        index = np.minimum(start[inline][:, None] + np.arange(12), len(data) - 1)
        raw[inline, 4:] = data[index] * (np.arange(12) < length[inline][:, None])
    validity = pa.py_buffer(np.packbits(~null, bitorder="little")) if null is not None and null.any() else None
    return pa.Array.from_buffers(pa.binary_view(), count, [validity, pa.py_buffer(views), pa.py_buffer(data)])


def _gather(data: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The bytes ``data[start:start + length]`` of every row, one after the other."""
    joined = _views(data, start, length).cast(pa.binary())
    offsets = np.frombuffer(joined.buffers()[1], np.int32)[joined.offset:joined.offset + len(joined) + 1]
    return np.frombuffer(joined.buffers()[2], np.uint8)[offsets[0]:offsets[-1]]


def _sized(data: np.ndarray, start: np.ndarray, length: np.ndarray, null: np.ndarray, text: bool) -> pa.Array:
    """Strings or bytes copied by Arrow from the blobs' buffer; strings validated as UTF-8 by Arrow."""
    array = _views(data, start, length, null).cast(pa.binary())
    if not text:
        return array
    try:
        return array.cast(pa.string())
    except pa.ArrowInvalid as e:
        raise InvalidUtf8(str(e)) from None
