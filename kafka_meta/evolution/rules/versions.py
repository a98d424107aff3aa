"""validVersions and flexibleVersions of the message.

* ``valid-versions-shrunk`` (breaking, wire): a version the old spec defines is gone; bytes of it stop
  being readable.
* ``valid-versions-grown`` (info): new versions.
* ``flexible-versions-moved`` (breaking, wire): a version that both specs define became flexible or
  stopped being flexible, which changes every string, array and struct end in it.
"""

from __future__ import annotations

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding, Level, Severity, version_ranges
from kafka_meta.evolution.wire import flexible_at


def check(cmp: Comparison) -> list[EvolutionFinding]:
    out = []
    old, new = cmp.old, cmp.new
    names = f"{old.name} -> {new.name}: " if old.name != new.name else ""
    if not cmp.renumbered:  # a re-based key is compared at the one version pair its record type gives
        gone = [v for v in old.valid_versions if v not in new.valid_versions]
        added = [v for v in new.valid_versions if v not in old.valid_versions]
        if gone:
            out.append(cmp.finding(
                "valid-versions-shrunk", Level.BREAKING, Severity.WIRE, old.name,
                f"{names}validVersions {old.valid_versions} -> {new.valid_versions}: bytes of version "
                f"{version_ranges(gone)} can no longer be read", [(v, v) for v in gone]))
        if added:
            out.append(cmp.finding("valid-versions-grown", Level.INFO, Severity.WIRE, old.name,
                                   f"validVersions {old.valid_versions} -> {new.valid_versions}: new version "
                                   f"{version_ranges(added)}"))
    moved = [(vo, vn) for vo, vn in cmp.versions if flexible_at(old, vo) != flexible_at(new, vn)]
    if moved:
        now = "flexible" if flexible_at(new, moved[0][1]) else "not flexible"
        out.append(cmp.finding(
            "flexible-versions-moved", Level.BREAKING, Severity.WIRE, old.name,
            f"flexibleVersions {old.flexible_versions} -> {new.flexible_versions}: version {cmp.vlabel(moved)} is "
            f"now {now}, so its strings, arrays and struct ends are encoded differently", moved))
    return out
