"""The HTML report: one self-contained file (plotly.js inlined once, no CDN, no server) with the findings,
then per group its timeline chart, its rounds as a table, and each round's per-member detail one click away
(an HTML ``<details>``, which needs no script).

Every text from the data is escaped: member ids and client ids are whatever clients chose to send.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

import plotly.offline

from kafka_meta.analysis.assemble import Timeline
from kafka_meta.analysis.codes import error_name
from kafka_meta.analysis.timeline import GroupTimeline, MemberRound, Round, tp_labels
from kafka_meta.report.charts import group_figure
from kafka_meta.report.terminal import clock, seconds, short

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid #ddd}
.meta{color:#666;font-size:13px} table{border-collapse:collapse;font-size:12.5px;margin:6px 0;width:100%}
th,td{border-bottom:1px solid #eee;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f6f6;position:sticky;top:0} td.n{text-align:right}
.critical{color:#c0392b;font-weight:600} .warning{color:#d35400;font-weight:600} .info{color:#2980b9}
.finding{margin:4px 0} .evidence{color:#777;font-size:12px;margin-left:1.5em}
details summary{cursor:pointer;color:#2c5d8f} table.summary{width:auto;margin-top:12px}
.err{color:#c0392b} .unfinished{color:#d35400}
"""


def _member_rows(m: MemberRound) -> str:
    def tps(s: set[tuple[str, int]] | None) -> str:
        return "?" if s is None else short(tp_labels(s), 12)

    cells = [m.member_id or "-", m.client_id or "-", m.client or "-", clock(m.joined_at), clock(m.synced_at),
             ", ".join(m.protocols) or "-", ", ".join(m.topics) or "-", m.versions, m.user_data or "-",
             tps(m.owned), tps(m.assigned), tps(m.revoked), tps(m.added),
             "-" if m.epoch is None else f"{m.epoch}" + ("" if m.reconciled is None else
                                                          (" reconciled" if m.reconciled else " reconciling")),
             str(m.evidence) if m.evidence else "-"]
    row = "".join(f"<td>{escape(c)}</td>" for c in cells)
    errors = "".join(f"<div class='err'>{escape(e)}</div>" for e in m.errors)
    return f"<tr>{row}<td>{errors or '-'}</td></tr>"


MEMBER_HEAD = ("member", "client id", "client", "joined", "synced", "offered", "topics", "versions", "user data",
               "owned", "assigned", "revoked", "added", "epoch", "evidence", "errors")


def _round_rows(r: Round) -> str:
    codes = sorted((r.error_codes + r.heartbeat_errors).items())
    state = r.state if not r.phase else f"{r.phase} {r.state}".strip()
    cells = [(str(r.generation) if r.generation is not None else "?", "n"), (clock(r.start), ""),
             (seconds(r.duration_ms), "n"), (r.source, ""),
             ("<br>".join(escape(t) for t in (*r.triggers, *r.notes)) or "-", "raw"),
             (r.leader or "-", ""), (r.protocol or "-", ""),
             (short([f"{v} x{n}" for v, n in sorted(r.versions.items())], 4), ""),
             (short(tp_labels(r.moved), 8), ""), (str(r.commits), "n"),
             (short([f"{error_name(c)} x{n}" for c, n in codes], 4), ""), (state, "unfinished")]
    tds = "".join(f"<td class='{cls}'>{text if cls == 'raw' else escape(text)}</td>" for text, cls in cells)
    head = "".join(f"<th>{h}</th>" for h in MEMBER_HEAD)
    members = "".join(_member_rows(m) for m in r.members)
    explanation = "".join(f"<div>{escape(line)}</div>" for line in r.explanation)
    detail = (f"<tr><td></td><td colspan='{len(cells) - 1}'><details class='members'><summary>"
              f"{len(r.members)} member(s): subscriptions, versions, assignments</summary>{explanation}"
              f"<table><tr>{head}</tr>{members}</table></details></td></tr>")
    return f"<tr>{tds}</tr>{detail}"


