"""Types Kafka wrote in more than one way without saying which: named variants tried in order.

Kafka changed some layouts without a version bump (share-group records before their release), kept
retired record types in old logs, and clients disagree on framing (kafka-python prefixes sticky user
data with a version, Java does not). A :class:`VariantFormat` holds each layout as a named
:class:`Variant` and reads bytes with the first one they fit exactly; failing that, with the first one
that reads them at all (the rest kept as ``unknown_trailing``, as Java's readers ignore it); failing that,
with a *fallback* when Kafka itself substitutes a default for unreadable bytes. The message records the
variant (``message.variant``), writing uses it again, and callers can force one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafka_meta.codec.format import SpecFormat
from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.models.base import Message

UNREADABLE = "unreadable"


@dataclass(frozen=True)
class Variant:
    label: str
    format: SpecFormat
    version: int | None = None  # the version to read at, for formats that do not carry it


def _mark(message: Message, label: str, problem: str | None = None) -> Message:
    private = message.__pydantic_private__
    private["_variant"] = label  # type: ignore[index]
    private["_problem"] = problem  # type: ignore[index]
    return message


class VariantFormat:
    """A type read with several layouts; see the module docstring for the order of attempts."""

    def __init__(self, name: str, variants: list[Variant], family: str = "",
                 fallback: Callable[[VariantFormat, bytes], Message] | None = None) -> None:
        if not variants:
            raise ValueError("a variant format needs at least one variant")
        self.name = name
        self.variants = variants
        self.family = family
        self.fallback = fallback

    @property
    def labels(self) -> list[str]:
        return list(dict.fromkeys(v.label for v in self.variants))

    @property
    def model(self) -> type[Message]:
        return self.variants[0].format.model

    @property
    def versions(self) -> Any:
        return self.variants[0].format.versions

    def decode(self, data: bytes, version: int | None = None, strict: bool = False,
               variant: str | None = None) -> Message:
        candidates = [v for v in self.variants if variant is None or v.label == variant]
        if not candidates:
            raise DecodeError(f"no variant {variant!r}; known: {', '.join(self.labels)}", type_name=self.name)
        first_error: DecodeError | None = None
        loose: tuple[Variant, Message] | None = None
        for v in candidates:
            try:
                message = v.format.decode(data, version=v.version if v.version is not None else version,
                                          strict=strict)
            except DecodeError as e:
                first_error = first_error or e
                continue
            if not message.unknown_trailing:
                return _mark(message, v.label)
            loose = loose or (v, message)
        if loose is not None:
            return _mark(loose[1], loose[0].label)
        assert first_error is not None
        if self.fallback is not None and not strict and variant is None:
            return _mark(self.fallback(self, bytes(data)), UNREADABLE, str(first_error))
        raise first_error

    def variant_for(self, message: Message, version: int | None = None) -> Variant:
        label = message.variant
        for v in self.variants:
            if type(message) is v.format.model and (label is None or v.label == label) and (
                    v.version is None or version is None or v.version == version):
                return v
        raise EncodeError(f"a {type(message).__qualname__} (variant {label}) cannot be encoded as {self.name}",
                          type_name=self.name)

    def encode(self, message: Message, version: int | None = None) -> bytes:
        if message.variant == UNREADABLE:  # bytes Kafka could not read either: written back as they were
            return message.unknown_trailing
        v = self.variant_for(message, version)
        if v.version is not None and version is None:
            version = message.version if message.version is not None else v.version
        return v.format.encode(message, version)
