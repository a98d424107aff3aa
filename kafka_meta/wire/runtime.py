"""Helpers shared by interpreted constructs and by the Python code generated from them.

Generated decoders inline the common case (a one-byte varint, a length that fits) and call these only for
the rare cases, so they are kept small and branch-light.
"""

from __future__ import annotations

import codecs
import struct
from collections.abc import Callable
from typing import Any

from kafka_meta.wire.errors import Fault, Malformed, Unwritable

MAX_STRING = 0x7FFF  # Kafka refuses longer strings, even in compact form

# the key under which a decoded plain struct keeps the tagged fields it did not know, as (tag, bytes) pairs
UNKNOWN_KEY = "_unknown_tagged_fields"


__all__ = ["FIXED", "JAVA_UTF8", "MAX_STRING", "UNKNOWN_KEY", "Fault", "Malformed", "Unwritable",
           "fixed_array_reader", "fixed_array_readers", "java_utf8", "read_exact", "read_uvarint", "remaining",
           "uvarint", "uvarint_bytes", "uvarint_tail", "uvarint_tail_strict", "varlong", "write_tagged"]


def _uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    """A varint of at most 5 bytes at ``pos``, its full value (up to 35 bits) and where it ends."""
    value = 0
    shift = 0
    for i in range(5):
        b = buf[pos + i]
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos + i + 1
        shift += 7
    raise Fault("varint longer than 5 bytes")


def uvarint_tail(buf: bytes, pos: int) -> tuple[int, int]:
    """Read a multi-byte unsigned varint at ``pos`` as Kafka's ``readUnsignedVarint`` does: at most 5 bytes, and
    the bits of the fifth byte beyond 32 dropped (Java shifts them out of its int)."""
    value, end = _uvarint(buf, pos)
    return value & 0xFFFFFFFF, end


def uvarint_tail_strict(buf: bytes, pos: int) -> tuple[int, int]:
    """As :func:`uvarint_tail`, refusing what no writer emits: a value beyond 32 bits and over-long encodings
    (trailing zero groups)."""
    value, end = _uvarint(buf, pos)
    if value > 0xFFFFFFFF:
        raise Fault("varint does not fit in 32 bits")
    if end - pos > 1 and buf[end - 1] == 0:
        raise Fault("over-long varint encoding")
    return value, end


JAVA_UTF8 = "kafka_meta.java-utf8"  # the codecs error handler reading invalid UTF-8 as Java does


def _java_replacement(error: UnicodeError) -> tuple[str, int]:
    """One U+FFFD per malformed sequence, as Java's UTF-8 decoder cuts them (``new String(bytes, UTF_8)``, which
    Kafka's readers build strings with). Python's decoder cuts them alike (the Unicode "maximal subpart"), except
    for an encoded surrogate (ED A0-BF xx): Java takes ED and its second byte as one sequence, and a third
    continuation byte with them."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    data, start = error.object, error.start
    if data[start] == 0xED and start + 1 < len(data) and 0xA0 <= data[start + 1] <= 0xBF:
        end = start + 3 if start + 2 < len(data) and data[start + 2] & 0xC0 == 0x80 else start + 2
        return "\ufffd", end
    return "\ufffd", error.end


codecs.register_error(JAVA_UTF8, _java_replacement)


def java_utf8(data: bytes) -> str:
    """Bytes as Java's ``new String(bytes, UTF_8)`` reads them: invalid UTF-8 becomes U+FFFD."""
    return data.decode("utf-8", JAVA_UTF8)


def read_uvarint(stream: Any, strict: bool = False) -> int:
    """The interpreted readers' varint: the functions above on the next bytes of a (seekable) stream, with
    the varint's start as the fault's offset."""
    start = stream.tell()
    head = stream.read(5)
    try:
        value, end = (uvarint_tail_strict if strict else uvarint_tail)(head, 0)
    except IndexError:
        raise Fault("input ends inside a varint", start) from None
    except Fault as e:
        raise Fault(e.reason, start) from None
    stream.seek(start + end)
    return value


def uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    """An unsigned varint at ``pos`` as Kafka reads one (:func:`uvarint_tail`), its common one-byte form read
    inline: the form for hand-read frames (headers, the start of a Produce body) that have no construct.
    Raises :class:`IndexError` when ``buf`` ends inside it, :class:`Fault` when it runs over 5 bytes."""
    if pos < len(buf) and buf[pos] < 0x80:
        return buf[pos], pos + 1
    return uvarint_tail(buf, pos)


def varlong(buf: bytes, pos: int) -> tuple[int, int]:
    """A zig-zag varint or varlong at ``pos`` (the record fields of a v2 batch: Kafka's ``readVarint`` and
    ``readVarlong``), at most 10 bytes: (value, position after it). The record loop reads the one- and two-byte
    forms inline and calls this for the rest. Raises :class:`IndexError` when ``buf`` ends inside it,
    :class:`Fault` when it runs over 10 bytes."""
    shift = value = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return (value >> 1) ^ -(value & 1), pos
        shift += 7
        if shift > 63:
            raise Fault(f"a varint runs over 10 bytes at byte {pos}", pos)


def uvarint_bytes(value: int) -> bytes:
    if value < 0 or value > 0xFFFFFFFF:
        raise Fault(f"{value} does not fit in an unsigned 32-bit varint")
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_exact(stream: Any, n: int, what: str) -> bytes:
    start = stream.tell()
    data = stream.read(n)
    if len(data) != n:
        raise Fault(f"input ends inside {what}: needs {n} bytes, {len(data)} left", start)
    return data


def remaining(stream: Any) -> int:
    here = stream.tell()
    end = stream.seek(0, 2)
    stream.seek(here)
    return end - here


def write_tagged(out: bytearray, entries: list[tuple[int, bytes]]) -> None:
    """Write a tagged-field section: count, then (tag, size, payload) in ascending tag order."""
    entries.sort(key=_first)
    last = -1
    for tag, _ in entries:
        if tag <= last:
            raise Fault(f"tagged field {tag} appears twice")
        last = tag
    out += uvarint_bytes(len(entries))
    for tag, payload in entries:
        out += uvarint_bytes(tag)
        out += uvarint_bytes(len(payload))
        out += payload


def _first(entry: tuple[int, bytes]) -> int:
    return entry[0]


FIXED = {
    "int8": struct.Struct(">b"),
    "int16": struct.Struct(">h"),
    "int32": struct.Struct(">i"),
    "int64": struct.Struct(">q"),
    "uint16": struct.Struct(">H"),
    "uint32": struct.Struct(">I"),
    "float64": struct.Struct(">d"),
}


# Arrays of fixed-width numbers are read by one struct unpack. Formatting its format ('>%di' % n) and finding it in
# struct's own cache costs more than unpacking a dozen numbers, so the unpackers of the small counts are kept here,
# per struct format character: counts come from the input, so only those below this bound.
CACHED_ARRAY_COUNTS = 256
_ARRAY_READERS: dict[str, dict[int, Callable[[bytes, int], tuple]]] = {}


def fixed_array_readers(fmt: str) -> dict[int, Callable[[bytes, int], tuple]]:
    """The unpackers already made for struct format character ``fmt``, by count (see :func:`fixed_array_reader`)."""
    return _ARRAY_READERS.setdefault(fmt, {})


def fixed_array_reader(fmt: str, n: int) -> Callable[[bytes, int], tuple]:
    """``unpack_from(buf, pos)`` of ``n`` big-endian numbers of struct format character ``fmt``, kept among
    :func:`fixed_array_readers` when ``n`` is small. A negative ``n`` raises ``struct.error``, and so does the
    unpacker when the buffer is too short."""
    reader = struct.Struct(f">{n}{fmt}").unpack_from
    if n < CACHED_ARRAY_COUNTS:
        fixed_array_readers(fmt)[n] = reader
    return reader
