"""The two paths of a format, run side by side: they must agree on values and on where they fail.

Every format reads and writes through generated code (the fast path, which signals damage by raising a
bare :class:`~kafka_meta.wire.errors.Fault`) and through the interpreted constructs it was generated from
(the reference, which knows the byte offset and field path of a fault). Users get the fast path's results
and, when it fails, the reference's explanation; both are only right if the paths agree. These helpers
run both on the same bytes (or value) and list every way they differ, for tests over every type and
version, on good and on damaged input.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from construct import Container
from hypothesis import strategies as st

from kafka_meta.codec.format import MessageFormat
from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.wire.errors import Fault
from kafka_meta.wire.runtime import UNKNOWN_KEY


@dataclass(frozen=True)
class Outcome:
    """What one path made of the input: a value (and where reading ended), or a fault and where it was met."""

    value: Any = None
    end: int | None = None
    fault: str | None = None
    offset: int | None = None
    path: str | None = None

    @property
    def failed(self) -> bool:
        return self.fault is not None


def read_both(fmt: MessageFormat, data: bytes, version: int | None, strict: bool) -> list[str]:
    """How the fast and the reference reader of ``fmt`` disagree on ``data`` (empty: they agree).

    Only the body is compared: a header that does not read is the framing's error, the same for both.
    When both fail, the error users get (fast path first, then explained) must name the reference's place.
    """
    try:
        header = fmt.header(data, version, strict)
    except DecodeError:
        return []
    if header.layout_version is None:  # a version probe: no body layout, nothing generated to compare
        return []
    stream = BytesIO(data)
    stream.seek(header.body_offset)
    try:
        value = fmt.construct(header.layout_version)._parse(stream, Container(_strict=strict), "(parsing)")
        reference = Outcome(value, stream.tell())
    except Fault as e:
        reference = Outcome(fault=e.reason, offset=e.offset, path=e.field_path)
    try:
        value, end = fmt.decoder(header.layout_version, False, strict)(data, header.body_offset, len(data))
        fast = Outcome(value, end)
    except Exception as e:  # noqa: BLE001 - the fast path signals any damage by raising
        fast = Outcome(fault=f"{type(e).__name__}: {e}")
    problems = _compare(reference, fast, "read")
    if reference.failed and fast.failed:
        try:
            fmt.decode_body(data, header, False, strict)
        except DecodeError as e:
            if (e.offset, e.path) != (reference.offset, reference.path):
                problems.append(f"the error names byte {e.offset} field {e.path!r}, the reference failed at byte "
                                f"{reference.offset} field {reference.path!r}: {e}")
    return problems


def write_both(fmt: MessageFormat, value: Any, version: int) -> list[str]:
    """How the fast and the reference writer of ``fmt`` disagree on a plain ``value`` at ``version``."""
    out = BytesIO()
    try:
        fmt.construct(version)._build(value, out, Container(), "(building)")
        reference = Outcome(out.getvalue())
    except Fault as e:
        reference = Outcome(fault=e.reason, path=e.field_path)
    except Exception as e:  # noqa: BLE001 - anything else the reference meets is a fault without a place
        reference = Outcome(fault=f"{type(e).__name__}: {e}", path="")
    written = bytearray()
    try:
        fmt.encoder(version, False)(value, written)
        fast = Outcome(bytes(written))
    except Exception as e:  # noqa: BLE001 - the fast path signals any unwritable value by raising
        fast = Outcome(fault=f"{type(e).__name__}: {e}")
    problems = _compare(reference, fast, "write")
    if reference.failed and fast.failed:
        try:
            fmt.encode(value, version)
        except EncodeError as e:
            if e.path != reference.path:
                problems.append(f"the error names field {e.path!r}, the reference failed at {reference.path!r}: {e}")
    return problems


def _compare(reference: Outcome, fast: Outcome, what: str) -> list[str]:
    if reference.failed != fast.failed:
        side, other = ("reference", fast) if reference.failed else ("fast path", reference)
        fault = reference.fault if reference.failed else fast.fault
        return [f"the {side} fails to {what} ({fault}) where the other does not ({other.value!r})"]
    if not reference.failed and not (reference.end == fast.end and same(reference.value, fast.value)):
        return [f"they {what} differently: reference {reference.value!r} (end {reference.end}), "
                f"fast path {fast.value!r} (end {fast.end})"]
    return []


def same(left: Any, right: Any) -> bool:
    """Whether two read values are the same, float by float in their bits.

    Plain ``==`` says a NaN differs from itself, and damaged bytes read as a float64 are often a NaN: two
    paths that both read the same NaN agree, and only its bits can say so.
    """
    if isinstance(left, float) and isinstance(right, float):
        return struct.pack(">d", left) == struct.pack(">d", right)
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return type(left) is type(right) and len(left) == len(right) and all(map(same, left, right))
    return type(left) is type(right) and left == right


DAMAGE = (b"\xff\xff\xff\xff", b"\x7f\xff", b"\x80\x80\x80\x80\x80\x01", b"\x00\x00\x00\x00")


@st.composite
def damaged(draw: Any, data: bytes) -> bytes:
    """``data`` with one kind of damage: a byte flipped, cut short, bytes inserted, or a lying length/varint."""
    if not data:
        return bytes(draw(st.binary(max_size=8)))
    kind = draw(st.sampled_from(["flip", "cut", "insert", "set"]))
    at = draw(st.integers(0, len(data) - 1))
    if kind == "flip":
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    if kind == "cut":
        return data[:at]
    if kind == "insert":
        return data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
    return data[:at] + draw(st.sampled_from(DAMAGE)) + data[at + 1:]


WRONG = (2**70, -(2**70), "text", b"\x00", None, 1.5, True, [1], {"a": 1})


@st.composite
def damaged_value(draw: Any, value: Any) -> Any:
    """A plain value with one field (at any depth) replaced by something of the wrong type or range."""
    if isinstance(value, dict):
        keys = [k for k in value if k != UNKNOWN_KEY]
        if not keys:
            return value
        key = draw(st.sampled_from(keys))
        inner = draw(st.booleans())
        return {**value, key: draw(damaged_value(value[key])) if inner else draw(st.sampled_from(WRONG))}
    if isinstance(value, list) and value and draw(st.booleans()):
        at = draw(st.integers(0, len(value) - 1))
        return [*value[:at], draw(damaged_value(value[at])), *value[at + 1:]]
    return draw(st.sampled_from(WRONG))
