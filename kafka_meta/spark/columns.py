"""Column builders: Python lists that become Arrow arrays in one call per column, not one per row.

The tree mirrors an Arrow type: leaves (values), :class:`ListColumn` (lengths + child),
:class:`StructColumn` (children). Generated decoders append to the lists directly; the rare operations
(null entries, defaults, undoing a row that failed half-way) are methods here. Null entries of lists and
structs are kept as a sparse list of indices: in this data they are rare.

Two leaves skip Python objects altogether: :class:`Utf8Leaf` keeps strings as their UTF-8 bytes (Arrow
validates them in one cast per column) and :class:`FixedLeaf` keeps arrays of numbers as the raw
big-endian bytes from the wire (byte-swapped per column).
"""

from __future__ import annotations

import array
import struct
import sys
from functools import lru_cache
from itertools import accumulate
from typing import Any

import pyarrow as pa

from kafka_meta.wire.errors import Fault

UTF8 = "utf8"
# wire kind -> (array typecode, Arrow type of the raw values, struct format for single values)
FIXED_KINDS = {
    "int8": ("b", pa.int8(), ">b"), "int16": ("h", pa.int16(), ">h"), "int32": ("i", pa.int32(), ">i"),
    "int64": ("q", pa.int64(), ">q"), "uint16": ("H", pa.uint16(), ">H"), "uint32": ("I", pa.uint32(), ">I"),
    "float64": ("d", pa.float64(), ">d"),
}


