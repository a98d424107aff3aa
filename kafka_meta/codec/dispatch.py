"""A message body chosen by values read before it: the metadata log's record, by apiKey and version.

:class:`Dispatch` reads the key and the version bound by earlier constructs
(:mod:`kafka_meta.wire.bindings`), looks the key up among registered formats and reads (or writes) that
format's body at that version with the format's own codecs: the generated fast path calls the inner
format's generated codec, the interpreted reader its construct tree, so errors inside the inner message
still name its field path and byte offset.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kafka_meta.errors import DecodeError
from kafka_meta.wire.bindings import bound
from kafka_meta.wire.errors import Fault
from kafka_meta.wire.primitives import KafkaConstruct

if TYPE_CHECKING:
    from kafka_meta.codec.format import MessageFormat


MAX_REMEMBERED = 1024  # (key, version) pairs whose inner decoder a dispatch keeps at hand


class Dispatch(KafkaConstruct):
    """The body of whichever format ``formats()[key]`` is, at ``version`` (both bound earlier)."""

    shown = ("key", "version")

    def __init__(self, key: str, version: str, formats: Callable[[], Mapping[int, MessageFormat]],
                 what: str = "key") -> None:
        super().__init__()
        self.key = key
        self.version = version
        self.reads = (key, version)
        self._formats = formats
        self.what = what
        self.remembered: list[dict[tuple[int, int], Callable]] = []  # each generated decoder's (key, version) table

    def formats(self) -> Mapping[int, MessageFormat]:
        return self._formats()

    def choices(self) -> list[tuple[int, int]]:
        """Every (key, version) this dispatch can read."""
        return [(k, v) for k, fmt in sorted(self.formats().items()) for v in fmt.versions]

    def _select(self, key: int, version: int, strict: bool) -> tuple[MessageFormat, int]:
        fmt = self.formats().get(key)
        if fmt is None:
            known = ", ".join(f"{k} ({f.name})" for k, f in sorted(self.formats().items()))
            raise LookupError(f"unknown {self.what} {key} (known: {known or 'none'})")
        try:
            layout = fmt.layout_for(version, strict)
        except DecodeError as e:
            raise LookupError(f"{fmt.name}: {e.reason}") from None
        if layout is None:
            raise LookupError(f"{fmt.name} cannot read version {version}")
        return fmt, layout

    # ---------------------------------------------------------------- interpreted
    def _parse(self, stream: Any, context: Any, path: str) -> Any:
        start = stream.tell()
        try:
            fmt, layout = self._select(bound(context, self.key), bound(context, self.version),
                                       bool(context.get("_strict")))
        except LookupError as e:
            raise Fault(str(e.args[0]), start) from None
        return fmt.construct(layout)._parse(stream, context, path)

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        try:
            fmt, layout = self._select(bound(context, self.key), bound(context, self.version), False)
        except LookupError as e:
            raise Fault(str(e.args[0])) from None
        return fmt.construct(layout)._build(obj, stream, context, path)

    # ---------------------------------------------------------------- generated
    def _decoder(self, mode: Any, strict: bool) -> Callable:
        """The inner decoder per (key, version), looked up once and kept until the format table changes."""
        select = self._select
        typed = mode.name == "typed"
        decoders: dict[tuple[int, int], Callable] = {}
        self.remembered.append(decoders)
        seen: list[Mapping[int, MessageFormat] | None] = [None]

        def decode(key: int, version: int, buf: bytes, pos: int, blen: int) -> tuple[Any, int]:
            table = self.formats()
            if table is not seen[0]:
                decoders.clear()
                seen[0] = table
            fn = decoders.get((key, version))
            if fn is None:
                try:
                    fmt, layout = select(key, version, strict)
                except LookupError:
                    raise Fault("unknown") from None
                fn = mode.inner_decoder(fmt, layout, strict)
                if len(decoders) < MAX_REMEMBERED:  # keys and versions come from the input: keep a bounded few
                    decoders[key, version] = fn
            value, end = fn(buf, pos, blen)
            if typed:
                value.__pydantic_private__["_version"] = version
            return value, end

        return decode

    def _encoder(self, typed: bool) -> Callable:
        select = self._select

        def encode(key: int, version: int, value: Any, out: bytearray) -> None:
            try:
                fmt, layout = select(key, version, False)
            except LookupError:
                raise Fault("unknown") from None
            if typed and getattr(type(value), "kafka_type", None) != fmt.name:
                raise Fault("the record does not match its key")
            fmt.encoder(layout, typed)(value, out)

        return encode

    def emit_decode(self, em: Any, target: str) -> None:
        fn = em.const(self._decoder(em.mode, em.strict), "_dispd")
        em.line(f"{target}, pos = {fn}({em.bound(self.key)}, {em.bound(self.version)}, buf, pos, blen)")

    def emit_encode(self, em: Any, expr: str) -> None:
        fn = em.const(self._encoder(em.mode.name == "typed"), "_dispe")
        em.line(f"{fn}({em.bound(self.key)}, {em.bound(self.version)}, {expr}, {em.out})")
