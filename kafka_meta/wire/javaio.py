"""Strings as Java's ``DataOutputStream`` writes them (Kafka Streams' hand-written AssignmentInfo).

* :class:`ModifiedUtf8`: ``writeUTF``: an unsigned 16-bit byte length, then *modified* UTF-8: NUL is
  ``C0 80``, characters above U+FFFF are two 3-byte encodings of their UTF-16 surrogates, never a 4-byte
  sequence. Reading follows ``DataInputStream.readUTF`` (which also accepts a raw ``00`` byte and
  over-long forms; strict reading refuses those, as no Java writer produces them).
* :class:`Utf16Chars`: ``writeInt(s.length()); writeChars(s)``: a signed 32-bit count of UTF-16 code units,
  then the units big-endian. A count of 0 means *no string* (``None``), as Kafka reads named topologies.
"""

from __future__ import annotations

import struct
from typing import Any

from kafka_meta.wire.errors import Fault
from kafka_meta.wire.primitives import Fixed, KafkaConstruct
from kafka_meta.wire.runtime import read_exact, remaining

MAX_UTF = 0xFFFF


ModifiedUtf8Error = Fault  # its offset is the offending byte's index within the string

def decode_modified_utf8(data: bytes, strict: bool = False) -> str:
    """Java's ``readUTF`` body; raises a :class:`~kafka_meta.wire.errors.Fault` whose offset is the
    offending byte's index."""
    if data.isascii() and 0 not in data:
        return data.decode("ascii")
    units: list[int] = []
    i, n = 0, len(data)
    while i < n:
        c = data[i]
        if c < 0x80:
            if c == 0 and strict:
                raise Fault("a raw 00 byte (Java writes NUL as C0 80)", i)
            units.append(c)
            i += 1
        elif c >> 5 == 0b110 or c >> 4 == 0b1110:
            size = 2 if c >> 5 == 0b110 else 3
            if i + size > n:
                raise Fault("partial character at the end", i)
            tail = data[i + 1:i + size]
            if any(b & 0xC0 != 0x80 for b in tail):
                raise Fault(f"malformed input around byte {i + size - 1}", i)
            if size == 2:
                unit = (c & 0x1F) << 6 | tail[0] & 0x3F
                overlong = unit < 0x80 and unit != 0
            else:
                unit = (c & 0x0F) << 12 | (tail[0] & 0x3F) << 6 | tail[1] & 0x3F
                overlong = unit < 0x800
            if overlong and strict:
                raise Fault(f"over-long encoding of U+{unit:04X}", i)
            units.append(unit)
            i += size
        else:
            raise Fault(f"malformed input around byte {i}", i)
    return struct.pack(f">{len(units)}H", *units).decode("utf-16-be", "surrogatepass")


def encode_modified_utf8(text: str) -> bytes:
    """Java's ``writeUTF`` body (without the length)."""
    if text.isascii() and "\0" not in text:
        return text.encode("ascii")
    raw = text.encode("utf-16-be", "surrogatepass")
    out = bytearray()
    for (unit,) in struct.iter_unpack(">H", raw):
        if 0 < unit < 0x80:
            out.append(unit)
        elif unit < 0x800:
            out += bytes((0xC0 | unit >> 6, 0x80 | unit & 0x3F))
        else:
            out += bytes((0xE0 | unit >> 12, 0x80 | unit >> 6 & 0x3F, 0x80 | unit & 0x3F))
    return bytes(out)


def read_utf(buf: bytes, pos: int, blen: int, strict: bool) -> tuple[str, int]:
    """The generated code's reader: the string at ``pos`` and the position after it (raises a Fault)."""
    if pos + 2 > blen:
        raise Fault("short")
    end = pos + 2 + (buf[pos] << 8 | buf[pos + 1])
    if end > blen:
        raise Fault("short")
    try:
        return decode_modified_utf8(buf[pos + 2:end], strict), end
    except Fault:
        raise Fault("modified utf-8") from None


