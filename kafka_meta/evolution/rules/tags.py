"""Tagged fields (KIP-482): a tag number is the field's identity on the wire.

* ``tag-reused`` (breaking, wire): a tag that belonged to one field now belongs to another, so old
  writers' values are read as the new field.
* ``tag-retyped`` (breaking, wire): the same tagged field with another type.
* ``tag-changed`` (breaking, wire): the same field under another tag number.
* ``tagged-to-inline`` / ``inline-to-tagged`` (breaking, wire): a field moves between the tagged section
  and the inline fields in a version both specs define.
"""

from __future__ import annotations

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding, Level, Severity
from kafka_meta.evolution.pairing import FieldPair
from kafka_meta.evolution.wire import flexible_at, is_tagged
from kafka_meta.spec.model import FieldSpec

WIRE = Severity.WIRE


def _siblings(pairs: list[FieldPair], parent: str) -> list[tuple[str, list[FieldPair]]]:
    out = [(parent, pairs)]
    for p in pairs:
        if p.children:
            out += _siblings(p.children, p.path)
    return out


def _reuse(cmp: Comparison, parent: str, siblings: list[FieldPair]) -> list[EvolutionFinding]:
    old_tags: dict[int, FieldPair] = {p.old.tag: p for p in siblings if p.old is not None and p.old.tag is not None}
    new_tags: dict[int, FieldPair] = {p.new.tag: p for p in siblings if p.new is not None and p.new.tag is not None}
    out = []
    for tag in sorted(set(old_tags) & set(new_tags)):
        a, b = old_tags[tag], new_tags[tag]
        if a is b:
            continue
        old_f: FieldSpec = a.old  # type: ignore[assignment]
        new_f: FieldSpec = b.new  # type: ignore[assignment]
        out.append(cmp.finding("tag-reused", Level.BREAKING, WIRE, b.path,
                               f"tag {tag} belonged to {old_f.name} ({old_f.type}) and now to {new_f.name} "
                               f"({new_f.type}): values old writers tagged {tag} are read as {new_f.name}"))
    return out


def _pair(cmp: Comparison, p: FieldPair) -> list[EvolutionFinding]:
    assert p.old is not None and p.new is not None
    out = []
    shared = p.both()
    old_tagged = [(vo, vn) for vo, vn in shared if is_tagged(p.old, vo, flexible_at(cmp.old, vo))]
    new_tagged = [(vo, vn) for vo, vn in shared if is_tagged(p.new, vn, flexible_at(cmp.new, vn))]
    to_inline = [pair for pair in old_tagged if pair not in new_tagged]
    to_tagged = [pair for pair in new_tagged if pair not in old_tagged]
    if to_inline:
        out.append(cmp.finding("tagged-to-inline", Level.BREAKING, WIRE, p.path,
                               f"tagged field {p.old.name} (tag {p.old.tag}) is inline in version "
                               f"{cmp.vlabel(to_inline)}: the layout of those versions changed", to_inline))
    if to_tagged:
        out.append(cmp.finding("inline-to-tagged", Level.BREAKING, WIRE, p.path,
                               f"{p.old.name} moved into the tagged fields (tag {p.new.tag}) in version "
                               f"{cmp.vlabel(to_tagged)}: the layout of those versions changed", to_tagged))
    both = [pair for pair in old_tagged if pair in new_tagged]
    if both and p.old.tag != p.new.tag:
        out.append(cmp.finding("tag-changed", Level.BREAKING, WIRE, p.path,
                               f"{p.new.name} moved from tag {p.old.tag} to tag {p.new.tag}: each side reads the "
                               "other's value as an unknown tag", both))
    if both and str(p.old.type) != str(p.new.type) and not (p.old.type.struct_ref and p.new.type.struct_ref
                                                             and p.old.type.kind == p.new.type.kind):
        out.append(cmp.finding("tag-retyped", Level.BREAKING, (WIRE, Severity.PYTHON_API), p.path,
                               f"tagged field {p.new.name} (tag {p.new.tag}) changed type {p.old.type} -> "
                               f"{p.new.type}", both))
    return out


def check(cmp: Comparison) -> list[EvolutionFinding]:
    out: list[EvolutionFinding] = []
    for parent, siblings in _siblings(cmp.pairs, cmp.new.name):
        out += _reuse(cmp, parent, siblings)
    for p in cmp.all_pairs:
        if p.old is not None and p.new is not None:
            out += _pair(cmp, p)
    return out
