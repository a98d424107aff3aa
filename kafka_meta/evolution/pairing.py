"""Which field of the new spec is which field of the old one: by name, then by position.

Kafka's own checker pairs fields only by position; pairing by name first finds insertions, removals
and moves, and the position pass then recognises renames (same place, same type, new name), which the
name pass alone would report as a removal plus an addition.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka_meta.evolution.wire import flexible_at, slots
from kafka_meta.spec.model import FieldSpec, MessageSpec

VersionPair = tuple[int, int]  # (old version, new version) whose bytes must agree


@dataclass
class FieldPair:
    """One field in the old and/or the new spec, with the version pairs where its parent exists in both."""

    path: str  # Kafka spec names: Topics.Partitions
    old: FieldSpec | None
    new: FieldSpec | None
    versions: list[VersionPair]  # version pairs where the enclosing struct exists in both specs
    renamed: bool = False
    children: list[FieldPair] = field(default_factory=list)

    def old_present(self, vo: int) -> bool:
        return self.old is not None and vo in self.old.versions

    def new_present(self, vn: int) -> bool:
        return self.new is not None and vn in self.new.versions

    def both(self) -> list[VersionPair]:
        return [(vo, vn) for vo, vn in self.versions if self.old_present(vo) and self.new_present(vn)]


def _same_type_shape(a: FieldSpec, b: FieldSpec) -> bool:
    if a.type.kind != b.type.kind:
        return False
    if a.type.is_array:
        assert a.type.element is not None and b.type.element is not None
        return a.type.element.kind == b.type.element.kind and (
            a.type.element.kind == "struct" or str(a.type.element) == str(b.type.element))
    return a.type.kind == "struct" or str(a.type) == str(b.type)


def pair_fields(old: list[FieldSpec], new: list[FieldSpec], versions: list[VersionPair], old_spec: MessageSpec,
                new_spec: MessageSpec, prefix: str) -> list[FieldPair]:
    new_left = {f.name: f for f in new}
    out: list[FieldPair] = []
    matched: dict[int, FieldSpec] = {}
    for i, f in enumerate(old):
        g = new_left.pop(f.name, None)
        if g is None:
            g = next((h for h in new_left.values() if h.name.lower() == f.name.lower()), None)
            if g is not None:
                del new_left[g.name]
        if g is not None:
            matched[i] = g
    # renames: an unmatched old field and an unmatched new field in the same inline place (or with the same
    # tag) of some shared version, with the same type
    for i, f in enumerate(old):
        if i in matched:
            continue
        for vo, vn in versions:
            fo, fn = flexible_at(old_spec, vo), flexible_at(new_spec, vn)
            o_inline, o_tagged = slots(old, vo, fo)
            n_inline, n_tagged = slots(new, vn, fn)
            here = next((s for s in o_inline if s.field is f), None)
            candidate = None
            if here is not None and here.position is not None and here.position < len(n_inline):
                candidate = n_inline[here.position].field
            elif f.tag is not None and f.tag in o_tagged and o_tagged[f.tag].field is f and f.tag in n_tagged:
                candidate = n_tagged[f.tag].field
            if candidate is not None and candidate.name in new_left and _same_type_shape(f, candidate):
                matched[i] = candidate
                del new_left[candidate.name]
                break
    for i, f in enumerate(old):
        g = matched.get(i)
        renamed = g is not None and g.name.lower() != f.name.lower()
        out.append(_pair(f"{prefix}.{f.name}", f, g, versions, old_spec, new_spec, renamed))
    for g in new:
        if g.name in new_left:
            out.append(_pair(f"{prefix}.{g.name}", None, g, versions, old_spec, new_spec))
    return out


def _pair(path: str, old: FieldSpec | None, new: FieldSpec | None, versions: list[VersionPair], old_spec: MessageSpec,
          new_spec: MessageSpec, renamed: bool = False) -> FieldPair:
    pair = FieldPair(path, old, new, versions, renamed)
    if old is not None and new is not None and old.struct is not None and new.struct is not None:
        inner = pair.both()
        pair.children = pair_fields(old.struct.fields, new.struct.fields, inner, old_spec, new_spec, path)
    return pair


def walk(pairs: list[FieldPair]) -> list[FieldPair]:
    """Every pair, depth first."""
    out: list[FieldPair] = []
    for p in pairs:
        out.append(p)
        out += walk(p.children)
    return out
