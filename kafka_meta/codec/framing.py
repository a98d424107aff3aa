"""How a message's version travels with its body, and what a reader does with versions it does not know.

* :class:`Unframed`: the body alone; the caller knows the version (a spec with one version needs none).
* :class:`Int16Prefixed`: an int16 version, then the body (consumer protocol, ``__consumer_offsets`` values).
* :class:`LeadingVersion`: the version is the first field *of the body* (Kafka Streams' int32, the metadata
  log's uvarint frame version), possibly followed by companion fields of KIP-268 version probing.

Versions above the newest are handled by a :class:`ForwardPolicy`:

- ``CLAMP``: the consumer protocol's rule (``ConsumerProtocol.checkSubscriptionVersion``): read with the
  newest layout, ignore what follows;
- ``RANGES``: Kafka's generated readers, every field range evaluated at the wire version (KIP-915 reading
  of ``__consumer_offsets`` values);
- ``PROBE``: Kafka Streams' version probing: only the leading version and its companions are read, the
  result is a :class:`~kafka_meta.codec.probe.VersionProbe` (the header's layout is ``None``);
- ``REFUSE``: a newer version is an error.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.spec.versions import Versions
from kafka_meta.wire.checked import Bounded, LayoutVersion, number_bounds
from kafka_meta.wire.errors import Fault
from kafka_meta.wire.runtime import FIXED, uvarint_bytes, uvarint_tail

MAX_VERSION = 0x7FFF  # Kafka's message versions are int16s


class ForwardPolicy(enum.Enum):
    CLAMP = "clamp"
    RANGES = "ranges"
    PROBE = "probe"
    REFUSE = "refuse"


@dataclass(frozen=True)
class ForwardReading:
    """How Kafka's readers treat a version newer than they know, when that is not what the framing does (a
    format's plugin may say so): the rule, a note shown with the compatibility matrix, and the first reader
    version that follows the rule (readers of older versions refuse newer ones: e.g. version probing only
    exists from Streams subscription v3)."""

    rule: ForwardPolicy
    note: str = ""
    since: int = 0

    def at(self, reader: int) -> ForwardPolicy:
        """The rule a reader at version ``reader`` follows."""
        return self.rule if reader >= self.since else ForwardPolicy.REFUSE


class Header(NamedTuple):
    """What the framing says: the version on the wire, the layout that reads it, where the body starts.

    Built with ``tuple.__new__`` on the hot path (a NamedTuple's own constructor costs more than the
    rest of the framing).
    """

    wire_version: int
    layout_version: int | None  # None: a version-probing read (ForwardPolicy.PROBE), no layout applies
    body_offset: int


def _header(wire: int, layout: int | None, offset: int) -> Header:
    return _tuple_new(Header, (wire, layout, offset))


_tuple_new = tuple.__new__


class Framing:
    """Base: reads and writes the version framing around a body."""

    forward = ForwardPolicy.REFUSE
    max_version = MAX_VERSION  # the largest version the framing's version field can hold
    probing = False  # whether a newer version can be read as far as its version header (KIP-268)
    owns_body_field = False  # whether the version is a field of the body (then each version's layout differs)

    def __init__(self, forward: ForwardPolicy = ForwardPolicy.REFUSE) -> None:
        self.forward = forward

    def read(self, buf: bytes, versions: Versions, version: int | None, type_name: str, strict: bool) -> Header:
        raise NotImplementedError

    def write(self, out: bytearray, version: int) -> None:
        raise NotImplementedError

    def field_construct(self, json_name: str, version: int) -> Any | None:
        """The construct of a top-level body field the framing owns (its version field), else None."""
        return None

    def emit_read(self, em: Any, versions: Versions, version: int | None, type_name: str, strict: bool) -> None:
        """Emit source that reads this framing at the start of ``buf`` into ``wv`` (the wire version), ``lv``
        (the layout, None for a version probe) and ``pos`` (where the body starts), by :meth:`read`'s rules:
        for generated readers of whole batches, which read the header of every row inline."""
        args = ", ".join((em.const(versions, "_versions"), repr(version), repr(type_name), repr(strict)))
        em.line(f"wv, lv, pos = {em.const(self.read, '_frame')}(buf, {args})")

    def layout_for(self, version: int, versions: Versions, type_name: str, strict: bool = False) -> int | None:
        """The layout that reads (or writes) ``version``, applying the forward policy (None: probe only)."""
        if isinstance(version, bool) or not isinstance(version, int):
            raise DecodeError(f"a version is an integer, not {version!r}", type_name=type_name)
        if version < versions.low:
            raise DecodeError(f"unsupported version {version} (lowest is {versions.low})", type_name=type_name,
                              version=version, offset=0)
        if version <= versions.high:
            return version
        if version > self.max_version:
            raise DecodeError(f"version {version} cannot be carried by this format (at most {self.max_version})",
                              type_name=type_name, version=version, offset=0)
        if strict or self.forward is ForwardPolicy.REFUSE:
            raise DecodeError(f"version {version} is newer than the newest known ({versions.high})",
                              type_name=type_name, version=version, offset=0)
        if self.forward is ForwardPolicy.PROBE:
            return None
        return versions.high if self.forward is ForwardPolicy.CLAMP else version

    def found(self, wire: int, body_offset: int, versions: Versions, version: int | None, type_name: str,
              strict: bool) -> Header:
        """The header of a version read from the bytes (``version``: the one the caller expects, if any)."""
        if version is not None and version != wire:
            raise DecodeError(f"the bytes carry version {wire}, not {version}", type_name=type_name, offset=0)
        if versions.low <= wire <= versions.high:
            return _header(wire, wire, body_offset)
        return _header(wire, self.layout_for(wire, versions, type_name, strict), body_offset)

    def write_layout(self, version: int, versions: Versions, type_name: str, keeps_forward: bool) -> int:
        if isinstance(version, bool) or not isinstance(version, int):
            raise EncodeError(f"a version is an integer, not {version!r}", type_name=type_name)
        if versions.low <= version <= versions.high:
            return version
        forward = keeps_forward and self.forward in (ForwardPolicy.CLAMP, ForwardPolicy.RANGES)
        if forward and versions.high < version <= self.max_version:
            return versions.high if self.forward is ForwardPolicy.CLAMP else version
        raise EncodeError(f"version {version} is outside the known versions {versions}", type_name=type_name,
                          version=version)


class Unframed(Framing):
    """No version on the wire: the caller supplies it (or the spec has a single version)."""

    def read(self, buf: bytes, versions: Versions, version: int | None, type_name: str, strict: bool) -> Header:
        if version is None:
            if versions.low != versions.high:
                raise DecodeError(f"the version is not on the wire; pass one of {versions}", type_name=type_name)
            version = versions.low
        return _header(version, self.layout_for(version, versions, type_name, strict), 0)

    def write(self, out: bytearray, version: int) -> None:
        return None


class Int16Prefixed(Framing):
    """An int16 version, then the body."""

    def read(self, buf: bytes, versions: Versions, version: int | None, type_name: str, strict: bool) -> Header:
        if len(buf) < 2:
            raise DecodeError(f"needs a 2-byte version, got {len(buf)} bytes", type_name=type_name, offset=0)
        wire = buf[0] << 8 | buf[1]
        if wire & 0x8000:
            raise DecodeError(f"unsupported version {wire - 0x10000}", type_name=type_name, version=wire - 0x10000,
                              offset=0)
        if versions.low <= wire <= versions.high and (version is None or version == wire):
            return _header(wire, wire, 2)  # the common case without a call: this is every bulk decode's path
        return self.found(wire, 2, versions, version, type_name, strict)

    def write(self, out: bytearray, version: int) -> None:
        out += version.to_bytes(2, "big", signed=True)

    def emit_read(self, em: Any, versions: Versions, version: int | None, type_name: str, strict: bool) -> None:
        """The common case inline (a known version), anything else through :meth:`read`."""
        em.line("if blen < 2: raise _Bad('header')", "wv = buf[0] << 8 | buf[1]")
        asked = "" if version is None else f" and wv == {version}"
        with em.block(f"if {versions.low} <= wv <= {versions.high}{asked}:"):
            em.line("lv = wv; pos = 2")
        with em.block("else:"):
            super().emit_read(em, versions, version, type_name, strict)


@dataclass(frozen=True)
class Companion:
    """A body field that travels right after the leading version (KIP-268 version probing).

    ``since``: the first version that has it; ``at_least_version``: Kafka refuses a value below the version
    it accompanies (a Streams subscription's latestSupportedVersion).
    """

    json_name: str
    since: int
    at_least_version: bool = False
    kind: str = "int32"


class LeadingVersion(Framing):
    """The version is the first field of the body: Kafka Streams' int32, the metadata log's uvarint frame version.

    Reading peeks at it and leaves the body to read it again as its ``field``; the framing supplies that
    field's construct (:class:`~kafka_meta.wire.checked.LayoutVersion`, which writes the version being
    encoded), so the framing writes nothing itself. ``companions`` are the fields that follow the version in
    version probing: with ``ForwardPolicy.PROBE`` a newer version is read only as far as them.
    """

    probing = True
    owns_body_field = True

    def __init__(self, kind: str, field: str, forward: ForwardPolicy, companions: Sequence[Companion] = ()) -> None:
        if kind != "uvarint" and kind not in FIXED:
            raise ValueError(f"a version cannot be a {kind}")
        self.kind = kind
        self.field = field
        self.forward = forward
        self.companions = tuple(companions)
        self.max_version = number_bounds(kind)[1]

    def read(self, buf: bytes, versions: Versions, version: int | None, type_name: str, strict: bool) -> Header:
        wire, _ = read_number(self.kind, buf, 0, self.field, type_name)
        return self.found(wire, 0, versions, version, type_name, strict)

    def write(self, out: bytearray, version: int) -> None:
        return None  # the body's own version field writes it

    def field_construct(self, json_name: str, version: int) -> Any | None:
        if json_name == self.field:
            return LayoutVersion(self.kind, version)
        for c in self.companions:
            if c.json_name == json_name and c.at_least_version and version >= c.since:
                return Bounded(c.kind, version, number_bounds(c.kind)[1], self._rule(c, version))
        return None

    def _rule(self, c: Companion, version: int) -> str:
        return f"Kafka refuses a {c.json_name} below the version it accompanies ({version})"

    # ---------------------------------------------------------------- version probing
    def read_probe(self, buf: bytes, wire: int, type_name: str) -> tuple[list[int], int]:
        """The companions of a version newer than known, and where they end."""
        _, pos = read_number(self.kind, buf, 0, self.field, type_name)
        values = []
        for c in self.companions:
            if wire < c.since:
                continue
            start = pos
            value, pos = read_number(c.kind, buf, pos, c.json_name, type_name, wire)
            if c.at_least_version and value < wire:
                raise DecodeError(f"{value} is below {wire}: {self._rule(c, wire)}", type_name=type_name,
                                  version=wire, path=c.json_name, offset=start)
            values.append(value)
        return values, pos

    def write_probe(self, out: bytearray, version: int, values: Sequence[int]) -> None:
        present = [c for c in self.companions if version >= c.since]
        if len(present) != len(values):
            raise EncodeError(f"version {version} carries {len(present)} companion fields, got {len(values)}")
        write_number(out, self.kind, version, self.field)
        for c, value in zip(present, values, strict=True):
            write_number(out, c.kind, value, c.json_name)


def read_number(kind: str, buf: bytes, pos: int, what: str, type_name: str,
                version: int | None = None) -> tuple[int, int]:
    """A framing number (fixed-width or uvarint) at ``pos``, and the position after it (``version``: the
    message's, once known, for the error)."""
    if kind == "uvarint":
        try:
            return uvarint_tail(buf, pos)
        except IndexError:
            raise DecodeError(f"input ends inside {what}, an unsigned varint", type_name=type_name, version=version,
                              path=what, offset=pos) from None
        except Fault as e:
            raise DecodeError(f"{e.reason} ({what})", type_name=type_name, version=version, path=what,
                              offset=pos) from None
    codec = FIXED[kind]
    if len(buf) < pos + codec.size:
        raise DecodeError(f"input ends inside {what}: needs {codec.size} bytes, {max(len(buf) - pos, 0)} left",
                          type_name=type_name, version=version, path=what, offset=pos)
    return codec.unpack_from(buf, pos)[0], pos + codec.size


def write_number(out: bytearray, kind: str, value: int, what: str) -> None:
    low, high = number_bounds(kind)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EncodeError(f"{what} {value!r} does not fit in {kind}")
    out += uvarint_bytes(value) if kind == "uvarint" else FIXED[kind].pack(value)


class RecordTypePrefixed(Framing):
    """A ``__consumer_offsets`` key: an int16 record type (the spec's apiKey), then the key body, which
    has a single layout (version 0; the 2024 specs numbered it after the record type instead)."""

    def __init__(self, record_type: int) -> None:
        self.record_type = record_type

    def read(self, buf: bytes, versions: Versions, version: int | None, type_name: str, strict: bool) -> Header:
        if len(buf) < 2:
            raise DecodeError(f"needs a 2-byte record type, got {len(buf)} bytes", type_name=type_name, offset=0)
        found = int.from_bytes(buf[:2], "big", signed=True)
        if found != self.record_type:
            raise DecodeError(f"the key is of record type {found}, not {self.record_type}", type_name=type_name,
                              offset=0)
        return _header(versions.low, versions.low, 2)

    def emit_read(self, em: Any, versions: Versions, version: int | None, type_name: str, strict: bool) -> None:
        """The common case inline (a key of this record type), anything else through :meth:`read`."""
        if -0x8000 <= self.record_type <= 0x7FFF:
            with em.block(f"if blen >= 2 and (buf[0] << 8 | buf[1]) == {self.record_type & 0xFFFF}:"):
                em.line(f"wv = lv = {versions.low}; pos = 2")
            with em.block("else:"):
                super().emit_read(em, versions, version, type_name, strict)
        else:
            super().emit_read(em, versions, version, type_name, strict)

    def write(self, out: bytearray, version: int) -> None:
        out += self.record_type.to_bytes(2, "big", signed=True)

