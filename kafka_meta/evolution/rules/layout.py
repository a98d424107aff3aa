"""``layout-changed`` (breaking, wire): a version both specs define is laid out differently, i.e. its
bytes changed without a version bump. Compared position by position (what Kafka's own checker sees) and
explained by name (what the field rules report in detail)."""

from __future__ import annotations

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding, Level, Severity
from kafka_meta.evolution.pairing import VersionPair
from kafka_meta.evolution.wire import compatible, encoding, flexible_at, message_layout, slots


def _explain(cmp: Comparison, vo: int, vn: int) -> str:
    fo, fn = flexible_at(cmp.old, vo), flexible_at(cmp.new, vn)
    o_inline, o_tagged = slots(cmp.old.fields, vo, fo)
    n_inline, n_tagged = slots(cmp.new.fields, vn, fn)
    parts = []
    for i in range(max(len(o_inline), len(n_inline))):
        a = o_inline[i] if i < len(o_inline) else None
        b = n_inline[i] if i < len(n_inline) else None
        if a is not None and b is not None and compatible(encoding(a.field, vo, fo), encoding(b.field, vn, fn)):
            if a.field.name != b.field.name:
                parts.append(f"position {i}: {a.field.name} -> {b.field.name} (same encoding)")
            continue
        was = f"{a.field.name} ({a.field.type})" if a else "nothing"
        now = f"{b.field.name} ({b.field.type})" if b else "nothing"
        if a is not None and b is not None and a.field.name == b.field.name:
            same = str(a.field.type) == str(b.field.type)
            now = f"{b.field.type}, encoded differently" if same else str(b.field.type)
        parts.append(f"position {i}: {was} -> {now}")
    for tag in sorted(set(o_tagged) | set(n_tagged)):
        a, b = o_tagged.get(tag), n_tagged.get(tag)
        if a is not None and b is not None and compatible(encoding(a.field, vo, fo), encoding(b.field, vn, fn)):
            continue
        if a is None or b is None:
            continue  # a tagged field that comes or goes does not move other bytes (reported by the field rules)
        parts.append(f"tag {tag}: {a.field.name} ({a.field.type}) -> {b.field.name} ({b.field.type})")
    return "; ".join(parts) or "nested struct layouts differ"


def check(cmp: Comparison) -> list[EvolutionFinding]:
    groups: dict[str, list[VersionPair]] = {}
    for vo, vn in cmp.versions:
        if compatible(message_layout(cmp.old, vo), message_layout(cmp.new, vn)):
            continue
        groups.setdefault(_explain(cmp, vo, vn), []).append((vo, vn))
    return [cmp.finding("layout-changed", Level.BREAKING, Severity.WIRE, cmp.old.name,
                        f"version {cmp.vlabel(pairs)} is laid out differently without a version bump: {why}", pairs)
            for why, pairs in groups.items()]

