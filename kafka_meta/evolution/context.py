"""One comparison: an old and a new spec of the same message, the version pairs whose bytes must agree,
and the fields paired up. Every rule reads from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from kafka_meta.evolution.findings import EvolutionFinding, Level, Severity, finding
from kafka_meta.evolution.pairing import FieldPair, VersionPair, pair_fields, walk
from kafka_meta.spec.model import MessageSpec


@dataclass
class Comparison:
    old: MessageSpec
    new: MessageSpec
    versions: list[VersionPair]  # (old version, new version) that must read alike
    subject: str  # how findings name what is compared
    tagged_only: bool = False  # new fields must be tagged (KIP-915 guideline for __consumer_offsets values)
    # old versions that map to no new version on purpose (e.g. a key re-based to version 0)
    renumbered: bool = False
    notes: list[str] = field(default_factory=list)

    @cached_property
    def pairs(self) -> list[FieldPair]:
        return pair_fields(self.old.fields, self.new.fields, self.versions, self.old, self.new, self.new.name)

    @cached_property
    def all_pairs(self) -> list[FieldPair]:
        return walk(self.pairs)

    def vlabel(self, pairs: list[VersionPair]) -> str:
        """The versions of some pairs, as old versions (and the new ones when they differ)."""
        from kafka_meta.evolution.findings import version_ranges

        olds = version_ranges(vo for vo, _ in pairs)
        news = version_ranges(vn for _, vn in pairs)
        return olds if olds == news else f"{olds} (now {news})"

    def finding(self, rule: str, level: Level, affects: Severity | tuple[Severity, ...], path: str, message: str,
                pairs: list[VersionPair] | None = None) -> EvolutionFinding:
        return finding(rule, level, affects, self.subject, path, message, self.vlabel(pairs) if pairs else "")
