"""Fields that come, go, move, change type or get renamed, paired by name and by position.

* ``field-removed``: a field of a version both specs define is gone from it (breaking, wire; risky if it
  was tagged there, since readers skip unknown tags); a field gone from every version loses its JSON name
  and Python attribute (risky).
* ``field-added``: a field appears in a version the old spec already defined: inline is a layout break,
  tagged is the compatible way (info). In new versions only: info.
* ``field-renamed``: same place, same type, other name: the bytes agree, Kafka's JSON name and our
  attribute change (breaking, json-names / python-api).
* ``field-moved``: two fields swapped their relative order in a version (breaking, wire).
* ``field-type-changed``: another type, in versions both define (breaking, wire) or only in the models
  (risky, python-api). ``struct-renamed``: a struct type renamed, same layout (risky, python-api).
* ``field-encoding-changed``: a field-level flexibleVersions override moved, so a string or bytes field
  switches between compact and classic lengths in a version both define (breaking, wire).
"""

from __future__ import annotations

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding, Level, Severity
from kafka_meta.evolution.pairing import FieldPair, VersionPair
from kafka_meta.evolution.wire import compact, flexible_at, is_tagged, slots
from kafka_meta.spec.model import FieldSpec

WIRE, JSON, PY = Severity.WIRE, Severity.JSON_NAMES, Severity.PYTHON_API


def _removed(cmp: Comparison, p: FieldPair) -> list[EvolutionFinding]:
    assert p.old is not None
    gone = [(vo, vn) for vo, vn in p.versions if p.old_present(vo) and not p.new_present(vn)]
    out = []
    if gone:
        inline = [(vo, vn) for vo, vn in gone if not is_tagged(p.old, vo, flexible_at(cmp.old, vo))]
        tagged = [pair for pair in gone if pair not in inline]
        if inline:
            out.append(cmp.finding("field-removed", Level.BREAKING, (WIRE, JSON, PY), p.path,
                                   f"{p.old.name} ({p.old.type}) is no longer in version {cmp.vlabel(inline)}, "
                                   "which both specs define: those bytes changed", inline))
        if tagged:
            out.append(cmp.finding("field-removed", Level.RISKY, (WIRE, JSON, PY), p.path,
                                   f"tagged field {p.old.name} (tag {p.old.tag}) is no longer in version "
                                   f"{cmp.vlabel(tagged)}: new readers skip it as an unknown tag, new writers drop "
                                   "it", tagged))
    if p.new is None and not gone:
        out.append(cmp.finding("field-removed", Level.RISKY, (JSON, PY), p.path,
                               f"{p.old.name} is gone from the spec (its versions {p.old.versions} are no longer "
                               "valid): its JSON name and Python attribute disappear"))
    return out


def _added(cmp: Comparison, p: FieldPair) -> list[EvolutionFinding]:
    assert p.new is not None
    fresh = [(vo, vn) for vo, vn in p.versions if p.new_present(vn) and not p.old_present(vo)]
    out = []
    inline = [(vo, vn) for vo, vn in fresh if not is_tagged(p.new, vn, flexible_at(cmp.new, vn))]
    tagged = [pair for pair in fresh if pair not in inline]
    if inline:
        out.append(cmp.finding("field-added", Level.BREAKING, WIRE, p.path,
                               f"{p.new.name} ({p.new.type}) is added inline to version {cmp.vlabel(inline)}, which "
                               "the old spec already defined: readers of the old spec misread these bytes", inline))
    if tagged:
        out.append(cmp.finding("field-added", Level.INFO, WIRE, p.path,
                               f"tagged field {p.new.name} (tag {p.new.tag}) is added to version {cmp.vlabel(tagged)}"
                               ": older readers skip it", tagged))
    if p.old is None and not fresh:
        out.append(cmp.finding("field-added", Level.INFO, (JSON, PY), p.path,
                               f"{p.new.name} ({p.new.type}) is new, in versions {p.new.versions}"))
    return out


def _renamed(cmp: Comparison, p: FieldPair) -> list[EvolutionFinding]:
    assert p.old is not None and p.new is not None
    affects = tuple(s for s, changed in ((JSON, p.old.json_name != p.new.json_name),
                                         (PY, p.old.py_name != p.new.py_name)) if changed)
    if not affects:
        return []
    return [cmp.finding("field-renamed", Level.BREAKING, affects, p.path,
                        f"{p.old.name} is renamed {p.new.name} (same place, same type): JSON name "
                        f"{p.old.json_name} -> {p.new.json_name}, attribute {p.old.py_name} -> {p.new.py_name}")]


