"""``probing-fields-moved`` (breaking, wire): Kafka Streams' version probing (KIP-268) reads a
subscription of *any* version, even one newer than it knows, for its leading ``version`` and
``latestSupportedVersion`` fields. They must stay where they are, with their types, in every version;
otherwise an older member cannot even tell which version a newer one speaks.

Applies to messages that carry their version as their first field (named ``version``)."""

from __future__ import annotations

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding, Level, Severity, version_ranges
from kafka_meta.evolution.wire import encoding, flexible_at, slots

PROBING_FIELDS = ("version", "latestsupportedversion")


def check(cmp: Comparison) -> list[EvolutionFinding]:
    old, new = cmp.old, cmp.new
    newest = old.valid_versions.high
    old_inline, _ = slots(old.fields, newest, flexible_at(old, newest))
    if not old_inline or old_inline[0].field.name.lower() != "version":
        return []
    out = []
    for slot in old_inline:
        if slot.field.name.lower() not in PROBING_FIELDS:
            break
        f = slot.field
        expected = encoding(f, newest, flexible_at(old, newest))
        before = [encoding(s.field, newest, flexible_at(old, newest)) for s in old_inline[: slot.position]]
        bad = []
        for v in new.valid_versions:
            if v < f.versions.low:
                continue
            inline, _ = slots(new.fields, v, flexible_at(new, v))
            here = inline[slot.position] if slot.position < len(inline) else None  # type: ignore[operator]
            ahead = [encoding(s.field, v, flexible_at(new, v)) for s in inline[: slot.position]]
            if here is None or here.field.name.lower() != f.name.lower() or ahead != before \
                    or encoding(here.field, v, flexible_at(new, v)) != expected:
                bad.append(v)
        if bad:
            out.append(cmp.finding(
                "probing-fields-moved", Level.BREAKING, Severity.WIRE, f"{new.name}.{f.name}",
                f"{f.name} ({f.type}) must stay inline field {slot.position} in every version for version "
                f"probing; in version {version_ranges(bad)} it does not"))
    return out
