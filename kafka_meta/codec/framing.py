"""How a message's version travels with its body, and what a reader does with versions it does not know.

* :class:`Unframed`: the body alone; the caller knows the version (a spec with one version needs none).
* :class:`Int16Prefixed`: an int16 version, then the body (consumer protocol, ``__consumer_offsets`` values).
  Versions above the newest are handled by a :class:`ForwardPolicy`:

  - ``CLAMP``: the consumer protocol's rule (``ConsumerProtocol.checkSubscriptionVersion``): read with the
    newest layout, ignore what follows;
  - ``RANGES``: Kafka's generated readers, every field range evaluated at the wire version (KIP-915 reading
    of ``__consumer_offsets`` values);
  - ``REFUSE``: a newer version is an error.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.spec.versions import Versions


class ForwardPolicy(enum.Enum):
    CLAMP = "clamp"
    RANGES = "ranges"
    REFUSE = "refuse"


class Header(NamedTuple):
    """What the framing says: the version on the wire, the layout that reads it, where the body starts.

    Built with ``tuple.__new__`` on the hot path (a NamedTuple's own constructor costs more than the
    rest of the framing).
    """

    wire_version: int
    layout_version: int
    body_offset: int


def _header(wire: int, layout: int, offset: int) -> Header:
    return _tuple_new(Header, (wire, layout, offset))


_tuple_new = tuple.__new__


class Framing:
    """Base: reads and writes the version framing around a body."""

    forward = ForwardPolicy.REFUSE

    def read(self, buf: bytes, versions: Versions, version: int | None, type_name: str, strict: bool) -> Header:
        raise NotImplementedError

    def write(self, out: bytearray, version: int) -> None:
        raise NotImplementedError

    def layout_for(self, version: int, versions: Versions, type_name: str, strict: bool = False) -> int:
        """The layout that reads (or writes) ``version``, applying the forward policy."""
        if version < versions.low:
            raise DecodeError(f"unsupported version {version} (lowest is {versions.low})", type_name=type_name,
                              version=version, offset=0)
        if version <= versions.high:
            return version
        if strict or self.forward is ForwardPolicy.REFUSE:
            raise DecodeError(f"version {version} is newer than the newest known ({versions.high})",
                              type_name=type_name, version=version, offset=0)
        return versions.high if self.forward is ForwardPolicy.CLAMP else version

    def write_layout(self, version: int, versions: Versions, type_name: str, keeps_forward: bool) -> int:
        if versions.low <= version <= versions.high:
            return version
        if version > versions.high and keeps_forward and self.forward is not ForwardPolicy.REFUSE:
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
    def __init__(self, forward: ForwardPolicy) -> None:
        self.forward = forward

    def read(self, buf: bytes, versions: Versions, version: int | None, type_name: str, strict: bool) -> Header:
        if len(buf) < 2:
            raise DecodeError(f"needs a 2-byte version, got {len(buf)} bytes", type_name=type_name, offset=0)
        wire = buf[0] << 8 | buf[1]
        if wire & 0x8000:
            raise DecodeError(f"unsupported version {wire - 0x10000}", type_name=type_name, version=wire - 0x10000,
                              offset=0)
        if version is not None and version != wire:
            raise DecodeError(f"the bytes carry version {wire}, not {version}", type_name=type_name, offset=0)
        if versions.low <= wire <= versions.high:
            return _header(wire, wire, 2)
        return _header(wire, self.layout_for(wire, versions, type_name, strict), 2)

    def write(self, out: bytearray, version: int) -> None:
        out += version.to_bytes(2, "big", signed=True)


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

    def write(self, out: bytearray, version: int) -> None:
        out += self.record_type.to_bytes(2, "big", signed=True)