def _type_change(old: FieldSpec, new: FieldSpec) -> str | None:
    a, b = old.type, new.type
    if a.kind != b.kind:
        return f"{a} -> {b}"
    if a.is_array:
        assert a.element is not None and b.element is not None
        if a.element.kind != b.element.kind or (a.element.kind != "struct" and str(a.element) != str(b.element)):
            return f"{a} -> {b}"
        return None
    if a.kind != "struct" and str(a) != str(b):
        return f"{a} -> {b}"
    return None


def _types(cmp: Comparison, p: FieldPair) -> list[EvolutionFinding]:
    assert p.old is not None and p.new is not None
    out = []
    change = _type_change(p.old, p.new)
    shared = p.both()
    if change is not None:
        tagged_both = [(vo, vn) for vo, vn in shared if is_tagged(p.old, vo, flexible_at(cmp.old, vo))
                       and is_tagged(p.new, vn, flexible_at(cmp.new, vn))]
        if shared and tagged_both == shared:
            return []  # tag-retyped says it (tags rule)
        if shared:
            out.append(cmp.finding("field-type-changed", Level.BREAKING, (WIRE, PY), p.path,
                                   f"type {change} in version {cmp.vlabel(shared)}, which both specs define", shared))
        else:
            out.append(cmp.finding("field-type-changed", Level.RISKY, PY, p.path,
                                   f"type {change} (no version both specs define has the field: the model changes)"))
    elif p.old.type.struct_ref and p.new.type.struct_ref and p.old.type.struct_ref != p.new.type.struct_ref:
        out.append(cmp.finding("struct-renamed", Level.RISKY, PY, p.path,
                               f"struct {p.old.type.struct_ref} is renamed {p.new.type.struct_ref}: same fields on "
                               "the wire, another model class"))
    if p.old.type.kind in ("string", "bytes") and p.new.type.kind == p.old.type.kind:
        switched = [(vo, vn) for vo, vn in shared
                    if flexible_at(cmp.old, vo) == flexible_at(cmp.new, vn)
                    and compact(p.old, vo, flexible_at(cmp.old, vo)) != compact(p.new, vn, flexible_at(cmp.new, vn))]
        if switched:
            out.append(cmp.finding("field-encoding-changed", Level.BREAKING, WIRE, p.path,
                                   f"the field's flexibleVersions {p.old.flexible_versions} -> "
                                   f"{p.new.flexible_versions} switches it between compact and classic length in "
                                   f"version {cmp.vlabel(switched)}", switched))
    return out


def _moves(cmp: Comparison, old_fields: list[FieldSpec], new_fields: list[FieldSpec],
           siblings: list[FieldPair]) -> list[EvolutionFinding]:
    """Fields inline in both specs whose relative order differs."""
    moved: dict[str, list[VersionPair]] = {}
    for vo, vn in siblings[0].versions:
        o_inline, _ = slots(old_fields, vo, flexible_at(cmp.old, vo))
        n_inline, _ = slots(new_fields, vn, flexible_at(cmp.new, vn))
        o_pos = {id(s.field): s.position for s in o_inline}
        n_pos = {id(s.field): s.position for s in n_inline}
        both = [p for p in siblings if p.old is not None and p.new is not None
                and id(p.old) in o_pos and id(p.new) in n_pos]
        for i, a in enumerate(both):
            for b in both[i + 1:]:
                if (o_pos[id(a.old)] < o_pos[id(b.old)]) != (n_pos[id(a.new)] < n_pos[id(b.new)]):
                    for p in (a, b):
                        pairs = moved.setdefault(p.path, [])
                        if (vo, vn) not in pairs:
                            pairs.append((vo, vn))
    return [cmp.finding("field-moved", Level.BREAKING, WIRE, where,
                        f"{where.rsplit('.', 1)[-1]} changed its order relative to other fields in version "
                        f"{cmp.vlabel(pairs)}", pairs) for where, pairs in moved.items()]


def _groups(old_fields: list[FieldSpec], new_fields: list[FieldSpec],
            pairs: list[FieldPair]) -> list[tuple[list[FieldSpec], list[FieldSpec], list[FieldPair]]]:
    """Each struct's fields in both specs, with their pairs."""
    out = [(old_fields, new_fields, pairs)]
    for p in pairs:
        if p.children and p.old is not None and p.new is not None:
            assert p.old.struct is not None and p.new.struct is not None
            out += _groups(p.old.struct.fields, p.new.struct.fields, p.children)
    return out


def check(cmp: Comparison) -> list[EvolutionFinding]:
    out: list[EvolutionFinding] = []
    for p in cmp.all_pairs:
        if p.old is not None:
            out += _removed(cmp, p)
        if p.new is not None:
            out += _added(cmp, p)
        if p.old is not None and p.new is not None:
            if p.renamed:
                out += _renamed(cmp, p)
            out += _types(cmp, p)
    for old_fields, new_fields, group in _groups(cmp.old.fields, cmp.new.fields, cmp.pairs):
        if group:
            out += _moves(cmp, old_fields, new_fields, group)
    return out
