"""A message format: a construct tree per version, its framing, and compiled codecs per version and value mode.

:class:`MessageFormat` is the machinery every format shares; what differs is where the construct trees and
the models come from: a message spec (:class:`SpecFormat`) or a hand declaration
(:class:`~kafka_meta.codec.declared.DeclaredFormat`). Codecs are generated on first use and cached, per
(layout version, mode, strictness). The fast path raises bare exceptions;
:meth:`MessageFormat.decode_body` then re-reads with the interpreted constructs to report a
:class:`~kafka_meta.errors.DecodeError` with the field path and byte offset.
"""

from __future__ import annotations

from collections.abc import Callable
from io import BytesIO
from typing import Any, Protocol

from construct import Container

from kafka_meta.codec.builder import SpecBuilder
from kafka_meta.codec.framing import Framing, Header
from kafka_meta.codec.probe import ProbeCodec
from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.models.base import Message
from kafka_meta.models.factory import ModelSet, TypedMode, to_plain
from kafka_meta.spec.model import MessageSpec
from kafka_meta.spec.versions import Versions
from kafka_meta.wire.codegen import (
    PLAIN,
    CodeWriter,
    DecodeEmitter,
    ValueMode,
    base_namespace,
    compile_decoder,
    compile_encoder,
    load_function,
)
from kafka_meta.wire.composite import KStruct
from kafka_meta.wire.errors import Fault


class Models(Protocol):
    """The model classes of a format: the message (``root``) and one class per struct shape."""

    @property
    def root(self) -> type[Message]: ...

    def class_for(self, struct_name: str) -> type: ...


