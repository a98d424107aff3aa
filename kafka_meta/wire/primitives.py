"""Kafka's primitive wire types as ``construct`` classes.

Each class parses and builds (interpreted; errors carry the byte offset) and emits equivalent Python
source for the generated fast path (see :mod:`kafka_meta.wire.codegen`). ``compact`` selects the
flexible-version encodings of KIP-482 (unsigned varint of length + 1, 0 = null).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from construct import Construct

from kafka_meta.wire.errors import Fault
from kafka_meta.wire.runtime import FIXED, MAX_STRING, java_utf8, read_exact, read_uvarint, remaining, uvarint_bytes

# a compact length (its varint minus one) at or above this is negative once Java has read the varint into an int
JAVA_NEGATIVE = 0x80000000

INT_BOUNDS = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
}


class KafkaConstruct(Construct):
    """Base of kafka_meta constructs: a lower bound on the encoded size, used to refuse lying counts."""

    min_size = 0
    shown: tuple[str, ...] = ()  # the attributes __repr__ shows: "name" as a value, "name=" as a keyword

    def __repr__(self) -> str:
        parts = [f"{a[:-1]}={getattr(self, a[:-1])!r}" if a.endswith("=") else repr(getattr(self, a))
                 for a in self.shown]
        return f"{type(self).__name__}({', '.join(parts)})"

    def _sizeof(self, context: Any, path: str) -> int:  # variable-size by nature
        from construct import SizeofError

        raise SizeofError("Kafka encodings have no fixed size", path=path)


class Fixed(KafkaConstruct):
    """A fixed-width big-endian number: int8/16/32/64, uint16/32, float64."""

    shown = ("kind",)

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.codec: struct.Struct = FIXED[kind]
        self.min_size = self.codec.size

    def _parse(self, stream: Any, context: Any, path: str) -> Any:
        return self.codec.unpack(read_exact(stream, self.codec.size, self.kind))[0]

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        # as the generated writer (struct.pack): Python's bools are integers, 0 and 1
        if self.kind == "float64":
            if not isinstance(obj, (int, float)):
                raise Fault(f"expected a number, got {type(obj).__name__}")
        else:
            if not isinstance(obj, int):
                raise Fault(f"expected an integer, got {type(obj).__name__}")
            low, high = INT_BOUNDS[self.kind]
            if not low <= obj <= high:
                raise Fault(f"{obj} does not fit in {self.kind}")
        stream.write(self.codec.pack(obj))
        return obj

    def emit_decode(self, em: Any, target: str) -> None:
        em.line(f"{target}, = _U_{self.kind}(buf, pos); pos += {self.codec.size}")

    def emit_encode(self, em: Any, expr: str) -> None:
        em.line(f"{em.out} += _P_{self.kind}({expr})")


class UVarInt(KafkaConstruct):
    """An unsigned varint of at most 5 bytes (32 bits), as Kafka's ByteUtils reads it."""

    min_size = 1

    def _parse(self, stream: Any, context: Any, path: str) -> int:
        return read_uvarint(stream, bool(context.get("_strict")))

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if not isinstance(obj, int) or not 0 <= obj <= 0xFFFFFFFF:
            raise Fault(f"{obj!r} is not an unsigned 32-bit integer")
        stream.write(uvarint_bytes(obj))
        return obj

    def emit_decode(self, em: Any, target: str) -> None:
        em.uvarint(target)

    def emit_encode(self, em: Any, expr: str) -> None:
        v = em.var("u")
        em.line(f"{v} = {expr}")
        em.uvarint(v)


class Bool(KafkaConstruct):
    """One byte; Java writes 1 for true and reads any non-zero byte as true (strict reading wants 0 or 1)."""

    min_size = 1

    def _parse(self, stream: Any, context: Any, path: str) -> bool:
        start = stream.tell()
        b = read_exact(stream, 1, "bool")[0]
        if b > 1 and context.get("_strict"):
            raise Fault(f"bool byte {b} is neither 0 nor 1", start)
        return b != 0

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        stream.write(b"\x01" if obj else b"\x00")  # any value, by its truth, as the generated writer does
        return obj

    def emit_decode(self, em: Any, target: str) -> None:
        em.line(f"{target} = buf[pos]; pos += 1")
        if em.strict:
            em.line(f"if {target} > 1: raise _Bad('bool')")
        em.line(f"{target} = {target} != 0")

    def emit_encode(self, em: Any, expr: str) -> None:
        em.line(f"{em.out}.append(1 if {expr} else 0)")


