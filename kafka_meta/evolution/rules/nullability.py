"""``nullability-narrowed`` (breaking, wire): null was legal in a version and no longer is, so new readers
refuse what old writers wrote (and the model loses ``None``). ``nullability-widened`` (risky, wire): new
writers may write null where old readers refuse it."""

from __future__ import annotations

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding, Level, Severity


def check(cmp: Comparison) -> list[EvolutionFinding]:
    out = []
    for p in cmp.all_pairs:
        if p.old is None or p.new is None:
            continue
        shared = p.both()
        was, now = p.old.nullable_versions, p.new.nullable_versions
        narrowed = [(vo, vn) for vo, vn in shared if vo in was and vn not in now]
        widened = [(vo, vn) for vo, vn in shared if vo not in was and vn in now]
        if narrowed:
            out.append(cmp.finding(
                "nullability-narrowed", Level.BREAKING, (Severity.WIRE, Severity.PYTHON_API), p.path,
                f"nullableVersions {p.old.nullable_versions} -> {p.new.nullable_versions}: null is no longer legal in "
                f"version {cmp.vlabel(narrowed)}, so new readers refuse nulls old writers wrote", narrowed))
        if widened:
            out.append(cmp.finding(
                "nullability-widened", Level.RISKY, Severity.WIRE, p.path,
                f"nullableVersions {p.old.nullable_versions} -> {p.new.nullable_versions}: new writers may write null "
                f"in version {cmp.vlabel(widened)}, which old readers refuse", widened))
    return out
