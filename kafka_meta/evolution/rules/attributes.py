"""Field attributes that do not move bytes but change what they mean.

* ``default-changed``: for a tagged field the default decides what is written and what an absent tag
  means, so a change misreads old bytes (breaking, wire); for a field some version lacks, readers of
  those versions fill in another value (risky, wire); otherwise only the model default changes (risky,
  python-api).
* ``ignorable-changed`` (risky, wire): whether writers of older versions silently drop a non-default
  value, or refuse it.
* ``map-key-changed``, ``entity-type-changed`` (risky, python-api): no wire effect; Kafka's generated
  classes (keyed collections, entity types) change.
"""

from __future__ import annotations

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding, Level, Severity
from kafka_meta.evolution.wire import flexible_at, is_tagged
from kafka_meta.spec.model import FieldSpec


def _default(f: FieldSpec) -> str:
    try:
        return repr(f.default_value())
    except ValueError:
        return repr(f.default)


def _show(f: FieldSpec) -> str:
    return "(none: the type's empty value)" if f.default is None else repr(f.default)


def check(cmp: Comparison) -> list[EvolutionFinding]:
    out = []
    for p in cmp.all_pairs:
        old, new = p.old, p.new
        if old is None or new is None:
            continue
        if old.type.kind == new.type.kind and _default(old) != _default(new):
            tagged = [(vo, vn) for vo, vn in p.both() if is_tagged(old, vo, flexible_at(cmp.old, vo))
                      or is_tagged(new, vn, flexible_at(cmp.new, vn))]
            lacking = [(vo, vn) for vo, vn in p.versions if not p.old_present(vo) or not p.new_present(vn)]
            what = f"default {_show(old)} -> {_show(new)}"
            if tagged:
                out.append(cmp.finding("default-changed", Level.BREAKING, Severity.WIRE, p.path,
                                       f"{what} of a tagged field: writers omit the default, so an absent tag now "
                                       "means another value", tagged))
            elif lacking:
                out.append(cmp.finding("default-changed", Level.RISKY, Severity.WIRE, p.path,
                                       f"{what}: readers of versions without the field fill in another value",
                                       lacking))
            else:
                out.append(cmp.finding("default-changed", Level.RISKY, Severity.PYTHON_API, p.path, what))
        if old.ignorable != new.ignorable:
            now = "drops a non-default value silently" if new.ignorable else "fails on a non-default value"
            out.append(cmp.finding(
                "ignorable-changed", Level.RISKY, Severity.WIRE, p.path,
                f"ignorable {str(old.ignorable).lower()} -> {str(new.ignorable).lower()}: writing a version without "
                f"the field now {now}"))
        if old.map_key != new.map_key:
            out.append(cmp.finding("map-key-changed", Level.RISKY, Severity.PYTHON_API, p.path,
                                   f"mapKey {str(old.map_key).lower()} -> {str(new.map_key).lower()}: no wire effect; "
                                   "Kafka's generated collection keyed by it changes"))
        if old.entity_type != new.entity_type:
            out.append(cmp.finding("entity-type-changed", Level.RISKY, Severity.PYTHON_API, p.path,
                                   f"entityType {old.entity_type} -> {new.entity_type}: no wire effect"))
    return out