def write_utf(out: bytearray, text: Any) -> None:
    data = encode_modified_utf8(text)
    if len(data) > MAX_UTF:
        raise Fault("long string")
    out += len(data).to_bytes(2, "big")
    out += data


class ModifiedUtf8(KafkaConstruct):
    """A string as ``DataOutputStream.writeUTF`` writes it: u16 byte length, modified UTF-8."""

    min_size = 2

    def _parse(self, stream: Any, context: Any, path: str) -> str:
        start = stream.tell()
        n = int.from_bytes(read_exact(stream, 2, "the length of a string"), "big")
        left = remaining(stream)
        if n > left:
            raise Fault(f"string length {n} exceeds the {left} bytes left", start)
        try:
            return decode_modified_utf8(stream.read(n), bool(context.get("_strict")))
        except Fault as e:
            raise Fault(f"invalid modified UTF-8: {e.reason} (string byte {e.offset})", start) from None

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if not isinstance(obj, str):
            raise Fault(f"expected a string, got {type(obj).__name__}")
        data = encode_modified_utf8(obj)
        if len(data) > MAX_UTF:
            raise Fault(f"string of {len(data)} encoded bytes exceeds Java's writeUTF limit of {MAX_UTF}")
        stream.write(len(data).to_bytes(2, "big") + data)
        return obj

    def emit_decode(self, em: Any, target: str) -> None:
        reader = em.const(read_utf, "_rutf")
        em.line(f"{target}, pos = {reader}(buf, pos, blen, {em.strict})")

    def emit_encode(self, em: Any, expr: str) -> None:
        em.line(f"{em.const(write_utf, '_wutf')}({em.out}, {expr})")


COUNT = Fixed("int32")  # Java's writeInt of the number of UTF-16 units


class Utf16Chars(KafkaConstruct):
    """A string as ``writeInt(s.length()); writeChars(s)``: i32 count of UTF-16 units, then the units.

    0 units reads as ``None`` (Kafka: no named topology); ``None`` and ``""`` both write 0. Kafka Streams' reader
    loops ``count`` times, so a negative count reads no characters: no named topology. Lenient reading does the same
    (the count is then written back as 0); strict reading refuses it, as no writer emits it.
    """

    min_size = 4

    def _parse(self, stream: Any, context: Any, path: str) -> str | None:
        start = stream.tell()
        n = int.from_bytes(read_exact(stream, 4, "the length of a string"), "big", signed=True)
        if n < 0:
            if context.get("_strict"):
                raise Fault(f"negative length {n}", start)
            return None
        left = remaining(stream)
        if 2 * n > left:
            raise Fault(f"{n} UTF-16 characters cannot fit in the {left} bytes left", start)
        return stream.read(2 * n).decode("utf-16-be", "surrogatepass") if n else None

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if obj is not None and not isinstance(obj, str):
            raise Fault(f"expected a string or None, got {type(obj).__name__}")
        data = obj.encode("utf-16-be", "surrogatepass") if obj else b""
        if len(data) // 2 > 0x7FFFFFFF:
            raise Fault("string too long")
        stream.write((len(data) // 2).to_bytes(4, "big") + data)
        return obj

    def emit_decode(self, em: Any, target: str) -> None:
        n = em.var("n")
        COUNT.emit_decode(em, n)
        if em.strict:
            em.line(f"if {n} < 0: raise _Bad('chars')")
        else:
            em.line(f"if {n} < 0: {n} = 0  # as Kafka Streams' reader: no characters, no named topology")
        em.line(f"if 2 * {n} > blen - pos: raise _Bad('chars')",
                f"if {n}: {target} = buf[pos:pos + 2 * {n}].decode('utf-16-be', 'surrogatepass'); pos += 2 * {n}",
                f"else: {target} = None")

    def emit_encode(self, em: Any, expr: str) -> None:
        data = em.var("b")
        em.line(f"{data} = {expr}", f"{data} = {data}.encode('utf-16-be', 'surrogatepass') if {data} else b''")
        COUNT.emit_encode(em, f"len({data}) // 2")
        em.line(f"{em.out} += {data}")
