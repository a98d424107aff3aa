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
from typing import Any, TypeVar

from kafka_meta.codec.format import SpecFormat, as_bytes
from kafka_meta.codec.framing import Header
from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.models.base import Message
from kafka_meta.models.factory import to_plain
from kafka_meta.wire.codegen import ValueMode

T = TypeVar("T")

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

    # the face every format shares: a variant format's header and body decoder are its primary layout's
    # (the first variant); trying the others is the strategy behind decode, decode_plain and encode
    @property
    def primary(self) -> Variant:
        return self.variants[0]

    def header(self, buf: bytes, version: int | None = None, strict: bool = False) -> Header:
        return self.primary.format.header(buf, self._version(self.primary, version), strict)

    def body_decoder(self, layout: int, mode: ValueMode, strict: bool = False) -> Callable:
        return self.primary.format.body_decoder(layout, mode, strict)

    def decode(self, data: bytes, version: int | None = None, strict: bool = False,
               variant: str | None = None) -> Message:
        buf = as_bytes(data, self.name)

        def attempt(v: Variant, explain: bool) -> tuple[Message, bool]:
            message = v.format.decode(buf, self._version(v, version), strict, explain)
            return message, not message.unknown_trailing

        try:
            label, message = self._first_fit(variant, attempt)
        except DecodeError as e:
            if self.fallback is None or strict or variant is not None:
                raise
            return _mark(self.fallback(self, buf), UNREADABLE, str(e))
        return _mark(message, label)

    def decode_plain(self, data: bytes, version: int | None = None, strict: bool = False,
                     variant: str | None = None) -> tuple[Any, int]:
        """The bulk path, variant by variant as :meth:`decode` (bytes no variant reads fall back to typed
        decoding, which knows Kafka's substitute)."""
        value, wire, _ = self.read_plain(data, version, strict, variant=variant)
        return value, wire

    def read_plain(self, data: bytes, version: int | None = None, strict: bool = False, explain: bool = True,
                   variant: str | None = None) -> tuple[Any, int, int]:
        """:meth:`decode_plain`, also saying how many bytes followed the body (of the variant that read it)."""
        buf = as_bytes(data, self.name)

        def attempt(v: Variant, explain: bool) -> tuple[tuple[Any, int, int], bool]:
            value, wire, trailing = v.format.read_plain(buf, self._version(v, version), strict, explain)
            return (value, wire, trailing), not trailing

        try:
            return self._first_fit(variant, attempt)[1]
        except DecodeError:
            if self.fallback is None or strict or variant is not None:
                raise
        message = self.decode(buf, version, strict)
        return to_plain(message), message.version, len(message.unknown_trailing)

    @staticmethod
    def _version(v: Variant, version: int | None) -> int | None:
        return v.version if v.version is not None else version

    def _first_fit(self, variant: str | None, attempt: Callable[[Variant, bool], tuple[T, bool]]) -> tuple[str, T]:
        """The first variant that reads the bytes exactly, else the first that reads them at all; raises the
        first variant's error, explained, when none does (misses are not explained: that re-reads the bytes)."""
        candidates = [v for v in self.variants if variant is None or v.label == variant]
        if not candidates:
            raise DecodeError(f"no variant {variant!r}; known: {', '.join(self.labels)}", type_name=self.name)
        loose: tuple[str, T] | None = None
        for v in candidates:
            try:
                result, exact = attempt(v, False)
            except DecodeError:
                continue
            if exact:
                return v.label, result
            loose = loose or (v.label, result)
        if loose is not None:
            return loose
        attempt(candidates[0], True)  # raises the explained error
        raise AssertionError(f"{candidates[0].label} read bytes it could not read a moment ago")

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
