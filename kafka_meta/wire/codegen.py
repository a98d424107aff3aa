"""Generate straight-line Python from a tree of kafka_meta constructs.

The constructs stay the single description of a format: each one knows how to parse and build itself
(interpreted, the reference) and how to *emit* the equivalent Python source. The emitted functions are
what hand-written code would be: ``struct`` unpacks on a ``bytes`` buffer, locals instead of a context
object, nested structs inlined, no per-field dispatch. They raise a bare
:class:`~kafka_meta.wire.errors.Fault` on bad input; the caller then re-reads with the interpreted
constructs, which know the field path and offset, so the fast path carries no bookkeeping.

Two modes share one emitter: *plain* values (dicts, lists, ``bytes`` for uuids; what bulk and Spark
decoding use) and *typed* values (pydantic models), selected by a :class:`ValueMode`.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from kafka_meta.wire import runtime
from kafka_meta.wire.errors import Fault
from kafka_meta.wire.runtime import UNKNOWN_KEY

if TYPE_CHECKING:
    from kafka_meta.wire.composite import KStruct, Member


def base_namespace(strict: bool) -> dict[str, Any]:
    ns: dict[str, Any] = {
        "_unpack_from": struct.unpack_from,
        "_pack": struct.pack,
        "_Bad": Fault,  # malformed input: the caller re-reads with the interpreted constructs to locate it
        "_Unwritable": Fault,  # a value that cannot be written: re-built by the interpreted constructs likewise
        "_uvt": runtime.uvarint_tail_strict if strict else runtime.uvarint_tail,
        "_uv": runtime.uvarint_bytes,
        "_wtag": runtime.write_tagged,
    }
    for kind, st in runtime.FIXED.items():
        ns[f"_U_{kind}"] = st.unpack_from
        ns[f"_P_{kind}"] = st.pack
    return ns


class CodeWriter:
    def __init__(self, namespace: dict[str, Any]) -> None:
        self.namespace = namespace
        self.lines: list[str] = []
        self.level = 1
        self._counter = 0
        # values that later constructs refer to by name (see kafka_meta.wire.bindings): name -> local variable
        self.bindings: dict[str, str] = {}

    def bind(self, name: str, variable: str) -> None:
        self.bindings[name] = variable

    def bound(self, name: str) -> str:
        """The variable bound to ``name`` earlier in the emitted function."""
        try:
            return self.bindings[name]
        except KeyError:
            raise ValueError(f"nothing is bound to {name!r} before it is used") from None

    def line(self, *texts: str) -> None:
        """Emit one line of source, or several in a row at the same indentation."""
        indent = "    " * self.level
        self.lines.extend(indent + text for text in texts)

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        self.line(header)
        self.level += 1
        yield
        self.level -= 1

    def var(self, prefix: str = "v") -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def const(self, value: Any, prefix: str = "_k") -> str:
        name = self.var(prefix)
        self.namespace[name] = value
        return name

    def literal(self, value: Any) -> str:
        """Source text for an immutable value (a constant reference when repr would not round-trip)."""
        if value is None or isinstance(value, (bool, int, str, bytes)):
            return repr(value)
        if isinstance(value, float):
            return repr(value) if value == value and value not in (float("inf"), float("-inf")) else self.const(value)
        return self.const(value)

    def source(self, header: str, footer: str) -> str:
        return "\n".join([header, *self.lines, footer]) + "\n"


class ValueMode:
    """How decoded values are represented; the plain mode is the base, typed mode overrides it."""

    name = "plain"
    # Whether a decoded value is an expression that records nothing until assigned, so a read that fails or
    # does not fit can simply be dropped. False is the safe answer (a mode that appends values to columns as
    # it reads them); modes that build values say True.
    pure = False

    def make_struct(self, em: CodeWriter, struct: KStruct, items: list[tuple[str, str]]) -> str:
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in items) + "}"

    def make_uuid(self, em: CodeWriter, bytes_expr: str) -> str:
        return bytes_expr

    def make_string(self, em: CodeWriter, bytes_expr: str) -> str:
        """A string from its UTF-8 bytes: strict reading refuses invalid UTF-8 (the reference reader explains
        where), lenient reading replaces it as Java's decoder does, as Kafka's readers do. An optimistic
        reader (see :class:`DecodeEmitter`) refuses it too: its caller re-reads leniently, and ``.decode()``
        without arguments is the cheaper call (the same string whenever the bytes are valid UTF-8)."""
        if getattr(em, "strict", False) or getattr(em, "optimistic", False):
            return f"{bytes_expr}.decode()"
        return f"{bytes_expr}.decode('utf-8', {runtime.JAVA_UTF8!r})"

    def make_bytes(self, em: CodeWriter, bytes_expr: str) -> str:
        """Bytes as they were read (a mode may render them, e.g. as the base64 text of Kafka's JSON)."""
        return bytes_expr

    def inner_decoder(self, fmt: Any, layout: int, strict: bool) -> Callable:
        """The decoder of a message nested by value dispatch (its type chosen at run time)."""
        return fmt.decoder(layout, self.name == "typed", strict)

    def fixed_array_checks_count(self) -> bool:
        """Whether :meth:`make_fixed_array`'s expression raises for a negative count or for one the bytes left
        cannot hold, so an optimistic reader need not check them first: true of the unpacker made here, not
        known of a mode that makes them otherwise."""
        return type(self).make_fixed_array is ValueMode.make_fixed_array

    def make_fixed_array(self, em: CodeWriter, kind: str, fmt: str, size: int, n: str) -> str:
        """``n`` fixed-width numbers starting at ``pos`` (the caller advances ``pos``), by an unpacker made once
        per count (see :func:`~kafka_meta.wire.runtime.fixed_array_reader`)."""
        made = em.const(runtime.fixed_array_readers(fmt), "_arrays")
        make = em.const(functools.partial(runtime.fixed_array_reader, fmt), "_array")
        return f"list(({made}.get({n}) or {make}({n}))(buf, pos))"

    def make_unknown(self, em: CodeWriter, struct: KStruct, tag_expr: str, data_expr: str) -> str:
        return f"({tag_expr}, {data_expr})"

    def emit_struct(self, em: CodeWriter, struct: KStruct, items: list[tuple[str, str]], target: str) -> None:
        """Emit the statements leaving a decoded struct in ``target``: by default :meth:`make_struct`'s
        expression; a mode whose values take several steps to build may emit them as statements instead."""
        em.line(f"{target} = {self.make_struct(em, struct, items)}")

    def default_value(self, member: Member) -> Any:
        """The member's default in this mode (structs as dicts)."""
        return member.default_plain()

    def fresh_default(self, em: CodeWriter, member: Member) -> str:
        """An expression building the member's default anew each time (mutable defaults must not be shared).

        A struct default is built like a decoded struct, by :meth:`make_struct` from its members' own
        defaults, so every mode gets its own representation without copying a template per record.
        """
        value = member.default
        if member.kind == "struct" and value is not None and member.struct is not None:
            struct = member.struct
            items = [(m.py, self.fresh_default(em, m)) for m in struct.members]
            if struct.shape.unknown_key:
                items.append((UNKNOWN_KEY, "[]"))
            return self.make_struct(em, struct, items)
        if isinstance(value, list):
            if value:
                raise ValueError(f"{member.json}: only empty array defaults exist in Kafka's message specs")
            return "[]"
        return em.literal(self.default_value(member))

    # encode side
    def get(self, obj: str, member: Member) -> str:
        return f"{obj}[{member.py!r}]"

    def get_unknown(self, obj: str) -> str:
        return f"{obj}.get({UNKNOWN_KEY!r})"

    def uuid_bytes(self, expr: str) -> str:
        return expr

    def unknown_pairs(self, expr: str) -> str:
        return expr

    def is_default(self, em: CodeWriter, member: Member, expr: str) -> str:
        value = self.default_value(member)
        if value is None:
            return f"{expr} is None"
        if isinstance(value, bool):
            return f"{expr} is {value!r}"
        return f"{expr} == {em.literal(value) if not isinstance(value, (list, dict)) else em.const(value)}"


class PlainMode(ValueMode):
    """The plain mode itself: dicts and lists, built by expressions."""

    pure = True


PLAIN = PlainMode()


class DecodeEmitter(CodeWriter):
    """Writes a decoder.

    ``optimistic``: its caller reads the bytes again, with a lenient reader of the same mode, whenever it
    raises (as ``MessageFormat.decode`` does), so it may refuse what lenient reading accepts, through cheaper
    code; it never gives a different value for what it accepts. It reads strings with ``.decode()`` (invalid
    UTF-8 raises), leaves the counts of number arrays to the unpacker (which refuses negative counts and short
    buffers), and lets ``pos`` pass the end when a string or bytes are longer than the bytes left (every
    read after that raises; whoever ends the function calls :meth:`end_check`).

    ``message_state``: source expressions of a whole message's own state, known once its body is read (its
    version and trailing bytes, as a typed message keeps them), for a mode that builds them with the struct
    ``message_root`` (the body's top-level struct) instead of setting them afterwards; the mode sets
    ``message_root`` to None once it has.
    """

    def __init__(self, namespace: dict[str, Any], mode: ValueMode, strict: bool, optimistic: bool = False) -> None:
        super().__init__(namespace)
        self.mode = mode
        self.strict = strict
        self.optimistic = optimistic and not strict
        self.message_state: dict[str, str] = {}
        self.message_root: Any = None

    def decode(self, con: Any, target: str) -> None:
        con.emit_decode(self, target)

    def end_check(self) -> None:
        """Refuse a ``pos`` past the end: the one bounds check an optimistic reader makes for its strings and
        bytes, before it returns."""
        if self.optimistic:
            self.line("if pos > blen: raise _Bad('short')")

    def bounds_check(self, end: str) -> None:
        """Refuse a value ending (at ``end``) past the bytes, where it is read (see :meth:`end_check`)."""
        if not self.optimistic:
            self.line(f"if {end} > blen: raise _Bad('short')")

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """Source that catches its own failures (a lenient tagged field read on trial) must read exactly as
        the lenient reader: there a failure is an answer, not a reason to read again."""
        saved, self.optimistic = self.optimistic, False
        try:
            yield
        finally:
            self.optimistic = saved

    def fit_check(self, con: Any) -> str:
        """The name of a :func:`fit_check` function for ``con`` in the generated code's namespace."""
        return self.const(fit_check(con), "_fits")

    def uvarint(self, target: str) -> None:
        self.line(f"{target} = buf[pos]; pos += 1")
        self.line(f"if {target} > 127: {target}, pos = _uvt(buf, pos - 1)")


class EncodeEmitter(CodeWriter):
    def __init__(self, namespace: dict[str, Any], mode: ValueMode) -> None:
        super().__init__(namespace)
        self.mode = mode
        self.out = "out"

    def encode(self, con: Any, expr: str) -> None:
        con.emit_encode(self, expr)

    @contextmanager
    def writing_to(self, name: str) -> Iterator[None]:
        saved, self.out = self.out, name
        yield
        self.out = saved

    def uvarint(self, expr: str) -> None:
        """Write an unsigned varint for ``expr`` (a plain name or small expression, evaluated twice)."""
        self.line(f"if 0 <= {expr} < 128: {self.out}.append({expr})")
        self.line(f"else: {self.out} += _uv({expr})")


def load_function(source: str, namespace: dict[str, Any], name: str, label: str) -> Callable:
    """Compile generated ``source`` in ``namespace`` and return its function ``name``: the one place where
    generated code becomes code (every decoder and encoder, whatever its value mode, goes through here).
    The source stays on the function as ``__source__``, and ``label`` names it in tracebacks."""
    exec(compile(source, f"<kafka_meta {label}>", "exec"), namespace)
    fn = namespace[name]
    fn.__source__ = source
    return fn


def compile_decoder(root: Any, mode: ValueMode = PLAIN, strict: bool = False, name: str = "decode") -> Callable:
    """``fn(buf: bytes, pos: int, blen: int) -> (value, end_pos)`` for a construct tree."""
    em = DecodeEmitter(base_namespace(strict), mode, strict)
    em.decode(root, "result")
    src = em.source("def decode(buf, pos, blen):", "    return result, pos")
    return load_function(src, em.namespace, "decode", f"{mode.name} decoder {name}")


def compile_encoder(root: Any, mode: ValueMode = PLAIN, name: str = "encode") -> Callable:
    """``fn(value, out: bytearray) -> None`` appending the encoding of ``value``."""
    em = EncodeEmitter(base_namespace(False), mode)
    em.encode(root, "value")
    src = em.source("def encode(value, out):", "    return out")
    return load_function(src, em.namespace, "encode", f"{mode.name} encoder {name}")


def fit_check(con: Any) -> Callable[[bytes, int, int, int], bool]:
    """``fits(buf, pos, blen, end)``: whether the value of ``con`` at ``pos`` reads and ends exactly at ``end``
    (read by a plain decoder, which records nothing), for modes that cannot take a read back."""
    decode = compile_decoder(con, PLAIN, False, name="fit check")

    def fits(buf: bytes, pos: int, blen: int, end: int) -> bool:
        try:
            return decode(buf, pos, blen)[1] == end
        except Exception:  # noqa: BLE001 - any failure to read means the value does not fit
            return False

    return fits
