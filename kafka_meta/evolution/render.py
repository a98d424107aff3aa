"""Evolution reports as text (for people) and JSON (for tools)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from kafka_meta.evolution.findings import EvolutionFinding, EvolutionReport, Level


def summary(report: EvolutionReport) -> dict[str, Any]:
    findings = report.sorted()
    levels = Counter(f.level.value for f in findings)
    breaking = Counter(s.value for f in findings if f.breaking for s in f.affects)
    return {"breaking": levels.get("breaking", 0), "risky": levels.get("risky", 0), "info": levels.get("info", 0),
            "breakingBySeverity": dict(sorted(breaking.items()))}


def to_json(report: EvolutionReport) -> dict[str, Any]:
    return {"old": report.old, "new": report.new, "summary": summary(report),
            "findings": [f.to_json() for f in report.sorted()]}


def _line(f: EvolutionFinding) -> list[str]:
    where = f.path if f.path == f.subject or f.path.startswith(f.subject) else f"{f.subject}: {f.path}"
    versions = f" (v{f.versions})" if f.versions else ""
    also = "+".join(s.value for s in f.affects)
    return [f"{f.level.value.upper():<8} {also:<21} [{f.rule}] {where}{versions}", f"    {f.message}"]


def text(report: EvolutionReport, show_info: bool = False) -> str:
    lines = [f"{report.old} -> {report.new}"]
    findings = report.sorted()
    shown = [f for f in findings if show_info or f.level is not Level.INFO]
    for f in shown:
        lines += _line(f)
    s = summary(report)
    by = ", ".join(f"{k}: {v}" for k, v in s["breakingBySeverity"].items())
    hidden = len(findings) - len(shown)
    lines.append(f"{s['breaking']} breaking{f' ({by})' if by else ''}, {s['risky']} risky, {s['info']} info"
                 + (f" ({hidden} info findings not shown; --info lists them)" if hidden else ""))
    return "\n".join(lines)