class MessageFormat:
    """A registered type whose body, at each version, is a tree of kafka_meta constructs.

    Subclasses say where the trees and the models come from (:meth:`construct`, :meth:`make_models`,
    :attr:`versions`); everything else (framing, compiled codecs, typed decoding, precise errors, version
    probing) is shared.
    """

    # False when Kafka's reader refuses bytes after the body (the metadata log); True: kept, and refused only
    # by strict reading
    keeps_trailing = True

    def __init__(self, framing: Framing, name: str, family: str = "", model_base: type[Message] = Message) -> None:
        self.model_base = model_base
        self.framing = framing
        self.name = name
        self.family = family
        self._models: Models | None = None
        self._typed: TypedMode | None = None
        self._probe: ProbeCodec | None = None
        # whole-message decoders (framing and every known body in one function), by (mode, version, strictness)
        self._message_decoders: dict[tuple[str, int | None, bool], Callable] = {}
        # the optimistic whole-message readers of decode and read_plain (see _reader): of the version on the wire,
        # once made, and of the known versions asked for
        self._typed_reader: Callable | None = None
        self._plain_reader: Callable | None = None
        self._typed_readers: dict[int, Callable] = {}
        self._plain_readers: dict[int, Callable] = {}
        # compiled codecs by layout version, one table per (direction, value mode, strictness)
        self._codecs: dict[tuple[str, str, bool], dict[int, Callable]] = {}
        self._plain = self._table("d", PLAIN.name, False)  # the bulk path's table, looked up on every call
        self._typed_table = self._table("d", TypedMode.name, False)

    # ------------------------------------------------------------------ what a subclass provides
    @property
    def versions(self) -> Versions:
        raise NotImplementedError

    def construct(self, version: int) -> KStruct:
        """The declarative construct reading the body at ``version`` (a layout version)."""
        raise NotImplementedError

    def make_models(self) -> Models:
        raise NotImplementedError

    # ------------------------------------------------------------------ descriptive
    @property
    def newest(self) -> int:
        return self.versions.high

    @property
    def models(self) -> Models:
        if self._models is None:
            models = self.make_models()
            self.adopt(models.root)
            self._typed = TypedMode(models)
            self._models = models
        return self._models

    def adopt(self, root: type[Message]) -> None:
        """Give the message class this format's construct trees, which its ``to_json_dict`` follows (the fields a
        version has, which are tagged). A class shared by several formats (a twin with other framing, a
        compatibility check's older reader) keeps the first one's: the one registered for it."""
        if root.__dict__.get("_json_layout") is None:
            root._json_layout = self.json_layout

    def json_layout(self, version: int | None) -> KStruct:
        """The construct tree a message of this format is written with at ``version`` (None: the newest, as
        :meth:`encode` writes it); a version no layout writes raises the EncodeError encoding at it would."""
        if version is None:
            version = self.newest
        layout = self.framing.write_layout(version, self.versions, self.name, keeps_forward=True)
        return self.construct(self.layout_slot(layout))

    @property
    def model(self) -> type[Message]:
        return self.models.root

    @property
    def probe(self) -> ProbeCodec:
        """Reads and writes this format's version-probing messages (framings with a leading version)."""
        if self._probe is None:
            if not self.framing.probing:
                raise TypeError(f"{self.name} has no version-probing header")
            self._probe = ProbeCodec(self.framing, self.name, self.newest)  # type: ignore[arg-type]
        return self._probe

    # ------------------------------------------------------------------ codecs
    def _mode(self, typed: bool) -> Any:
        if not typed:
            return PLAIN
        self.models  # noqa: B018 - builds the typed mode
        return self._typed

    def with_framing(self, framing: Framing, name: str | None = None) -> MessageFormat:
        """The same messages framed differently (e.g. with and without a version prefix): shares the models
        and compiled codecs, which only depend on the body (for framings that own no body field)."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.framing = framing
        twin.name = name or self.name
        self.models  # noqa: B018 - build once, shared by both
        twin._models, twin._typed, twin._probe = self._models, self._typed, None
        twin._message_decoders, twin._typed_readers, twin._plain_readers = {}, {}, {}  # they read the framing
        twin._typed_reader = twin._plain_reader = None
        return twin

    def _table(self, direction: str, mode: str, strict: bool) -> dict[int, Callable]:
        return self._codecs.setdefault((direction, mode, strict), {})

    def decoder(self, version: int, typed: bool, strict: bool = False) -> Callable:
        return self.decoder_in(self._mode(typed), version, strict)

    def body_decoder(self, layout: int, mode: ValueMode, strict: bool = False) -> Callable:
        """The face's body decoder (see :class:`~kafka_meta.codec.face.Format`)."""
        return self.decoder_in(mode, layout, strict)

    def decoder_in(self, mode: ValueMode, version: int, strict: bool = False) -> Callable:
        """The generated ``fn(buf, pos, blen) -> (value, end)`` of layout ``version`` producing ``mode``'s values
        (modes other than plain and typed are how other layers, e.g. Spark rows, get values of their own)."""
        return self._compiled(self._table("d", mode.name, strict), version,
                              lambda tree, slot: compile_decoder(tree, mode, strict, f"{self.name} v{slot}"))

    def encoder(self, version: int, typed: bool) -> Callable:
        return self._compiled(self._table("e", TypedMode.name if typed else PLAIN.name, False), version,
                              lambda tree, slot: compile_encoder(tree, self._mode(typed), f"{self.name} v{slot}"))

    def message_decoder_in(self, mode: ValueMode, version: int | None = None, strict: bool = False) -> Callable:
        """``fn(buf) -> (value, wire version, end)``: the framing (its common case inline, as in batch readers)
        and the body of every known version in one generated function producing ``mode``'s values, for bulk
        readers that call it once per message (a version newer than known goes to its layout's decoder). It
        returns None for a version probe, which has no body to read; bytes that do not fit raise, unexplained
        (:meth:`decode` explains them), and so do bytes after the body where :meth:`refuses_trailing`.
        ``version``: for framings that do not carry it."""
        key = (mode.name, version, strict)
        fn = self._message_decoders.get(key)
        if fn is None:
            fn = self._message_decoders[key] = self._compile_message_decoder(mode, version, strict)
        return fn

    def _compile_message_decoder(self, mode: ValueMode, version: int | None, strict: bool) -> Callable:
        em = DecodeEmitter(base_namespace(strict), mode, strict)
        self._emit_message(em, mode, version, strict)
        source = em.source("def decode_message(buf):", "    return result, wv, pos")
        return load_function(source, em.namespace, "decode_message", f"{mode.name} message decoder {self.name}")

    def _emit_message(self, em: DecodeEmitter, mode: ValueMode, version: int | None, strict: bool) -> None:
        """Source reading the whole message in ``buf`` into ``result``, ``wv`` and ``pos`` (returning None for a
        version probe): the framing, every known body, the trailing rule. A message read by another decoder (a
        version newer than known) gets the emitter's ``message_state`` set afterwards."""
        em.line("blen = len(buf)")
        self.emit_header(em, version, strict)
        keyword = "if"
        for layout in self.versions:
            with em.block(f"{keyword} lv == {layout}:"):
                em.message_root = root = self.construct(layout)
                em.decode(root, "result")
            if em.message_state and em.message_root is root:  # a message without its version: never silently
                raise TypeError(f"{mode.name} values of {self.name} v{layout} do not build the message's state")
            keyword = "elif"
        em.message_root = None
        with em.block("elif lv is None:"):
            em.line("return None")
        with em.block("else:"):
            newer = em.const(lambda layout: self.decoder_in(mode, layout, strict), "_newer")
            em.line(f"result, pos = {newer}(lv)(buf, pos, blen)")
            if em.message_state:
                em.line("private = result.__pydantic_private__")
                em.line(*(f"private[{name!r}] = {expr}" for name, expr in em.message_state.items()))
        em.end_check()
        self.emit_trailing_check(em, strict)

    def _reader(self, typed: bool, version: int | None) -> Callable:
        """The optimistic reader of :meth:`decode` (``typed``) or :meth:`read_plain`: ``fn(buf)`` giving what
        they return for bytes that fit, read leniently, or None (a version probe); it raises for anything else,
        including what lenient reading would still accept (see ``DecodeEmitter``), and then they take the
        careful path, which reads it or explains why not. One per version asked for: None (the version on the
        wire) and the known ones; anything else, such as a newer version, or True (equal to 1 as a key), takes
        the careful path, so no input grows the table."""
        if version is None:
            fn = self._typed_reader if typed else self._plain_reader
            if fn is None:
                fn = self._compile_reader(typed, None)
                if typed:
                    self._typed_reader = fn
                else:
                    self._plain_reader = fn
            return fn
        if type(version) is not int or version not in self.versions:
            return _no_reader
        readers = self._typed_readers if typed else self._plain_readers
        fn = readers.get(version)
        if fn is None:
            fn = readers[version] = self._compile_reader(typed, version)
        return fn

    def _compile_reader(self, typed: bool, version: int | None) -> Callable:
        mode = self._mode(typed)
        em = DecodeEmitter(base_namespace(False), mode, False, optimistic=True)
        if typed:  # the message's private state, as the careful path sets it (the body's end is the final pos)
            em.message_state = {"_version": "wv", "_trailing": "buf[pos:]"}
        self._emit_message(em, mode, version, False)
        footer = "    return result" if typed else "    return result, wv, blen - pos"
        source = em.source("def read(buf):", footer)
        return load_function(source, em.namespace, "read", f"optimistic {mode.name} reader {self.name}")

    def layout_slot(self, layout: int) -> int:
        """Which compiled codecs serve ``layout``: its own, or for every version newer than known one shared
        slot (the first of them: a spec's field ranges evaluate alike at all of them), so the input cannot
        decide how many codecs are generated and kept. A framing whose version is a body field makes each
        version's tree its own."""
        forward = self.versions.high + 1
        return forward if layout > forward and not self.framing.owns_body_field else layout

    def _compiled(self, table: dict[int, Callable], layout: int, compile_tree: Callable) -> Callable:
        slot = self.layout_slot(layout)
        fn = table.get(slot)
        if fn is None:
            fn = compile_tree(self.construct(slot), slot)
            if slot <= self.versions.high + 1:  # the known versions and the shared newer one: bounded by the spec
                table[slot] = fn
        return fn

    # ------------------------------------------------------------------ reading
    def header(self, buf: bytes, version: int | None = None, strict: bool = False) -> Header:
        return self.framing.read(buf, self.versions, version, self.name, strict)

    def layout_for(self, version: int, strict: bool = False) -> int | None:
        """The layout that reads ``version`` when something else carries it (an enclosing frame)."""
        return self.framing.layout_for(version, self.versions, self.name, strict)

    def decode_body(self, buf: bytes, header: Header, typed: bool, strict: bool,
                    explain: bool = True) -> tuple[Any, int]:
        """The body's value and end. ``explain=False`` skips the reference re-read that locates a failure, for
        callers that only need to know whether the bytes fit (trying a type's variants)."""
        fn = None if strict else (self._typed_table if typed else self._plain).get(header[1])
        if fn is None:
            fn = self.decoder(header.layout_version, typed, strict)
        try:
            return fn(buf, header.body_offset, len(buf))
        except Exception as exc:  # noqa: BLE001 - any fast-path failure is explained by the reference reader
            if not explain:
                raise DecodeError("the bytes do not fit this layout", type_name=self.name,
                                  version=header.wire_version) from None
            raise self.explain_decode(buf, header, strict, exc) from None

    def explain_decode(self, buf: bytes, header: Header, strict: bool, exc: BaseException) -> DecodeError:
        stream = BytesIO(buf)
        stream.seek(header.body_offset)
        try:
            self.construct(header.layout_version)._parse(stream, Container(_strict=strict), "(parsing)")
        except Fault as e:
            return DecodeError(e.reason, type_name=self.name, version=header.wire_version, path=e.field_path,
                               offset=stream.tell() if e.offset is None else e.offset)
        except Exception as e:  # noqa: BLE001 - reported, never escapes
            return DecodeError(f"unreadable ({type(e).__name__}: {e})", type_name=self.name,
                               version=header.wire_version, offset=stream.tell())
        return DecodeError(f"internal error: the fast reader failed ({exc!r}) where the reference reader did not",
                           type_name=self.name, version=header.wire_version)

    def _optimistic(self, typed: bool, version: int | None, buf: bytes) -> Any:
        """What the optimistic generated reader (typed or plain) makes of ``buf``: None where it refuses, and
        the careful readers read again (to accept, or to locate the damage)."""
        try:
            newest = self._typed_reader if typed else self._plain_reader
            return ((version is None and newest) or self._reader(typed, version))(buf)
        except Exception:  # noqa: BLE001 - read again by the readers that accept or locate it
            return None

    def decode(self, data: bytes, version: int | None = None, strict: bool = False, explain: bool = True) -> Message:
        """A typed message (see :meth:`decode_body` for ``explain``)."""
        buf = data if type(data) is bytes else as_bytes(data, self.name)
        if not strict:  # the common case in one generated call: framing, body, trailing rule, private state
            message = self._optimistic(True, version, buf)
            if message is not None:
                return message
        header = self.framing.read(buf, self.versions, version, self.name, strict)
        if header.layout_version is None:
            return self.probe.decode(buf, header)
        message, end = self.decode_body(buf, header, True, strict, explain)
        tail = buf[end:]
        if tail and self.refuses_trailing(strict):
            raise self.trailing_error(len(tail), header.wire_version, end, strict)
        private = message.__pydantic_private__
        private["_version"] = header.wire_version
        private["_trailing"] = tail
        return message

    def decode_plain(self, data: bytes, version: int | None = None, strict: bool = False) -> tuple[Any, int]:
        """The bulk path: plain Python values (dicts, lists, uuid bytes) and the wire version."""
        value, wire, _ = self.read_plain(data, version, strict)
        return value, wire

    def read_plain(self, data: bytes, version: int | None = None, strict: bool = False,
                   explain: bool = True) -> tuple[Any, int, int]:
        """:meth:`decode_plain`, also saying how many bytes followed the body (kept, as Kafka's readers do)."""
        buf = data if type(data) is bytes else as_bytes(data, self.name)
        if not strict:  # as in decode: the common case in one generated call
            found = self._optimistic(False, version, buf)
            if found is not None:
                return found
        header = self.framing.read(buf, self.versions, version, self.name, strict)
        if header.layout_version is None:
            value, end = self.probe.plain(buf, header)
            return value, header.wire_version, len(buf) - end
        value, end = self.decode_body(buf, header, False, strict, explain)
        if end != len(buf) and self.refuses_trailing(strict):
            raise self.trailing_error(len(buf) - end, header.wire_version, end, strict)
        return value, header.wire_version, len(buf) - end

    def refuses_trailing(self, strict: bool) -> bool:
        """Whether bytes after the body are an error (every reader of this format asks here)."""
        return strict or not self.keeps_trailing

    def trailing_error(self, count: int, wire_version: int, end: int, strict: bool) -> DecodeError:
        why = "strict reading" if strict or self.keeps_trailing else "Kafka refuses them"
        return DecodeError(f"{count} bytes follow the last field ({why})", type_name=self.name,
                           version=wire_version, offset=end)

    # ------------------------------------------------------------------ pieces of generated batch readers
    def emit_header(self, em: CodeWriter, version: int | None, strict: bool) -> None:
        """Source reading the framing of ``buf`` into ``wv``, ``lv`` and ``pos`` (see ``Framing.emit_read``)."""
        self.framing.emit_read(em, self.versions, version, self.name, strict)

    def emit_trailing_check(self, em: CodeWriter, strict: bool) -> None:
        """Source raising this format's :meth:`trailing_error` when bytes follow the body (at ``pos``) where
        :meth:`refuses_trailing`: the rule every reader of the format applies."""
        if self.refuses_trailing(strict):
            fail = em.const(lambda count, wire, end: self.trailing_error(count, wire, end, strict), "_trailing")
            em.line(f"if pos != blen: raise {fail}(blen - pos, wv, pos)")

    # ------------------------------------------------------------------ writing
    def encode(self, message: Any, version: int | None = None) -> bytes:
        """Encode a model of this format (or plain values) at ``version`` (default: the message's own
        version, else the newest)."""
        typed = isinstance(message, Message)
        probe = self._probe  # a probe's message class exists once the probe does
        if probe is not None and type(message) is probe.model:
            return probe.encode(message, version)
        if typed and type(message) is not (self._models or self.models).root:
            raise EncodeError(f"a {type(message).__qualname__} cannot be encoded as {self.name}", type_name=self.name)
        own = message.version if typed else None
        if version is None:
            version = own if own is not None else self.newest
        layout = self.framing.write_layout(version, self.versions, self.name, keeps_forward=version == own)
        assert layout is not None
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
        except Fault as e:
            return EncodeError(e.reason, type_name=self.name, version=version, path=e.field_path)
        except Exception as e:  # noqa: BLE001
            return EncodeError(f"cannot encode ({type(e).__name__}: {e})", type_name=self.name, version=version)
        return EncodeError(f"cannot encode ({type(exc).__name__}: {exc})", type_name=self.name, version=version)


class SpecFormat(MessageFormat):
    """A registered type described by a message spec."""

    def __init__(self, spec: MessageSpec, framing: Framing, name: str | None = None, family: str = "",
                 model_base: type[Message] = Message) -> None:
        self.spec = spec
        super().__init__(framing, name or spec.name, family, model_base)
        self.builder = SpecBuilder(spec, field_hook=framing.field_construct)

    @property
    def versions(self) -> Versions:
        return self.spec.valid_versions

    def construct(self, version: int) -> KStruct:
        return self.builder.build(version)

    def make_models(self) -> ModelSet:
        return ModelSet(self.spec, kafka_type=self.name, root_base=self.model_base)


def _no_reader(buf: bytes) -> None:
    """The optimistic reader of a version that has none: the careful path reads every such message."""
    return None


def as_bytes(data: Any, type_name: str) -> bytes:
    """The input of every decoder: bytes, or a bytes-like object copied once; anything else is a DecodeError."""
    if type(data) is bytes:
        return data
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise DecodeError(f"expected bytes, got {type(data).__name__}", type_name=type_name)