ROUND_HEAD = ("gen", "start (UTC)", "took", "from", "why", "leader", "assignor", "versions", "moved", "commits",
              "errors", "state")


def _summary(timeline: Timeline) -> str:
    """One row per group, most trouble first, each linking to its section."""
    rows = []
    for i, g in enumerate(timeline.groups):
        counts = {s: sum(1 for f in g.findings if f.severity == s) for s in ("critical", "warning")}
        worst = escape(g.findings[0].summary) if g.findings else "-"
        cells = (f"<td><a href='#group-{i}'>{escape(g.group)}</a></td><td>{escape(g.kind)}</td>"
                 f"<td class='n'>{len(g.rounds)}</td><td class='n'>{len(g.members)}</td>"
                 f"<td class='n critical'>{counts['critical'] or ''}</td>"
                 f"<td class='n warning'>{counts['warning'] or ''}</td><td>{worst}</td>")
        rows.append(f"<tr>{cells}</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("group", "kind", "rounds", "members", "critical", "warnings",
                                              "most serious"))
    return f"<table class='summary'><tr>{head}</tr>{''.join(rows)}</table>"


def _findings(findings: list) -> str:
    """Critical findings in full; the warnings one click away (a storm of them would hide the rest)."""
    if not findings:
        return "<p>No findings: every group rebalanced cleanly.</p>"
    critical = [f for f in findings if f.severity == "critical"]
    others = [f for f in findings if f.severity != "critical"]
    out = _finding_list(critical)
    if others:
        out += f"<details><summary>{len(others)} warning(s)</summary>{_finding_list(others)}</details>"
    return out


def _finding_list(findings: list) -> str:
    out = []
    for f in findings:
        where = ", ".join(escape(str(e)) for e in f.evidence[:5])
        out.append(f"<div class='finding'><span class='{escape(f.severity)}'>{escape(f.severity.upper())}</span> "
                   f"<b>{escape(f.group)}</b>: {escape(f.summary)}<div class='evidence'>at {clock(f.ts)}"
                   f"{', member ' + escape(f.member) if f.member else ''}{'; ' + where if where else ''}</div></div>")
    return "".join(out)


def _group(g: GroupTimeline, index: int) -> str:
    chart = group_figure(g).to_html(full_html=False, include_plotlyjs=False, div_id=f"chart-{index}",
                                    config={"displaylogo": False, "responsive": True})
    head = "".join(f"<th>{h}</th>" for h in ROUND_HEAD)
    rows = "".join(_round_rows(r) for r in g.rounds)
    return (f"<section id='group-{index}'><h2>{escape(g.group)} <span class='meta'>{escape(g.kind)}, "
            f"{len(g.rounds)} round(s), {len(g.members)} member(s), {len(g.commits)} commit(s), "
            f"{len(g.findings)} finding(s)</span></h2>{chart}<table><tr>{head}</tr>{rows}</table></section>")


def render_html(timeline: Timeline, title: str = "Rebalance timeline") -> str:
    rounds = sum(len(g.rounds) for g in timeline.groups)
    errors = "".join(f"<div class='err'>{escape(e)}</div>" for e in timeline.errors[:50])
    body = "".join(_group(g, i) for i, g in enumerate(timeline.groups) if g.rounds or g.findings)
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)}</title>"
            f"<style>{STYLE}</style><script>{plotly.offline.get_plotlyjs()}</script></head><body>"
            f"<h1>{escape(title)}</h1><div class='meta'>{len(timeline.groups)} group(s), {rounds} round(s), "
            f"{len(timeline.findings)} finding(s); groups with the most trouble first</div>"
            f"{_summary(timeline)}<h2>Findings</h2>{_findings(timeline.ranked_findings)}"
            f"{'<h2>Unreadable input</h2>' + errors if errors else ''}{body}</body></html>")


def write_html(timeline: Timeline, path: str | Path, title: str = "Rebalance timeline") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(timeline, title), encoding="utf-8")
    return path