class _Sized(KafkaConstruct):
    """Shared length handling of strings, bytes and (in composite) arrays.

    Classic form: a signed int16 (strings) or int32 (bytes, arrays) length, -1 = null.
    Compact form: unsigned varint of length + 1, 0 = null.

    Kafka's readers take any negative length as null: a classic length below -1, and a compact one whose varint
    is 2^31 or more (Java reads it into an int, which is then negative). Lenient reading does the same where the
    field is nullable (and writes -1 back); strict reading refuses what no writer emits.
    """

    shown = ("compact=", "nullable=")

    classic_kind = "int32"
    what = "bytes"

    def __init__(self, compact: bool, nullable: bool) -> None:
        super().__init__()
        self.compact = compact
        self.nullable = nullable
        self.min_size = 1 if compact else FIXED[self.classic_kind].size

    def _read_length(self, stream: Any, context: Any) -> int | None:
        start = stream.tell()
        strict = bool(context.get("_strict"))
        if self.compact:
            n = read_uvarint(stream, strict) - 1
            if n >= JAVA_NEGATIVE:  # a negative int to Java
                if strict or not self.nullable:
                    raise Fault(f"length {n} does not fit in a signed 32-bit int", start)
                n = -1
        else:
            codec = FIXED[self.classic_kind]
            n = codec.unpack(read_exact(stream, codec.size, f"the length of {self.what}"))[0]
            if n < -1:
                if strict or not self.nullable:
                    raise Fault(f"negative length {n}", start)
                n = -1
        if n == -1:
            if not self.nullable:
                raise Fault(f"null {self.what} where the field is not nullable", start)
            return None
        return n

    def _write_length(self, n: int | None, stream: Any) -> None:
        if n is None:
            stream.write(b"\x00" if self.compact else FIXED[self.classic_kind].pack(-1))
        elif self.compact:
            stream.write(uvarint_bytes(n + 1))
        else:
            high = INT_BOUNDS[self.classic_kind][1]
            if n > high:
                raise Fault(f"{self.what} of length {n} is too long")
            stream.write(FIXED[self.classic_kind].pack(n))

    def emit_length(self, em: Any, n: str, refuse_negative: bool = True) -> None:
        """Emit code leaving the length in ``n`` (-1 for null, already rejected when not nullable; any negative
        length is null when read leniently, as in :meth:`_read_length`). ``refuse_negative=False``: a classic
        length of a field that is not nullable is left as read, for a reader that refuses it itself."""
        if self.compact:
            em.uvarint(n)
            if self.nullable:
                em.line(f"{n} -= 1")
                if em.strict:
                    em.line(f"if {n} >= {JAVA_NEGATIVE}: raise _Bad('length')")
                else:
                    em.line(f"if {n} >= {JAVA_NEGATIVE}: {n} = -1")
            else:
                em.line(f"if {n} == 0: raise _Bad('null')")
                em.line(f"{n} -= 1")
        else:
            em.line(f"{n}, = _U_{self.classic_kind}(buf, pos); pos += {FIXED[self.classic_kind].size}")
            if not self.nullable:
                if refuse_negative:
                    em.line(f"if {n} < 0: raise _Bad('length')")
            elif em.strict:
                em.line(f"if {n} < -1: raise _Bad('length')")

    def emit_write_length(self, em: Any, n_expr: str) -> None:
        if self.compact:
            v = em.var("c")
            em.line(f"{v} = {n_expr} + 1")
            em.uvarint(v)
        else:
            em.line(f"{em.out} += _P_{self.classic_kind}({n_expr})")

    def emit_write_null(self, em: Any) -> None:
        if not self.nullable:
            em.line("raise _Unwritable('null')")
        elif self.compact:
            em.line(f"{em.out}.append(0)")
        else:
            em.line(f"{em.out} += {FIXED[self.classic_kind].pack(-1)!r}")

    def _parse(self, stream: Any, context: Any, path: str) -> Any:
        start = stream.tell()
        n = self._read_length(stream, context)
        return None if n is None else self._parse_present(n, start, stream, context, path)

    def _parse_present(self, n: int, start: int, stream: Any, context: Any, path: str) -> Any:
        """The value of length ``n`` whose length field started at ``start``."""
        raise NotImplementedError

    def _fits(self, n: int, stream: Any, start: int) -> None:
        left = remaining(stream)
        if n > left:
            raise Fault(f"{self.what} length {n} exceeds the {left} bytes left", start)

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if obj is None:
            if not self.nullable:
                raise Fault("null where the field is not nullable")
            self._write_length(None, stream)
        else:
            self._build_present(obj, stream, context, path)
        return obj

    def _build_present(self, obj: Any, stream: Any, context: Any, path: str) -> None:
        raise NotImplementedError

    @contextmanager
    def emit_read_present(self, em: Any, n: str, target: str, refuse_negative: bool = True) -> Iterator[None]:
        """Emit the length into ``n``, then (the ``with`` body) the value's reading when it is not null;
        a null leaves None in ``target`` (``refuse_negative``: see :meth:`emit_length`)."""
        self.emit_length(em, n, refuse_negative)
        if not self.nullable:
            yield
            return
        with em.block(f"if {n} >= 0:"):
            yield
        em.line(f"else: {target} = None")

    @contextmanager
    def emit_write_present(self, em: Any, value: str) -> Iterator[None]:
        """Emit the writing of a null ``value``, then (the ``with`` body) of a present one."""
        if not self.nullable:
            yield
            return
        with em.block(f"if {value} is None:"):
            self.emit_write_null(em)
        with em.block("else:"):
            yield