def arrow_text(value: Any) -> Any:
    """Strings Arrow can hold: Java's modified UTF-8 may carry unpaired surrogates, which become U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {k: arrow_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [arrow_text(v) for v in value]
    return value


@lru_cache(maxsize=64)  # a batch size or two of every column type: a few MB
def null_array(arrow_type: pa.DataType, n: int) -> pa.Array:
    """``n`` nulls of ``arrow_type`` carrying as few bytes as Arrow allows. ``pa.nulls`` gives every nested
    level full-length null children; Spark's Python workers send every buffer over a socket to the JVM, so a
    batch of ``__consumer_offsets`` rows (one struct column per record type, most of them null) would weigh
    twice what it holds. Under the null slots: zeros, empty strings and empty lists, without validity bitmaps.
    Kept for the next batch (of the same size, most often): Arrow arrays do not change."""
    if not (pa.types.is_struct(arrow_type) or pa.types.is_list(arrow_type)):
        return pa.nulls(n, arrow_type)
    return _filler(arrow_type, n, pa.py_buffer(bytes((n + 7) // 8)), n)


def _filler(arrow_type: pa.DataType, n: int, validity: pa.Buffer | None = None, nulls: int = 0) -> pa.Array:
    if pa.types.is_struct(arrow_type):
        return pa.Array.from_buffers(arrow_type, n, [validity], null_count=nulls,
                                     children=[_filler(f.type, n) for f in arrow_type])
    offsets = pa.py_buffer(bytes(4 * (n + 1)))
    if pa.types.is_list(arrow_type):
        return pa.Array.from_buffers(arrow_type, n, [validity, offsets], null_count=nulls,
                                     children=[pa.array([], arrow_type.value_type)])
    if pa.types.is_string(arrow_type) or pa.types.is_binary(arrow_type):
        return pa.Array.from_buffers(arrow_type, n, [validity, offsets, pa.py_buffer(b"")], null_count=nulls)
    if pa.types.is_boolean(arrow_type) or pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type):
        size = (n + 7) // 8 if pa.types.is_boolean(arrow_type) else n * arrow_type.bit_width // 8
        return pa.Array.from_buffers(arrow_type, n, [validity, pa.py_buffer(bytes(size))], null_count=nulls)
    return pa.nulls(n, arrow_type)  # other types: nulls under the null slots too


# a string column held bytes that are not UTF-8 (the caller re-reads the batch row by row): the codec's one fault
InvalidUtf8 = Fault


class Column:
    def entries(self) -> int:
        raise NotImplementedError

    def append_null(self) -> None:
        raise NotImplementedError

    def append_value(self, value: Any) -> None:
        raise NotImplementedError

    def truncate(self, n: int) -> None:
        """Keep the first ``n`` entries (undoes a row that failed after appending part of itself)."""
        raise NotImplementedError

    def finish(self, arrow_type: pa.DataType) -> pa.Array:
        raise NotImplementedError

    @staticmethod
    def of(arrow_type: pa.DataType, leaf_kinds: dict[tuple[str, ...], str] | None = None,
           path: tuple[str, ...] = ()) -> Column:
        """Builders for ``arrow_type``; ``leaf_kinds`` (path -> "utf8" or a wire kind) picks raw leaves."""
        kinds = leaf_kinds or {}
        if pa.types.is_struct(arrow_type):
            return StructColumn({f.name: Column.of(f.type, kinds, (*path, f.name)) for f in arrow_type})
        if pa.types.is_list(arrow_type):
            return ListColumn(Column.of(arrow_type.value_type, kinds, (*path, "[]")))
        kind = kinds.get(path)
        if kind == UTF8:
            return Utf8Leaf()
        if kind in FIXED_KINDS:
            return FixedLeaf(kind)
        return Leaf()


def _mask(nulls: list[int], n: int) -> pa.Array | None:
    if not nulls:
        return None
    mask = [False] * n
    for i in nulls:
        mask[i] = True
    return pa.array(mask, pa.bool_())


class Leaf(Column):
    def __init__(self) -> None:
        self.values: list[Any] = []

    def entries(self) -> int:
        return len(self.values)

    def append_null(self) -> None:
        self.values.append(None)

    def append_value(self, value: Any) -> None:
        self.values.append(value)

    def truncate(self, n: int) -> None:
        del self.values[n:]

    def finish(self, arrow_type: pa.DataType) -> pa.Array:
        try:
            return pa.array(self.values, type=arrow_type)
        except UnicodeEncodeError:  # an unpaired surrogate from Java's modified UTF-8
            return pa.array(arrow_text(self.values), type=arrow_type)


class Utf8Leaf(Leaf):
    def append_value(self, value: Any) -> None:
        self.values.append(value.encode() if isinstance(value, str) else value)

    def finish(self, arrow_type: pa.DataType) -> pa.Array:
        try:
            return pa.array(self.values, type=pa.binary()).cast(arrow_type)
        except pa.ArrowInvalid as e:
            raise InvalidUtf8(str(e)) from None


class FixedLeaf(Column):
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.code, self.raw_type, fmt = FIXED_KINDS[kind]
        self.size = struct.calcsize(fmt)
        self.pack = struct.Struct(fmt).pack
        self.raw = bytearray()

    def entries(self) -> int:
        return len(self.raw) // self.size

    def append_null(self) -> None:
        raise TypeError("elements of fixed-width arrays are never null")

    def append_value(self, value: Any) -> None:
        self.raw += self.pack(value)

    def truncate(self, n: int) -> None:
        del self.raw[n * self.size:]

    def finish(self, arrow_type: pa.DataType) -> pa.Array:
        values = array.array(self.code)
        values.frombytes(self.raw)
        if sys.byteorder == "little":
            values.byteswap()
        raw = pa.Array.from_buffers(self.raw_type, len(values), [None, pa.py_buffer(values)])
        return raw if raw.type == arrow_type else raw.cast(arrow_type)


class ListColumn(Column):
    def __init__(self, child: Column) -> None:
        self.lengths: list[int] = []
        self.nulls: list[int] = []
        self.child = child

    def entries(self) -> int:
        return len(self.lengths)

    def append_null(self) -> None:
        self.nulls.append(len(self.lengths))
        self.lengths.append(0)

    def append_value(self, value: Any) -> None:
        if value is None:
            self.append_null()
            return
        self.lengths.append(len(value))
        for item in value:
            self.child.append_value(item)

    def truncate(self, n: int) -> None:
        keep = sum(self.lengths[:n])
        del self.lengths[n:]
        self.nulls = [i for i in self.nulls if i < n]
        self.child.truncate(keep)

    def finish(self, arrow_type: pa.DataType) -> pa.Array:
        offsets = pa.array(list(accumulate(self.lengths, initial=0)), pa.int32())
        values = self.child.finish(arrow_type.value_type)
        return pa.ListArray.from_arrays(offsets, values, type=arrow_type,
                                        mask=_mask(self.nulls, len(self.lengths)))


class StructColumn(Column):
    def __init__(self, fields: dict[str, Column]) -> None:
        self.fields = fields
        self.nulls: list[int] = []
        self.count = 0  # entries of a struct without fields (others count their first child)

    def entries(self) -> int:
        for child in self.fields.values():
            return child.entries()
        return self.count

    def append_null(self) -> None:
        self.nulls.append(self.entries())
        self.count += 1
        for child in self.fields.values():
            child.append_null()

    def append_value(self, value: Any) -> None:
        if value is None:
            self.append_null()
            return
        self.count += 1
        for name, child in self.fields.items():
            child.append_value(value.get(name))

    def truncate(self, n: int) -> None:
        self.nulls = [i for i in self.nulls if i < n]
        self.count = min(self.count, n)
        for child in self.fields.values():
            child.truncate(n)

    def finish(self, arrow_type: pa.DataType) -> pa.Array:
        n = self.entries()
        if not self.fields:  # Arrow cannot infer the length of a struct without children
            nulls = set(self.nulls)
            return pa.array([None if i in nulls else {} for i in range(n)], type=arrow_type)
        arrays = [self.fields[f.name].finish(f.type) for f in arrow_type]
        return pa.StructArray.from_arrays(arrays, fields=list(arrow_type), mask=_mask(self.nulls, n))
