"""What a reader's construct tree makes of bytes laid out by a writer's construct tree.

Both trees are the codecs themselves (one description of each layout), so the comparison is exact:
a reader reads its inline fields in order, then (flexible) its tagged section; whatever the writer put
after the reader's last inline field is ignored only at the end of the whole message and only when the
reader expects no tagged section there. A writer's tagged field the reader does not know is skipped
(lost); one it knows must have the same encoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka_meta.wire.composite import KArray, KStruct, Marked, Member
from kafka_meta.wire.primitives import _Sized


@dataclass
class LayoutVerdict:
    """``failure`` is None when the reader reads the writer's bytes; ``lost`` names what it does not get."""

    failure: str | None = None
    lost: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)


def signature(con: Any) -> Any:
    """The encoding of a non-struct construct, ignoring nullability (compared separately)."""
    if isinstance(con, KArray):
        element = con.element
        return ("array", con.compact, "struct" if isinstance(element, KStruct) else signature(element))
    if isinstance(con, Marked):
        return ("marked", con.marker)
    if isinstance(con, _Sized):
        return (type(con).__name__, con.compact)
    return repr(con)


def describe(con: Any) -> str:
    """A construct's encoding in words: ``int32``, ``compact string``, ``classic array of struct``."""
    if isinstance(con, KArray):
        element = "struct" if isinstance(con.element, KStruct) else describe(con.element)
        return f"{'compact' if con.compact else 'classic'} array of {element}"
    if isinstance(con, Marked):
        return f"nullable struct ({con.marker} marker)"
    if isinstance(con, KStruct):
        return "struct"
    if isinstance(con, _Sized):
        return f"{'compact' if con.compact else 'classic'} {type(con).__name__.removeprefix('K').lower()}"
    kind = getattr(con, "kind", None)
    return str(kind) if kind else type(con).__name__.lower()


def _describe(m: Member) -> str:
    return f"{m.json} ({describe(m.con)})"


def _nullable(con: Any) -> bool:
    return isinstance(con, Marked) or bool(getattr(con, "nullable", False))


def _nested(con: Any) -> KStruct | None:
    if isinstance(con, KStruct):
        return con
    if isinstance(con, Marked):
        return con.struct
    if isinstance(con, KArray) and isinstance(con.element, KStruct):
        return con.element
    return None


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _member(reader: Member, writer: Member, path: str, verdict: LayoutVerdict) -> None:
    here = _join(path, writer.json)
    if reader.json != writer.json or signature(reader.con) != signature(writer.con):
        verdict.failure = verdict.failure or (
            f"at {here}: the reader reads {_describe(reader)} where the writer wrote {_describe(writer)}")
        return
    if _nullable(writer.con) and not _nullable(reader.con):
        verdict.caveats.append(f"fails when {here} is null (the reader does not accept null there)")
    r_struct, w_struct = _nested(reader.con), _nested(writer.con)
    if r_struct is not None and w_struct is not None:
        suffix = "[]" if isinstance(writer.con, KArray) else ""
        _struct(r_struct, w_struct, here + suffix, False, verdict)


def _struct(reader: KStruct, writer: KStruct, path: str, top: bool, verdict: LayoutVerdict) -> None:
    r_inline, w_inline = reader.inline, writer.inline
    for r, w in zip(r_inline, w_inline, strict=False):
        _member(r, w, path, verdict)
    if len(r_inline) > len(w_inline):
        missing = ", ".join(m.json for m in r_inline[len(w_inline):])
        verdict.failure = verdict.failure or f"{path or 'the message'}: the reader expects {missing}, which the " \
                                              "writer did not write"
    elif len(w_inline) > len(r_inline):
        extra = w_inline[len(r_inline):]
        if top and not reader.flexible:
            verdict.lost += [_join(path, m.json) for m in extra]  # trailing bytes, ignored
        else:
            where = "before its tagged fields" if reader.flexible else "inside a struct"
            verdict.failure = verdict.failure or (
                f"{path or 'the message'}: the writer wrote {', '.join(m.json for m in extra)} where the reader "
                f"expects the end of the struct ({where})")
    if writer.flexible and not reader.flexible:
        if top and len(w_inline) >= len(r_inline):
            verdict.lost += [f"{_join(path, m.json)} (tag {m.tag})" for m in writer.tagged]
        elif not top:
            verdict.failure = verdict.failure or f"{path}: the writer ends the struct with tagged fields the " \
                                                 "reader does not expect"
        return
    if reader.flexible and not writer.flexible:
        verdict.failure = verdict.failure or f"{path or 'the message'}: the reader expects tagged fields the " \
                                             "writer's version does not have"
        return
    for w in writer.tagged:
        r = reader.by_tag.get(w.tag)
        if r is None:
            verdict.lost.append(f"{_join(path, w.json)} (tag {w.tag})")
        else:
            _member(r, w, path, verdict)


def compare_layouts(reader: KStruct, writer: KStruct) -> LayoutVerdict:
    verdict = LayoutVerdict()
    _struct(reader, writer, "", True, verdict)
    return verdict