class KString(_Sized):
    """A UTF-8 string (standard UTF-8, not Java's modified form); at most 32767 bytes."""

    classic_kind = "int16"
    what = "string"

    def _parse_present(self, n: int, start: int, stream: Any, context: Any, path: str) -> str:
        if n > MAX_STRING:
            raise Fault(f"string length {n} exceeds Kafka's limit of {MAX_STRING}", start)
        self._fits(n, stream, start)
        data = stream.read(n)
        if not context.get("_strict"):
            return java_utf8(data)  # as Kafka's readers: new String(bytes, UTF_8), invalid bytes as U+FFFD
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise Fault(f"invalid UTF-8 in string ({e.reason} at string byte {e.start})", start) from None

    def _build_present(self, obj: Any, stream: Any, context: Any, path: str) -> None:
        if not isinstance(obj, str):
            raise Fault(f"expected a string, got {type(obj).__name__}")
        try:
            data = obj.encode("utf-8")
        except UnicodeEncodeError as e:
            raise Fault(f"string cannot be encoded as UTF-8: {e.reason}") from None
        if len(data) > MAX_STRING:
            raise Fault(f"string of {len(data)} bytes exceeds Kafka's limit of {MAX_STRING}")
        self._write_length(len(data), stream)
        stream.write(data)

    def emit_decode(self, em: Any, target: str) -> None:
        n, end = em.var("n"), em.var("e")
        with self.emit_read_present(em, n, target):
            if self.compact:
                em.line(f"if {n} > {MAX_STRING}: raise _Bad('long string')")
            em.line(f"{end} = pos + {n}")
            em.bounds_check(end)
            em.line(f"{target} = {em.mode.make_string(em, f'buf[pos:{end}]')}; pos = {end}")

    def emit_encode(self, em: Any, expr: str) -> None:
        s, data = em.var("s"), em.var("b")
        if self.nullable:
            em.line(f"{s} = {expr}")
        else:  # None has no .encode(): the failure is explained by the interpreted builder
            s = expr
        with self.emit_write_present(em, s):
            em.line(f"{data} = {s}.encode()")
            em.line(f"if len({data}) > {MAX_STRING}: raise _Unwritable('long string')")
            self.emit_write_length(em, f"len({data})")
            em.line(f"{em.out} += {data}")


class KBytes(_Sized):
    """Opaque bytes (``bytes`` in the spec dialect)."""

    classic_kind = "int32"
    what = "bytes"

    def _parse_present(self, n: int, start: int, stream: Any, context: Any, path: str) -> bytes:
        self._fits(n, stream, start)
        return stream.read(n)

    def _build_present(self, obj: Any, stream: Any, context: Any, path: str) -> None:
        if not isinstance(obj, (bytes, bytearray, memoryview)):
            raise Fault(f"expected bytes, got {type(obj).__name__}")
        data = bytes(obj)
        self._write_length(len(data), stream)
        stream.write(data)

    def emit_decode(self, em: Any, target: str) -> None:
        n, end = em.var("n"), em.var("e")
        with self.emit_read_present(em, n, target):
            em.line(f"{end} = pos + {n}")
            em.bounds_check(end)
            em.line(f"{target} = {em.mode.make_bytes(em, f'buf[pos:{end}]')}; pos = {end}")

    def emit_encode(self, em: Any, expr: str) -> None:
        data = em.var("b")
        em.line(f"{data} = {expr}")
        with self.emit_write_present(em, data):
            if not self.compact:
                em.line(f"if len({data}) > 2147483647: raise _Unwritable('long bytes')")
            self.emit_write_length(em, f"len({data})")
            em.line(f"{em.out} += {data}")


class KUuid(KafkaConstruct):
    """16 bytes: the high then the low 64 bits, big-endian. Plain values are the 16 raw bytes."""

    min_size = 16

    def _parse(self, stream: Any, context: Any, path: str) -> bytes:
        return read_exact(stream, 16, "uuid")

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        raw = getattr(obj, "bytes", obj)
        if not isinstance(raw, (bytes, bytearray)) or len(raw) != 16:
            raise Fault(f"expected 16 uuid bytes, got {obj!r}")
        stream.write(bytes(raw))
        return obj

    def emit_decode(self, em: Any, target: str) -> None:
        raw = em.var("q")
        em.line(f"{raw} = buf[pos:pos + 16]; pos += 16",
                "if pos > blen: raise _Bad('short')",
                f"{target} = {em.mode.make_uuid(em, raw)}")

    def emit_encode(self, em: Any, expr: str) -> None:
        raw = em.var("q")
        em.line(f"{raw} = {em.mode.uuid_bytes(expr)}",
                f"if len({raw}) != 16: raise _Unwritable('uuid')",
                f"{em.out} += {raw}")
