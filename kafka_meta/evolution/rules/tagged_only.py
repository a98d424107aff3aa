"""``tagged-only-violated`` (breaking, wire): a non-tagged field added to a record whose evolution must
be tagged-only. KIP-915 asks that ``__consumer_offsets`` values grow only by tagged fields, without a
version bump, because a coordinator that is downgraded during a rolling upgrade must still read the
newer records: an inline field (in an existing version, or in a new one that older coordinators cannot
read) breaks that. Applies to coordinator values, and to whatever ``--tagged-only`` names."""

from __future__ import annotations

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding, Level, Severity
from kafka_meta.evolution.wire import flexible_at, is_tagged


def check(cmp: Comparison) -> list[EvolutionFinding]:
    if not cmp.tagged_only:
        return []
    out = []
    for p in cmp.all_pairs:
        if p.old is not None or p.new is None:
            continue
        inline = [v for v in cmp.new.valid_versions
                  if v in p.new.versions and not is_tagged(p.new, v, flexible_at(cmp.new, v))]
        if inline:
            from kafka_meta.evolution.findings import version_ranges

            out.append(cmp.finding(
                "tagged-only-violated", Level.BREAKING, Severity.WIRE, p.path,
                f"{p.new.name} ({p.new.type}) is added as a non-tagged field (version {version_ranges(inline)}) to "
                f"{cmp.new.name}, whose evolution must be tagged-only (KIP-915): coordinators that do not know it "
                "cannot read these records"))
    return out
