"""The one face of every registered format, whatever stands behind it.

A format reads its header (:meth:`Format.header`: the version on the wire, the layout that reads it, where
the body starts) and has a generated body decoder per layout and value mode (:meth:`Format.body_decoder`);
decoding, bulk decoding and encoding are built on those. What differs between formats is a strategy
behind this face, never a different face: a message spec or a hand declaration supplies the layouts
(:class:`~kafka_meta.codec.format.MessageFormat`); Kafka's version probing reads a newer version only as
far as its header (:class:`~kafka_meta.codec.probe.ProbeCodec`, chosen when the header has no layout);
a type Kafka wrote in several ways tries its variants in order
(:class:`~kafka_meta.codec.variants.VariantFormat`, whose header and body decoder are its primary
layout's); a body chosen by values read before it is a construct of the layout
(:class:`~kafka_meta.codec.dispatch.Dispatch`). So callers use the face and never test which kind of
format they hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from kafka_meta.codec.framing import Header
from kafka_meta.models.base import Message
from kafka_meta.spec.versions import Versions
from kafka_meta.wire.codegen import ValueMode


@runtime_checkable
class Format(Protocol):
    name: str
    family: str

    @property
    def versions(self) -> Versions: ...

    @property
    def model(self) -> type[Message]: ...

    def header(self, buf: bytes, version: int | None = None, strict: bool = False) -> Header:
        """How the version travels: read it (and where the body starts) from ``buf``."""
        ...

    def body_decoder(self, layout: int, mode: ValueMode, strict: bool = False) -> Callable:
        """The generated ``fn(buf, pos, blen) -> (value, end)`` reading the body of ``layout`` in ``mode``."""
        ...

    def decode(self, data: bytes, version: int | None = None, strict: bool = False) -> Any: ...

    def decode_plain(self, data: bytes, version: int | None = None, strict: bool = False) -> tuple[Any, int]: ...

    def read_plain(self, data: bytes, version: int | None = None, strict: bool = False,
                   explain: bool = True) -> tuple[Any, int, int]:
        """:meth:`decode_plain`, also saying how many bytes followed the body."""
        ...

    def encode(self, message: Any, version: int | None = None) -> bytes: ...
