"""The wire layout a spec gives each version, from the spec alone (no codecs): what the checker compares
to decide whether a version's bytes changed.

A field's *encoding* at a version is what its bytes look like: the type, compact or classic length
prefixes, a null marker for nullable structs, and, for structs, the encodings of their own fields. Names
and nullability of strings/bytes/arrays do not change bytes, so they are not part of it (other rules
report them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_meta.spec.model import FieldSpec, FieldType, MessageSpec


@dataclass(frozen=True)
class Slot:
    """A field at one version: inline at ``position`` or tagged with ``tag``."""

    field: FieldSpec
    position: int | None
    tag: int | None


def flexible_at(spec: MessageSpec, version: int) -> bool:
    return version in spec.flexible_versions


def is_tagged(f: FieldSpec, version: int, flexible: bool) -> bool:
    return flexible and version in f.tagged_versions


def compact(f: FieldSpec, version: int, flexible: bool) -> bool:
    if f.flexible_versions is not None and f.type.kind in ("string", "bytes"):
        return version in f.flexible_versions
    return flexible


def slots(fields: list[FieldSpec], version: int, flexible: bool) -> tuple[list[Slot], dict[int, Slot]]:
    """The inline fields in order and the tagged fields by tag, of one struct at one version."""
    inline: list[Slot] = []
    tagged: dict[int, Slot] = {}
    for f in fields:
        if version not in f.versions:
            continue
        if is_tagged(f, version, flexible):
            tagged[f.tag] = Slot(f, None, f.tag)  # type: ignore[index]
        else:
            inline.append(Slot(f, len(inline), None))
    return inline, tagged


def _type_encoding(ftype: FieldType, f: FieldSpec, version: int, flexible: bool, tagged: bool) -> Any:
    kind = ftype.kind
    if kind == "array":
        assert ftype.element is not None
        element = _type_encoding(ftype.element, f, version, flexible, False) if ftype.element.kind != "struct" \
            else struct_encoding(f, version, flexible)
        return ("array", flexible, element)
    if kind == "struct":
        body = struct_encoding(f, version, flexible)
        if version in f.nullable_versions:
            return ("nullable-struct", "uvarint" if tagged else "int8", body)
        return body
    if kind in ("string", "bytes"):
        return (kind, compact(f, version, flexible))
    return kind


def struct_encoding(f: FieldSpec, version: int, flexible: bool) -> Any:
    assert f.struct is not None
    return layout(f.struct.fields, version, flexible)


def encoding(f: FieldSpec, version: int, flexible: bool) -> Any:
    return _type_encoding(f.type, f, version, flexible, is_tagged(f, version, flexible))


@dataclass(frozen=True)
class StructLayout:
    inline: tuple[Any, ...]
    tagged: tuple[tuple[int, Any], ...] | None  # None: not flexible, no tagged section


def layout(fields: list[FieldSpec], version: int, flexible: bool) -> StructLayout:
    """The whole wire layout of a struct at a version, names left out."""
    inline, tagged = slots(fields, version, flexible)
    return StructLayout(tuple(encoding(s.field, version, flexible) for s in inline),
                        tuple(sorted((t, encoding(s.field, version, flexible)) for t, s in tagged.items()))
                        if flexible else None)


def compatible(old: Any, new: Any) -> bool:
    """Whether bytes of one encoding read as the other: equal, except that tagged fields may come and go
    (in nested structs too); a tag both know must keep its encoding."""
    if isinstance(old, StructLayout) and isinstance(new, StructLayout):
        if len(old.inline) != len(new.inline) or (old.tagged is None) != (new.tagged is None):
            return False
        if not all(compatible(a, b) for a, b in zip(old.inline, new.inline, strict=True)):
            return False
        a, b = dict(old.tagged or ()), dict(new.tagged or ())
        return all(compatible(a[t], b[t]) for t in set(a) & set(b))
    if isinstance(old, tuple) and isinstance(new, tuple):
        return len(old) == len(new) and all(compatible(a, b) for a, b in zip(old, new, strict=True))
    return bool(old == new)


def message_layout(spec: MessageSpec, version: int) -> StructLayout:
    return layout(spec.fields, version, flexible_at(spec, version))

