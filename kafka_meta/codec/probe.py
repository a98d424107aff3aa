"""Version probing (KIP-268): a message newer than this library knows, read only as far as its version header.

Kafka Streams does this with subscriptions: a leader that meets a version above its own reads the used
version and the sender's latest supported version and nothing else. The result is a
:class:`VersionProbe`, a distinct typed message: its fields are the version and the framing's companion
fields, every byte after them is kept as ``unknown_trailing``, so encoding it reproduces the input exactly.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, Field, create_model

from kafka_meta.codec.framing import Header, LeadingVersion
from kafka_meta.errors import EncodeError
from kafka_meta.models.base import Message
from kafka_meta.models.values import int_type
from kafka_meta.spec.naming import RESERVED, json_name, snake_case


class VersionProbe(Message):
    """A message whose version is newer than any this library knows: only its version header was read.

    ``version`` is the version on the wire; the companion fields (e.g. ``latest_supported_version``) are
    the model's fields; ``unknown_trailing`` holds the unread rest. It can only be written back at its own
    version, byte for byte.
    """

    @property
    def read_forward(self) -> bool:
        return True


class ProbeCodec:
    """Reads and writes the :class:`VersionProbe` of one format."""

    def __init__(self, framing: LeadingVersion, type_name: str, newest: int) -> None:
        self.framing = framing
        self.type_name = type_name
        names = [framing.field] + [c.json_name for c in framing.companions]
        self.fields = [(_py(n), json_name(n)) for n in names]
        kinds = [framing.kind] + [c.kind for c in framing.companions]
        definitions: dict[str, Any] = {
            py: (int_type(kind if kind != "uvarint" else "uint32"),
                 Field(default=-1 if i else 0, serialization_alias=js, validation_alias=AliasChoices(js, py)))
            for i, ((py, js), kind) in enumerate(zip(self.fields, kinds, strict=True))
        }
        model = create_model(f"{type_name}VersionProbe", __base__=VersionProbe, __module__="kafka_meta.models",
                             **definitions)
        model.kafka_type = type_name
        model.newest_version = newest
        model.__doc__ = f"A {type_name} newer than version {newest}, read only as far as its version header."
        self.model: type[VersionProbe] = model

    def plain(self, buf: bytes, header: Header) -> tuple[dict[str, Any], int]:
        values, end = self.framing.read_probe(buf, header.wire_version, self.type_name)
        present = self.fields[: 1 + len(values)]
        out = dict(zip((py for py, _ in present), [header.wire_version, *values], strict=True))
        for py, _ in self.fields[len(present):]:
            out[py] = -1
        return out, end

    def decode(self, buf: bytes, header: Header) -> VersionProbe:
        values, end = self.plain(buf, header)
        message = self.model.model_construct(**values)
        message.version = header.wire_version
        message.__pydantic_private__["_trailing"] = buf[end:]  # type: ignore[index]
        return message

    def encode(self, message: VersionProbe, version: int | None) -> bytes:
        own = message.version
        if own is None or (version is not None and version != own):
            raise EncodeError(f"a version-probing message can only be written at its own version ({own})",
                              type_name=self.type_name, version=version)
        out = bytearray()
        present = [py for py, _ in self.fields[1:]][: len([c for c in self.framing.companions if own >= c.since])]
        self.framing.write_probe(out, own, [getattr(message, py) for py in present])
        out += message.unknown_trailing
        return bytes(out)


def _py(name: str) -> str:
    py = snake_case(name)
    return py + "_" if py in RESERVED else py
