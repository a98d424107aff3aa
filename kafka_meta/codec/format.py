"""A message format: one spec, its framing, and compiled codecs for each version and value mode.

Codecs are generated on first use and cached, per (layout version, mode, strictness). The fast path
raises bare exceptions; :meth:`SpecFormat.decode_body` then re-reads with the interpreted constructs to
report a :class:`~kafka_meta.errors.DecodeError` with the field path and byte offset.
"""

from __future__ import annotations

from collections.abc import Callable
from io import BytesIO
from typing import Any

from construct import Container

from kafka_meta.codec.builder import SpecBuilder
from kafka_meta.codec.framing import Framing, Header
from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.models.base import Message
from kafka_meta.models.factory import ModelSet, TypedMode, to_plain
from kafka_meta.spec.model import MessageSpec
from kafka_meta.spec.versions import Versions
from kafka_meta.wire.codegen import PLAIN, compile_decoder, compile_encoder
from kafka_meta.wire.composite import KStruct
from kafka_meta.wire.errors import BuildError, WireError


class SpecFormat:
    """A registered type described by a message spec."""

    def __init__(self, spec: MessageSpec, framing: Framing, name: str | None = None, family: str = "",
                 model_base: type[Message] = Message) -> None:
        self.spec = spec
        self.model_base = model_base
        self.framing = framing
        self.name = name or spec.name
        self.family = family
        self.builder = SpecBuilder(spec)
        self._models: ModelSet | None = None
        self._typed: TypedMode | None = None
        # compiled codecs by layout version, one table per (direction, mode, strictness)
        self._codecs: dict[tuple[str, bool, bool], dict[int, Callable]] = {}
        self._plain = self._table("d", False, False)  # the bulk path's table, looked up on every call
        self._typed_table = self._table("d", True, False)

    # ------------------------------------------------------------------ descriptive
    @property
    def versions(self) -> Versions:
        return self.spec.valid_versions

    @property
    def newest(self) -> int:
        return self.spec.valid_versions.high

    @property
    def models(self) -> ModelSet:
        if self._models is None:
            self._models = ModelSet(self.spec, kafka_type=self.name, root_base=self.model_base)
            self._typed = TypedMode(self._models)
        return self._models

    @property
    def model(self) -> type[Message]:
        return self.models.root

    def construct(self, version: int) -> KStruct:
        """The declarative construct reading the body at ``version`` (a layout version)."""
        return self.builder.build(version)

    # ------------------------------------------------------------------ codecs
    def _mode(self, typed: bool) -> Any:
        if not typed:
            return PLAIN
        self.models  # noqa: B018 - builds the typed mode
        return self._typed

    def with_framing(self, framing: Framing, name: str | None = None) -> SpecFormat:
        """The same messages framed differently (e.g. with and without a version prefix): shares the models
        and compiled codecs, which only depend on the body."""
        twin = SpecFormat.__new__(SpecFormat)
        twin.__dict__.update(self.__dict__)
        twin.framing = framing
        twin.name = name or self.name
        self.models  # noqa: B018 - build once, shared by both
        twin._models, twin._typed = self._models, self._typed
        return twin

    def _table(self, direction: str, typed: bool, strict: bool) -> dict[int, Callable]:
        return self._codecs.setdefault((direction, typed, strict), {})

    def decoder(self, version: int, typed: bool, strict: bool = False) -> Callable:
        table = self._table("d", typed, strict)
        fn = table.get(version)
        if fn is None:
            fn = compile_decoder(self.construct(version), self._mode(typed), strict, f"{self.name} v{version}")
            table[version] = fn
        return fn

    def encoder(self, version: int, typed: bool) -> Callable:
        table = self._table("e", typed, False)
        fn = table.get(version)
        if fn is None:
            fn = compile_encoder(self.construct(version), self._mode(typed), f"{self.name} v{version}")
            table[version] = fn
        return fn

    # ------------------------------------------------------------------ reading
    def header(self, buf: bytes, version: int | None = None, strict: bool = False) -> Header:
        return self.framing.read(buf, self.versions, version, self.name, strict)

    def decode_body(self, buf: bytes, header: Header, typed: bool, strict: bool) -> tuple[Any, int]:
        fn = None if strict else (self._typed_table if typed else self._plain).get(header[1])
        if fn is None:
            fn = self.decoder(header.layout_version, typed, strict)
        try:
            return fn(buf, header.body_offset, len(buf))
        except Exception as exc:  # noqa: BLE001 - any fast-path failure is explained by the reference reader
            raise self.explain_decode(buf, header, strict, exc) from None

    def explain_decode(self, buf: bytes, header: Header, strict: bool, exc: BaseException) -> DecodeError:
        stream = BytesIO(buf)
        stream.seek(header.body_offset)
        try:
            self.construct(header.layout_version)._parse(stream, Container(_strict=strict), "(parsing)")
        except WireError as e:
            return DecodeError(e.reason, type_name=self.name, version=header.wire_version, path=e.field_path,
                               offset=e.offset)
        except Exception as e:  # noqa: BLE001 - reported, never escapes
            return DecodeError(f"unreadable ({type(e).__name__}: {e})", type_name=self.name,
                               version=header.wire_version, offset=stream.tell())
        return DecodeError(f"internal error: the fast reader failed ({exc!r}) where the reference reader did not",
                           type_name=self.name, version=header.wire_version)

    def decode(self, data: bytes, version: int | None = None, strict: bool = False) -> Message:
        buf = data if type(data) is bytes else _as_bytes(data, self.name)
        header = self.framing.read(buf, self.spec.valid_versions, version, self.name, strict)
        message, end = self.decode_body(buf, header, True, strict)
        tail = buf[end:]
        if tail and strict:
            raise DecodeError(f"{len(tail)} bytes follow the last field (strict reading)", type_name=self.name,
                              version=header.wire_version, offset=end)
        private = message.__pydantic_private__
        private["_version"] = header.wire_version
        private["_trailing"] = tail
        return message

    def decode_plain(self, data: bytes, version: int | None = None, strict: bool = False) -> tuple[Any, int]:
        """The bulk path: plain Python values (dicts, lists, uuid bytes) and the wire version."""
        buf = data if type(data) is bytes else _as_bytes(data, self.name)
        header = self.framing.read(buf, self.spec.valid_versions, version, self.name, strict)
        value, end = self.decode_body(buf, header, False, strict)
        if strict and end != len(buf):
            raise DecodeError(f"{len(buf) - end} bytes follow the last field (strict reading)", type_name=self.name,
                              version=header.wire_version, offset=end)
        return value, header.wire_version

    # ------------------------------------------------------------------ writing
    def encode(self, message: Any, version: int | None = None) -> bytes:
        """Encode a model of this format (or plain values) at ``version`` (default: the message's own
        version, else the newest)."""
        typed = isinstance(message, Message)
        if typed and type(message) is not (self._models or self.models).root:
            raise EncodeError(f"a {type(message).__qualname__} cannot be encoded as {self.name}", type_name=self.name)
        own = message.version if typed else None
        if version is None:
            version = own if own is not None else self.newest
        layout = self.framing.write_layout(version, self.versions, self.name, keeps_forward=version == own)
        out = bytearray()
        self.framing.write(out, version)
        fn = self.encoder(layout, typed)
        try:
            fn(message, out)
        except Exception as exc:  # noqa: BLE001 - explained by the interpreted builder
            raise self.explain_encode(message, layout, version, exc) from None
        if typed and version == own:
            out += message.unknown_trailing
        return bytes(out)

    def explain_encode(self, message: Any, layout: int, version: int, exc: BaseException) -> EncodeError:
        plain = to_plain(message)
        try:
            self.construct(layout)._build(plain, BytesIO(), Container(), "(building)")
        except BuildError as e:
            return EncodeError(e.reason, type_name=self.name, version=version, path=e.field_path)
        except Exception as e:  # noqa: BLE001
            return EncodeError(f"cannot encode ({type(e).__name__}: {e})", type_name=self.name, version=version)
        return EncodeError(f"cannot encode ({type(exc).__name__}: {exc})", type_name=self.name, version=version)


def _as_bytes(data: Any, type_name: str) -> bytes:
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    raise DecodeError(f"expected bytes, got {type(data).__name__}", type_name=type_name)
