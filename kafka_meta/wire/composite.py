"""Arrays, structs (with KIP-482 tagged-field sections) and nullable structs as ``construct`` classes.

A :class:`KStruct` is one struct *at one version*: its inline fields in wire order, its tagged fields,
and the fields the version lacks (filled with their defaults on decode, refused on encode when set to
something else and not ``ignorable``, as Kafka's writers do). Decoded structs are dicts holding every
field of every version, so one model serves all versions of a message.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from construct import ConstructError

from kafka_meta.wire.errors import Fault
from kafka_meta.wire.primitives import JAVA_NEGATIVE, Fixed, KafkaConstruct, _Sized
from kafka_meta.wire.runtime import UNKNOWN_KEY, read_exact, read_uvarint, remaining, write_tagged

_ARRAY_FORMAT = {"int8": "b", "int16": "h", "int32": "i", "int64": "q", "uint16": "H", "uint32": "I",
                 "float64": "d"}


def _parse_child(con: Any, stream: Any, context: Any, path: str, segment: str) -> Any:
    start = stream.tell()
    try:
        return con._parsereport(stream, context, path)
    except Fault as e:
        raise e.within(segment) from None
    except ConstructError as e:
        raise Fault(str(e), start).within(segment) from None


def _build_child(con: Any, obj: Any, stream: Any, context: Any, path: str, segment: str) -> None:
    try:
        con._build(obj, stream, context, path)
    except Fault as e:
        raise e.within(segment) from None
    except ConstructError as e:
        raise Fault(str(e)).within(segment) from None


class KArray(_Sized):
    """An array of primitives or structs; elements of struct arrays carry no null marker."""

    shown = ("element", "compact=", "nullable=")

    classic_kind = "int32"
    what = "array"

    def __init__(self, element: Any, compact: bool, nullable: bool) -> None:
        super().__init__(compact, nullable)
        self.element = element

    def _parse_present(self, n: int, start: int, stream: Any, context: Any, path: str) -> list:
        self._check_count(n, stream, start)
        return [_parse_child(self.element, stream, context, path, f"[{i}]") for i in range(n)]

    def _check_count(self, n: int, stream: Any, start: int) -> None:
        """Refuse a count the bytes left cannot hold, before allocating anything for it."""
        left = remaining(stream)
        if n * max(self.element.min_size, 1) > left:
            raise Fault(f"array of {n} elements cannot fit in the {left} bytes left", start)

    def emit_count_check(self, em: Any, n: str) -> None:
        """The generated counterpart of :meth:`_check_count`."""
        min_size = max(self.element.min_size, 1)
        em.line(f"if {n} * {min_size} > blen - pos: raise _Bad('count')" if min_size > 1
                else f"if {n} > blen - pos: raise _Bad('count')")

    def _build_present(self, obj: Any, stream: Any, context: Any, path: str) -> None:
        # as the generated writer: anything with a length that iterates (it checks nothing more, for speed)
        try:
            len(obj)
            items = list(obj)
        except TypeError:
            raise Fault(f"expected a list, got {type(obj).__name__}") from None
        self._write_length(len(items), stream)
        for i, item in enumerate(items):
            _build_child(self.element, item, stream, context, path, f"[{i}]")

    def emit_decode(self, em: Any, target: str) -> None:
        n = em.var("n")
        # an optimistic reader leaves a number array's count to the unpacker, which refuses a bad one itself
        unpacker_checks = em.optimistic and isinstance(self.element, Fixed) and em.mode.fixed_array_checks_count()
        with self.emit_read_present(em, n, target, refuse_negative=not unpacker_checks):
            if not unpacker_checks:
                self.emit_count_check(em, n)
            min_size = max(self.element.min_size, 1)
            if isinstance(self.element, Fixed):
                fmt = _ARRAY_FORMAT[self.element.kind]
                em.line(f"{target} = {em.mode.make_fixed_array(em, self.element.kind, fmt, min_size, n)}; "
                        f"pos += {n} * {min_size}")
            else:
                item, append = em.var("x"), em.var("ap")
                em.line(f"{target} = []; {append} = {target}.append")
                with em.block(f"for _ in range({n}):"):
                    em.decode(self.element, item)
                    em.line(f"{append}({item})")

    def emit_encode(self, em: Any, expr: str) -> None:
        lst = em.var("l")
        em.line(f"{lst} = {expr}")
        with self.emit_write_present(em, lst):
            self.emit_write_length(em, f"len({lst})")
            if isinstance(self.element, Fixed):
                fmt = _ARRAY_FORMAT[self.element.kind]
                em.line(f"{em.out} += _pack('>%d{fmt}' % len({lst}), *{lst})")
            else:
                item = em.var("x")
                with em.block(f"for {item} in {lst}:"):
                    em.encode(self.element, item)


@dataclass(eq=False)
class Member:
    """One field of a struct at one version."""

    py: str  # Python attribute / plain-dict key
    json: str  # Kafka's JSON name, used in error paths
    role: str  # "inline", "tagged" or "absent"
    kind: str  # the spec type's kind: a primitive name, "array" or "struct"
    default: Any  # plain default value (structs as dicts)
    con: Any = None  # construct for inline and tagged members
    tag: int | None = None
    ignorable: bool = False
    struct: KStruct | None = None  # the struct type (or array element type), for typed defaults

    def default_plain(self) -> Any:
        return self.default


@dataclass(eq=False)
class StructShape:
    """Identity of a struct type across versions: the model a typed decode builds for it."""

    owner: str  # message name
    name: str  # struct type name (the message name for the root)
    unknown_key: bool  # whether decoded dicts carry the unknown-tagged-fields list


class KStruct(KafkaConstruct):
    def __init__(self, shape: StructShape, version: int, members: list[Member], flexible: bool) -> None:
        super().__init__()
        self.shape = shape
        self.version = version
        self.members = members
        self.flexible = flexible
        self.inline = [m for m in members if m.role == "inline"]
        self.tagged = sorted((m for m in members if m.role == "tagged"), key=lambda m: m.tag)
        self.by_tag = {m.tag: m for m in self.tagged}
        self.min_size = sum(m.con.min_size for m in self.inline) + (1 if flexible else 0)

    def default_plain(self) -> dict[str, Any]:
        out = {m.py: copy.deepcopy(m.default) for m in self.members}
        if self.shape.unknown_key:
            out[UNKNOWN_KEY] = []
        return out

    # ---------------------------------------------------------------- interpreted
    def _parse(self, stream: Any, context: Any, path: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for m in self.members:
            if m.role == "inline":
                out[m.py] = _parse_child(m.con, stream, context, path, m.json)
            else:
                out[m.py] = copy.deepcopy(m.default)
        if self.flexible:
            out[UNKNOWN_KEY] = self._parse_tagged(stream, context, path, out)
        elif self.shape.unknown_key:
            out[UNKNOWN_KEY] = []
        return out

    def _parse_tagged(self, stream: Any, context: Any, path: str, out: dict[str, Any]) -> list:
        """The tagged section: known tags into ``out``, the rest returned as (tag, bytes) pairs.

        With ``_kafka_tags`` in the context a known tag is read as Kafka's generated readers read it, by its type,
        the size it declares unchecked (see docs/offsets.md: the project checks it); only for comparing the two.
        A list in ``_kafka_tag_misfits`` collects the known tags whose type took other bytes than they declared.
        A list in ``_negative_tag_counts`` makes a count Java reads as a negative int no tagged fields (as older
        releases' generated readers took it), and collects where; only for comparing with those releases.
        """
        strict = bool(context.get("_strict"))
        kafka_tags = bool(context.get("_kafka_tags"))
        try:
            count = read_uvarint(stream, strict)
        except Fault as e:
            raise e.within("<tagged fields>") from None
        negative_counts = context.get("_negative_tag_counts")
        if negative_counts is not None and count >= 1 << 31:
            # as the generated readers of kafka-clients 3.9 and 4.0 read a count Java sees as negative: no fields
            negative_counts.append(stream.tell())
            count = 0
        unknown: list[tuple[int, bytes]] = []
        last = -1
        for _ in range(count):
            at = stream.tell()
            try:
                tag = read_uvarint(stream, strict)
                size = read_uvarint(stream, strict)
            except Fault as e:
                raise e.within("<tagged fields>") from None
            if kafka_tags and tag in self.by_tag:
                member = self.by_tag[tag]
                begin = stream.tell()
                misfits = context.get("_kafka_tag_misfits")
                try:
                    out[member.py] = _parse_child(member.con, stream, context, path, member.json)
                except Fault:
                    if misfits is not None:
                        misfits.append(tag)  # its type could not be read from the bytes it declared, nor after
                    raise
                if misfits is not None and stream.tell() - begin != size:
                    misfits.append(tag)  # Kafka's rule read other bytes than the size declared: it mattered here
                continue
            left = remaining(stream)
            if size > left:
                raise Fault(f"tagged field {tag} has size {size} but only {left} bytes are left", at).within(
                    "<tagged fields>")
            if strict and tag <= last:
                raise Fault(f"tagged field {tag} is out of order (after {last})", at).within("<tagged fields>")
            last = tag
            member = self.by_tag.get(tag)
            if member is None:
                if strict:
                    raise Fault(f"unknown tagged field {tag} (strict reading)", at).within("<tagged fields>")
                unknown.append((tag, stream.read(size)))
                continue
            begin = stream.tell()
            try:
                value = _parse_child(member.con, stream, context, path, member.json)
            except Fault as e:
                if strict:
                    fault = Fault(f"tagged field {tag} at byte {at} declares {size} bytes, which do not hold its "
                                  f"value: {e.reason}", e.offset)
                    fault.segments = e.segments
                    raise fault from None
            else:
                used = stream.tell() - begin
                if used == size:
                    out[member.py] = value
                    continue
                if strict:
                    raise Fault(f"tagged field {tag} declares {size} bytes but its value takes {used}", at).within(
                        member.json)
            # lenient: a size that does not fit the known type (a writer whose spec gave this tag another
            # type) is kept as an unknown field, so the record still reads and is written back unchanged
            stream.seek(begin)
            unknown.append((tag, stream.read(size)))
        return unknown

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if not isinstance(obj, dict):
            raise Fault(f"expected a struct (dict), got {type(obj).__name__}")
        for m in self.members:
            if m.py not in obj:
                if m.role == "absent" and m.ignorable:
                    continue
                raise Fault("the value has no such field").within(m.json)
            value = obj[m.py]
            if m.role == "inline":
                _build_child(m.con, value, stream, context, path, m.json)
            elif m.role == "absent" and not m.ignorable and value != m.default:
                raise Fault(
                    f"version {self.version} has no field {m.json}, so its non-default value {value!r} cannot be "
                    "written").within(m.json)
        unknown = (obj.get(UNKNOWN_KEY) or []) if self.shape.unknown_key else []
        if self.flexible:
            entries: list[tuple[int, bytes]] = []
            for m in self.tagged:
                value = obj[m.py]
                if value == m.default:
                    continue
                sub = BytesIO()
                _build_child(m.con, value, sub, context, path, m.json)
                entries.append((m.tag, sub.getvalue()))
            # an unknown field may carry a known tag (its bytes did not fit the known type when read), but
            # only while the known field is not written too
            written = {tag for tag, _ in entries}
            for entry in unknown:
                tag, payload = entry
                if tag in written:
                    raise Fault(f"unknown tagged field {tag} collides with known field "
                                f"{self.by_tag[tag].json}").within(UNKNOWN_KEY)
                entries.append((int(tag), bytes(payload)))
            section = bytearray()
            try:
                write_tagged(section, entries)
            except Fault as e:
                raise Fault(str(e)).within(UNKNOWN_KEY) from None
            stream.write(section)
        elif unknown:
            raise Fault(f"version {self.version} is not flexible, so it cannot carry tagged fields").within(
                UNKNOWN_KEY)
        return obj

    # ---------------------------------------------------------------- generated
    def emit_decode(self, em: Any, target: str) -> None:
        names: dict[str, str] = {}
        for m in self.inline:
            names[m.py] = em.var("f")
            em.decode(m.con, names[m.py])
        unknown_expr = "[]"
        if self.flexible:
            for m in self.tagged:
                names[m.py] = em.var("t")
                em.line(f"{names[m.py]} = {em.mode.fresh_default(em, m)}")
            unk, count, tag, size, end, last = (em.var(p) for p in ("unk", "tn", "tag", "sz", "te", "tl"))
            unknown_expr = unk
            em.line(f"{unk} = []")
            em.uvarint(count)
            if em.strict:
                em.line(f"{last} = -1")
            with em.block(f"for _ in range({count}):"):
                em.uvarint(tag)
                em.uvarint(size)
                em.line(f"{end} = pos + {size}")
                em.line(f"if {end} > blen: raise _Bad('tag size')")
                if em.strict:
                    em.line(f"if {tag} <= {last}: raise _Bad('tag order')")
                    em.line(f"{last} = {tag}")
                keyword = "if"
                for m in self.tagged:
                    with em.block(f"{keyword} {tag} == {m.tag}:"):
                        if em.strict:
                            em.decode(m.con, names[m.py])
                            em.line(f"if pos != {end}: raise _Bad('tag size mismatch')")
                        else:
                            self._emit_lenient_tagged(em, m, names[m.py], unk, tag, size, end)
                    keyword = "elif"
                with em.block("else:" if self.tagged else "if True:"):
                    if em.strict:
                        em.line("raise _Bad('unknown tag')")
                    else:
                        em.line(f"{unk}.append({em.mode.make_unknown(em, self, tag, f'buf[pos:{end}]')}); pos = {end}")
        items = []
        for m in self.members:
            items.append((m.py, names[m.py] if m.py in names else em.mode.fresh_default(em, m)))
        if self.shape.unknown_key:
            items.append((UNKNOWN_KEY, unknown_expr))
        em.mode.emit_struct(em, self, items, target)

    def _emit_lenient_tagged(self, em: Any, m: Member, target: str, unk: str, tag: str, size: str,
                             end: str) -> None:
        """A known tag, read leniently: its value when it takes exactly the declared size, else the raw bytes
        kept as an unknown field (as :meth:`_parse_tagged`). The value is assigned only once it fits, so a
        misfit leaves the field as it was. Modes whose values are expressions read first and look after;
        a mode that records values as it reads them (appends to columns) cannot take a read back, so a value
        holding structs is first checked to fit by a plain reader, and read in that mode only if it does."""
        keep = f"{unk}.append({em.mode.make_unknown(em, self, tag, f'buf[{end} - {size}:{end}]')}); pos = {end}"
        if m.struct is not None and not em.mode.pure:
            with em.block(f"if {em.fit_check(m.con)}(buf, pos, blen, {end}):"):
                em.decode(m.con, target)
            with em.block("else:"):
                em.line(keep)
            return
        value = em.var("tv")
        with em.block("try:"), em.guarded():
            em.decode(m.con, value)
        with em.block("except Exception:"):
            em.line("pos = -1")
        em.line(f"if pos == {end}: {target} = {value}")
        em.line(f"else: {keep}")

    def emit_encode(self, em: Any, expr: str) -> None:
        mode = em.mode
        v = em.var("s")
        em.line(f"{v} = {expr}")
        for m in self.members:
            if m.role == "inline":
                em.encode(m.con, mode.get(v, m))
            elif m.role == "absent" and not m.ignorable:
                em.line(f"if not ({mode.is_default(em, m, mode.get(v, m))}): raise _Unwritable('absent field')")
        if not self.shape.unknown_key:
            return  # never flexible: no tagged section, nothing unknown to carry
        unk = em.var("u")
        em.line(f"{unk} = {mode.get_unknown(v)}")
        if not self.flexible:
            em.line(f"if {unk}: raise _Unwritable('tagged fields in a non-flexible version')")
            return
        if not self.tagged:
            em.line(f"if {unk}: _wtag({em.out}, list({mode.unknown_pairs(unk)}))")
            em.line(f"else: {em.out}.append(0)")
            return
        entries = em.var("tg")
        em.line(f"{entries} = []")
        for m in self.tagged:
            x, sub = em.var("x"), em.var("sub")
            em.line(f"{x} = {mode.get(v, m)}")
            with em.block(f"if not ({mode.is_default(em, m, x)}):"):
                em.line(f"{sub} = bytearray()")
                with em.writing_to(sub):
                    em.encode(m.con, x)
                em.line(f"{entries}.append(({m.tag}, {sub}))")
        # an unknown field carrying the tag of a written known field appears twice: _wtag refuses it
        em.line(f"if {unk}: {entries}.extend({mode.unknown_pairs(unk)})")
        em.line(f"if {entries}: _wtag({em.out}, {entries})")
        em.line(f"else: {em.out}.append(0)")

    def __repr__(self) -> str:
        return f"KStruct({self.shape.owner}.{self.shape.name} v{self.version}, {len(self.members)} fields)"


class Marked(KafkaConstruct):
    """A nullable struct: a marker, then the struct when present.

    Inline nullable structs use an int8 marker (-1 null, 1 present); tagged nullable structs use an
    unsigned varint (0 null, 1 present). Kafka's readers take any negative int8 marker as null and any other as
    present, and a varint marker of 0, or one Java reads into a negative int (2^31 or more), as null and any other
    as present; so does lenient reading (strict reading refuses markers no writer emits).
    """

    shown = ("struct", "marker")

    def __init__(self, struct: KStruct, marker: str) -> None:
        super().__init__()
        self.struct = struct
        self.marker = marker
        self.min_size = 1

    def _parse(self, stream: Any, context: Any, path: str) -> Any:
        start = stream.tell()
        if self.marker == "int8":
            mark = read_exact(stream, 1, "the null marker")[0]
            mark = mark - 256 if mark > 127 else mark
            if mark == -1 or (mark < 0 and not context.get("_strict")):
                return None
            if mark >= 0 and not context.get("_strict"):
                return self.struct._parse(stream, context, path)
        else:
            mark = read_uvarint(stream, bool(context.get("_strict")))
            if mark == 0 or (mark >= JAVA_NEGATIVE and not context.get("_strict")):
                return None
            if not context.get("_strict"):
                return self.struct._parse(stream, context, path)
        if mark != 1:
            raise Fault(f"null marker {mark} is neither null nor present", start)
        return self.struct._parse(stream, context, path)

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if obj is None:
            stream.write(b"\xff" if self.marker == "int8" else b"\x00")
            return obj
        stream.write(b"\x01")
        return self.struct._build(obj, stream, context, path)

    def emit_decode(self, em: Any, target: str) -> None:
        mark = em.var("m")
        if self.marker == "int8":
            em.line(f"{mark}, = _U_int8(buf, pos); pos += 1")
            null = -1
        else:
            em.uvarint(mark)
            null = 0
        if not em.strict:  # as Kafka's readers: negative (to Java) or a varint 0 is null, anything else present
            null_test = f"{mark} < 0" if self.marker == "int8" else f"{mark} == 0 or {mark} >= {JAVA_NEGATIVE}"
            with em.block(f"if {null_test}:"):
                em.line(f"{target} = None")
            with em.block("else:"):
                em.decode(self.struct, target)
            return
        with em.block(f"if {mark} == {null}:"):
            em.line(f"{target} = None")
        with em.block(f"elif {mark} == 1:"):
            em.decode(self.struct, target)
        em.line("else: raise _Bad('marker')")

    def emit_encode(self, em: Any, expr: str) -> None:
        x = em.var("x")
        em.line(f"{x} = {expr}")
        with em.block(f"if {x} is None:"):
            em.line(f"{em.out}.append({255 if self.marker == 'int8' else 0})")
        with em.block("else:"):
            em.line(f"{em.out}.append(1)")
            em.encode(self.struct, x)
