"""What the evolution checker reports: findings with a rule id, a level, what they break, and where."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


class Level(enum.Enum):
    BREAKING = "breaking"  # something that worked stops working
    RISKY = "risky"  # works on the wire, but changes meaning or invites a later break
    INFO = "info"  # a compatible change worth knowing (new versions, new fields, new records)


class Severity(enum.Enum):
    """What a change breaks: the bytes, Kafka's JSON names (and golden files), or the Python models."""

    WIRE = "wire"
    JSON_NAMES = "json-names"
    PYTHON_API = "python-api"


_RANK = {Severity.WIRE: 0, Severity.JSON_NAMES: 1, Severity.PYTHON_API: 2}
_LEVEL_RANK = {Level.BREAKING: 0, Level.RISKY: 1, Level.INFO: 2}


@dataclass(frozen=True)
class EvolutionFinding:
    rule: str
    level: Level
    affects: tuple[Severity, ...]
    subject: str  # the message or record compared, e.g. "ShareGroupMetadataValue" or "record 11 value"
    path: str  # the field (Kafka spec names), or the message itself
    message: str
    versions: str = ""  # the (old) versions concerned, e.g. "0" or "1-3"

    @property
    def severity(self) -> Severity:
        """The most serious thing it breaks (wire before json-names before python-api)."""
        return min(self.affects, key=_RANK.__getitem__)

    @property
    def breaking(self) -> bool:
        return self.level is Level.BREAKING

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "level": self.level.value, "severity": self.severity.value,
                "affects": [s.value for s in self.affects], "subject": self.subject, "path": self.path,
                "versions": self.versions or None, "message": self.message}

    def sort_key(self) -> tuple[Any, ...]:
        return (_LEVEL_RANK[self.level], _RANK[self.severity], self.subject, self.path, self.rule)


def finding(rule: str, level: Level, affects: Iterable[Severity] | Severity, subject: str, path: str, message: str,
            versions: str = "") -> EvolutionFinding:
    items = (affects,) if isinstance(affects, Severity) else tuple(affects)
    ranked = tuple(sorted(set(items), key=_RANK.__getitem__))
    return EvolutionFinding(rule, level, ranked, subject, path, message, versions)


@dataclass
class EvolutionReport:
    """Every finding of one comparison (``old`` -> ``new``), in a stable order."""

    old: str
    new: str
    findings: list[EvolutionFinding] = field(default_factory=list)

    def add(self, items: Iterable[EvolutionFinding]) -> None:
        self.findings.extend(items)

    def sorted(self) -> list[EvolutionFinding]:
        unique = dict.fromkeys(self.findings)  # the same finding reached twice is reported once
        return sorted(unique, key=EvolutionFinding.sort_key)

    def breaking(self, severities: Iterable[Severity] | None = None) -> list[EvolutionFinding]:
        wanted = set(severities) if severities is not None else set(Severity)
        return [f for f in self.sorted() if f.breaking and wanted & set(f.affects)]


def version_ranges(versions: Iterable[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``."""
    out: list[str] = []
    items = sorted(set(versions))
    start = prev = None
    for v in items:
        if start is None:
            start = prev = v
        elif v == prev + 1:  # type: ignore[operator]
            prev = v
        else:
            out.append(str(start) if start == prev else f"{start}-{prev}")
            start = prev = v
    if start is not None:
        out.append(str(start) if start == prev else f"{start}-{prev}")
    return ", ".join(out)
