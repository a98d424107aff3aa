"""The matrix as text: a writer x reader table, then what each non-exact cell loses or why it fails."""

from __future__ import annotations

from kafka_meta.compat.check import CellCheck
from kafka_meta.compat.matrix import Matrix, Outcome
from kafka_meta.compat.rules import EXPLAIN

SHORT = {Outcome.EXACT: "exact", Outcome.LOSSY: "lossy", Outcome.PROBING: "probing", Outcome.FAILS: "FAILS"}


def table(m: Matrix) -> list[str]:
    head = ["writer\\reader"] + [f"v{r}" for r in m.versions]
    rows = [head] + [[f"v{w}"] + [SHORT[m.cell(w, r).outcome] for r in m.versions] for w in m.versions]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]


def text(m: Matrix, checks: list[CellCheck] | None = None) -> str:
    lines = [f"{m.type_name}: what a Kafka reader at version R does with bytes written at version W",
             f"forward reading: {m.forward.rule.value} ({EXPLAIN[m.forward.rule]})"]
    if m.forward.note:
        lines.append(f"note: {m.forward.note}")
    lines += ["", *table(m), ""]
    for cell in m.cells.values():
        if cell.outcome is Outcome.EXACT and not cell.caveats:
            continue
        what = {Outcome.LOSSY: f"loses {', '.join(cell.lost)}", Outcome.FAILS: f"fails: {cell.reason}",
                Outcome.PROBING: cell.reason, Outcome.EXACT: "exact"}[cell.outcome]
        lines.append(f"v{cell.writer} -> reader v{cell.reader}: {what}")
        lines += [f"    caveat: {c}" for c in cell.caveats]
    if checks is not None:
        cases = sum(len(c.observations) for c in checks)
        bad = [d for c in checks for d in (f"v{c.writer} -> reader v{c.reader}: {x}" for x in c.disagreements)]
        untested = sorted({w for w in m.versions} - {c.writer for c in checks})
        lines += ["", f"checked by decoding: {len(checks)} cells, {cases} decodes, {len(bad)} disagreements"]
        if untested:
            lines.append("no golden bytes for writer versions " + ", ".join(f"v{w}" for w in untested))
        lines += [f"DISAGREES {x}" for x in bad]
    return "\n".join(lines)
