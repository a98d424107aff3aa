"""The public entry points: decode, encode and list types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafka_meta.codec.registry import Format, register_spec_files
from kafka_meta.errors import EncodeError
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.models.base import Message


def types() -> list[str]:
    """The names of every type :func:`decode` understands."""
    return REGISTRY.names()


def get_format(type_name: str) -> Format:
    return REGISTRY.get(type_name)


def model(type_name: str) -> type[Message]:
    """The pydantic model class of a type, for building messages to encode."""
    fmt = REGISTRY.get(type_name)
    return fmt.model  # type: ignore[attr-defined, no-any-return]


def decode(type_name: str, data: bytes, *, version: int | None = None, strict: bool = False) -> Any:
    """Decode ``data`` as ``type_name`` into a typed message (a pydantic model with ``.version``).

    ``version`` is needed only for types whose version is not on the wire. ``strict`` refuses what
    Kafka's readers tolerate: versions newer than known, unknown tagged fields, trailing bytes.
    Raises :class:`~kafka_meta.errors.DecodeError` for anything unreadable.
    """
    # find, then get for what it does not hold: one Python call less on every decode; positional: the cheaper call
    return (REGISTRY.find(type_name) or REGISTRY.get(type_name)).decode(data, version, strict)


def decode_plain(type_name: str, data: bytes, *, version: int | None = None, strict: bool = False) -> tuple[Any, int]:
    """The bulk path: plain Python values (dicts and lists) and the wire version, without models."""
    return (REGISTRY.find(type_name) or REGISTRY.get(type_name)).decode_plain(data, version, strict)


def encode(message: Any, version: int | None = None, *, type_name: str | None = None) -> bytes:
    """Encode a message at ``version`` (default: the version it was read at, else the newest).

    ``message`` is a model returned by :func:`decode` or built from :func:`model`; plain dicts are
    accepted together with ``type_name``.
    """
    if isinstance(message, Message):
        name = type_name or message.kafka_type
    elif type_name is None:
        raise EncodeError("plain values need type_name= to say what they are")
    else:
        name = type_name
    return REGISTRY.get(name).encode(message, version)


def load_specs(path: str | Path, *, replace: bool = False) -> list[str]:
    """Register message specs from a file or directory (Kafka's own files work); returns the type names."""
    return register_spec_files(REGISTRY, path, replace=replace)
