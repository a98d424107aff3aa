"""The HTML report: one self-contained file (plotly.js inlined once, no CDN, no server) with the findings,
then per group its timeline chart, its rounds as a table, and each round's per-member detail one click away
(an HTML ``<details>``, which needs no script).

The page is a jinja2 template (``templates/report.html.j2``) with autoescaping on, so every text from the
data is escaped by the engine, not by remembering to: member ids and client ids are whatever clients chose to
send. Only plotly's script and its chart divs (which plotly builds, JSON-encoding the data) are marked safe.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from pathlib import Path

import jinja2
import plotly.offline
from markupsafe import Markup

from kafka_meta.analysis.codes import error_name
from kafka_meta.analysis.findings import SEVERITY_WEIGHT, Finding
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.analysis.timeline import GroupTimeline, MemberRound, Round, tp_labels
from kafka_meta.report.charts import group_figure
from kafka_meta.report.lag_chart import has_lag, lag_figure, time_range, when
from kafka_meta.report.terminal import clock, seconds, short

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid #ddd}
.meta{color:#666;font-size:13px} table{border-collapse:collapse;font-size:12.5px;margin:6px 0;width:100%}
th,td{border-bottom:1px solid #eee;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f6f6;position:sticky;top:0} td.n{text-align:right}
.critical{color:#c0392b;font-weight:600} .warning{color:#d35400;font-weight:600} .info{color:#2980b9}
.finding{margin:4px 0} .evidence{color:#777;font-size:12px;margin-left:1.5em}
.remedy{color:#1d6a3a;font-size:13px;margin-left:1.5em}
details summary{cursor:pointer;color:#2c5d8f} table.summary{width:auto;margin-top:12px}
.err{color:#c0392b} .unfinished{color:#d35400}
"""

MEMBER_HEAD = ("member", "client id", "client", "joined", "synced", "offered", "topics", "versions", "user data",
               "owned", "assigned", "revoked", "added", "epoch", "evidence", "errors")
ROUND_HEAD = ("gen", "start (UTC)", "took", "from", "why", "leader", "assignor", "versions", "moved", "commits",
              "errors", "state")
SUMMARY_HEAD = ("group", "kind", "rounds", "members", "critical", "warnings", "most serious")
TRANSACTION_HEAD = ("transactional id", "producer id", "epoch", "partitions", "start (UTC)", "took", "outcome",
                    "last state")


@lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.PackageLoader("kafka_meta.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=False)
    return env.get_template("report.html.j2")


def _member_cells(m: MemberRound) -> list[str]:
    def tps(s: set[tuple[str, int]] | None) -> str:
        return "?" if s is None else short(tp_labels(s), 12)

    epoch = "-" if m.epoch is None else f"{m.epoch}" + ("" if m.reconciled is None else
                                                         (" reconciled" if m.reconciled else " reconciling"))
    return [m.member_id or "-", m.client_id or "-", m.client or "-", clock(m.joined_at), clock(m.synced_at),
            ", ".join(m.protocols) or "-", ", ".join(m.topics) or "-", m.versions, m.user_data or "-",
            tps(m.owned), tps(m.assigned), tps(m.revoked), tps(m.added), epoch,
            str(m.evidence) if m.evidence else "-"]


def _state(r: Round) -> str:
    return r.state if not r.phase else f"{r.phase} {r.state}".strip()


def _round_errors(r: Round) -> str:
    codes = sorted((r.error_codes + r.heartbeat_errors).items())
    return short([f"{error_name(c)} x{n}" for c, n in codes], 4)


def _severity_count(g: GroupTimeline, severity: str) -> int:
    return sum(1 for f in g.findings if f.severity == severity)


def by_severity(findings: list[Finding]) -> str:
    """How many findings of each severity, each by its own name, the most severe first: '3 warning, 1 info'."""
    counted = Counter(f.severity for f in findings)
    order = sorted(counted, key=lambda s: (-SEVERITY_WEIGHT.get(s, 0), s))
    return ", ".join(f"{counted[s]} {s}" for s in order)


def _chart(g: GroupTimeline, index: int, report: AnalysisReport | None = None) -> Markup:
    """plotly's chart div: built by plotly from the data (JSON-encoded), so it is the one trusted markup. With
    a lag chart under it, both span the same time."""
    figure = group_figure(g)
    standing = report.lag.get(g.group) if report is not None else None
    span = time_range(g, standing) if has_lag(standing) else None
    if span is not None:
        figure.update_xaxes(range=[when(span[0]), when(span[1])])
    return Markup(figure.to_html(full_html=False, include_plotlyjs=False, div_id=f"chart-{index}",
                                 config={"displaylogo": False, "responsive": True}))


def _lag_charts(report: AnalysisReport, groups: list[GroupTimeline]) -> dict[int, Markup]:
    """Each group's lag chart (where some lag is known), on its rounds chart's time axis."""
    charts = {}
    for i, g in enumerate(groups):
        standing = report.lag.get(g.group)
        if standing is not None and has_lag(standing):
            charts[i] = Markup(lag_figure(standing, time_range(g, standing)).to_html(
                full_html=False, include_plotlyjs=False, div_id=f"lag-{i}",
                config={"displaylogo": False, "responsive": True}))
    return charts


def render_html(report: AnalysisReport, title: str = "Rebalance timeline") -> str:
    timeline = report.story
    findings = timeline.ranked_findings
    groups = timeline.groups
    return _template().render(
        title=title, style=Markup(STYLE), plotly_js=Markup(plotly.offline.get_plotlyjs()),
        groups=groups, rounds=sum(len(g.rounds) for g in groups), findings=findings,
        critical=[f for f in findings if f.severity == "critical"],
        others=[f for f in findings if f.severity != "critical"],
        errors=report.problems, transactions=timeline.transactions, transaction_head=TRANSACTION_HEAD, labels=tp_labels,
        charts={i: _chart(g, i, report) for i, g in enumerate(groups) if g.rounds or g.findings},
        lag_charts=_lag_charts(report, groups), standings=report.lag,
        standing_shown={i for i, g in enumerate(groups) if g.group in report.lag
                        and (has_lag(report.lag[g.group]) or report.lag[g.group].status.status != "OK")},
        summary_head=SUMMARY_HEAD, round_head=ROUND_HEAD, member_head=MEMBER_HEAD,
        count=_severity_count, by_severity=by_severity, clock=clock, seconds=seconds, state=_state,
        round_errors=_round_errors,
        member_cells=_member_cells,
        versions=lambda r: short([f"{v} x{n}" for v, n in sorted(r.versions.items())], 4),
        moved=lambda r: short(tp_labels(r.moved), 8))


def write_html(report: AnalysisReport, path: str | Path, title: str = "Rebalance timeline") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report, title), encoding="utf-8")
    return path
