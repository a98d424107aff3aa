"""The terminal report: a diagnosis first (findings, most severe first), then each group's rounds as an
aligned table, groups with the most trouble first.

``rich`` does the layout and decides on colour: colour on a terminal, plain text when stdout is a pipe or
a file (or ``NO_COLOR`` is set), so the same call serves people and logs.
"""

from __future__ import annotations

import datetime as dt
import io
from typing import IO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kafka_meta.analysis.codes import error_name
from kafka_meta.analysis.lag import GroupStanding
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.analysis.timeline import GroupTimeline, Round, tp_label, tp_labels

SEVERITY_STYLE = {"critical": "bold red", "warning": "yellow", "info": "cyan"}
MAX_LIST = 6
PIPE_WIDTH = 200


def clock(ts: float | None) -> str:
    if ts is None:
        return "-"
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def seconds(ms: float | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.1f} s"


def short(items: list[str], limit: int = MAX_LIST) -> str:
    if len(items) <= limit:
        return ", ".join(items) or "-"
    return ", ".join(items[:limit]) + f" (+{len(items) - limit})"


def _findings(console: Console, report: AnalysisReport) -> None:
    findings = report.story.ranked_findings
    if not findings:
        if report.problems:  # no clean bill of health for what could not be read
            console.print(Text(f"No findings in what could be read; {len(report.problems)} input(s) or "
                               "part(s) of inputs could not be (listed at the end).", style="yellow"))
        elif report.story.groups:
            console.print(Text("No findings: every group rebalanced cleanly.", style="green"))
        else:
            console.print(Text("No groups: the inputs hold no rebalance and no offset commit.", style="yellow"))
        return
    console.print(Text(f"Findings ({len(findings)})", style="bold"))
    for f in findings:
        line = Text("  ")
        line.append(f"{f.severity.upper():9}", style=SEVERITY_STYLE.get(f.severity, ""))
        line.append(f"{f.group}: ", style="bold")
        line.append(f.summary)
        console.print(line)
        where = ", ".join(str(e) for e in f.evidence[:3]) + (f" (+{len(f.evidence) - 3})" if len(f.evidence) > 3
                                                              else "")
        detail = f"at {clock(f.ts)}" + (f", member {f.member}" if f.member else "") + (f"; {where}" if where
                                                                                        else "")
        console.print(Text(f"             {detail}", style="dim"))
        if f.remedy is not None:
            console.print(Text(f"             change: {f.remedy.text}", style="cyan"))


def time_of_day(ts: float | None) -> str:
    return "-" if ts is None else clock(ts)[11:]


def _round_row(r: Round) -> list[str | Text]:
    versions = "\n".join(f"{v} x{n}" for v, n in sorted(r.versions.items())) or "-"
    errors = "\n".join(f"{error_name(c)} x{n}" for c, n in sorted((r.error_codes + r.heartbeat_errors).items()))
    state = r.state
    if r.phase:
        state = f"{r.phase} {state}".strip()
    generation = str(r.generation) if r.generation is not None else "?"
    return [generation + (" log" if r.source == "offsets" else ""), time_of_day(r.start), seconds(r.duration_ms),
            "\n".join((*r.triggers, *r.notes)) or "-", r.leader or "-", str(len(r.members)), versions,
            short(sorted(f"{tp[0]}-{tp[1]}" for tp in r.moved), 4), str(r.commits), errors or "-",
            Text(state, style="yellow" if state else "")]


ROUND_COLUMNS = (("gen", "right", None), ("start", "left", None), ("took", "right", None), ("why", "left", 16),
                 ("leader", "left", None), ("members", "right", None), ("versions", "left", None),
                 ("moved", "left", 8), ("commits", "right", None), ("errors", "left", 8), ("state", "left", None))
OPTIONAL = frozenset({"leader", "versions", "errors", "state", "took"})  # left out when no round has one


def _unowned(console: Console, g: GroupTimeline) -> None:
    """What the group's rebalances cost: partition-seconds without an owner, the longest gap, and per round."""
    cost = g.unowned
    if cost is None or cost.longest is None:
        return
    longest = cost.longest
    line = Text(f"  unowned: {cost.partition_seconds:.1f} partition-s; longest {longest.seconds:.1f} s "
                f"({tp_label(longest.partition)}, {time_of_day(longest.start)} to {time_of_day(longest.end)}, "
                f"{longest.how}{', ' + longest.bound if longest.bound else ''})", style="yellow")
    per_round = [f"gen {g.rounds[i].generation}: {cost.round_seconds(i):.1f}" for i in sorted(cost.by_round)]
    line.append("; per round (partition-s): " + ", ".join(per_round), style="dim")
    console.print(line)


def _group(console: Console, g: GroupTimeline) -> None:
    protocols = sorted({r.protocol for r in g.rounds if r.protocol})
    days = sorted({clock(r.start)[:10] for r in g.rounds if r.start is not None})
    head = Text(f"{g.group}", style="bold")
    earlier = f" (and {g.earlier_rounds} earlier, not kept)" if g.earlier_rounds else ""
    head.append(f"  [{g.kind}{', ' + ', '.join(protocols) if protocols else ''}] {len(g.rounds)} round(s){earlier}, "
                f"{len(g.members)} member(s), {g.offsets_committed} commit(s), {len(g.findings)} finding(s)"
                + (f"; {' to '.join(days[::max(len(days) - 1, 1)])} (UTC)" if days else ""))
    console.print(head)
    _unowned(console, g)
    if not g.rounds:
        return
    # the short cells whole on one line each (a state broken mid-word is misread); the lists (why, leader,
    # versions, moved, errors) wrap at their words and take what width is left; a column with nothing to say
    # for this group (no leader, no versions, no errors under a server-side protocol) is left out
    rows = [_round_row(r) for r in g.rounds]
    table = Table(show_edge=False, pad_edge=False, header_style="bold", expand=False)
    kept = [i for i, (name, _, _) in enumerate(ROUND_COLUMNS)
            if name not in OPTIONAL or any(str(row[i]) not in ("-", "") for row in rows)]
    for i in kept:
        name, justify, width = ROUND_COLUMNS[i]
        wraps = width is not None or name in ("versions", "leader")
        widest = max(len(str(row[i])) for row in rows) if name == "state" else None
        table.add_column(name, justify=justify, overflow="fold", min_width=width or widest,  # type: ignore[arg-type]
                         no_wrap=not wraps)
    for row in rows:
        table.add_row(*(row[i] for i in kept))
    console.print(table)
    for r in g.rounds:
        for line in r.explanation:
            console.print(Text(f"  gen {r.generation}: {line}", style="dim"))


STATUS_STYLE = {"OK": "green", "WARN": "yellow", "ERR": "bold red", "STOP": "red", "STALL": "red", "REWIND": "red"}
STANDING_SHOWN = 30  # partitions listed per group, the worst first; the JSON lists every one


def _standing(console: Console, standing: GroupStanding | None) -> None:
    """Where the group stands: each partition's committed offset, when and by whom, the log end, the lag in
    records and seconds, and Burrow's status with the rule that decided it; the group's status above."""
    if standing is None or not standing.partitions:
        return
    status = standing.status
    head = Text("  where the group stands: ")
    head.append(status.status, style=STATUS_STYLE.get(status.status, ""))
    total = standing.total_lag
    head.append(f"; lag {'unknown' if total is None else f'{total} record(s)'}; worst partition {status.rule}")
    console.print(head)
    severity = {"REWIND": 0, "STALL": 1, "STOP": 2, "WARN": 3, "OK": 4}
    shown = sorted(standing.partitions, key=lambda p: (severity.get(p.evaluation.status, 5), p.topic, p.partition))
    table = Table(show_edge=False, pad_edge=False, header_style="bold", expand=False)
    for name, justify in (("partition", "left"), ("committed", "right"), ("when (UTC)", "left"),
                          ("member", "left"), ("gen", "right"), ("log end", "right"), ("lag", "right"),
                          ("lag s", "right"), ("status", "left"), ("rule", "left")):
        table.add_column(name, justify=justify, overflow="fold", no_wrap=name not in ("rule", "member"))  # type: ignore[arg-type]
    for p in shown[:STANDING_SHOWN]:
        member = p.client_id or (p.member[-12:] if p.member else "-")
        table.add_row(p.name, str(p.offset), clock(None if p.committed_ms is None else p.committed_ms / 1000),
                      member, "-" if p.generation is None else str(p.generation),
                      "-" if p.log_end is None else str(p.log_end),
                      "-" if p.lag_records is None else str(p.lag_records),
                      "-" if p.lag_seconds is None else f"{p.lag_seconds:.1f}",
                      Text(p.evaluation.status, style=STATUS_STYLE.get(p.evaluation.status, "")), p.evaluation.rule)
    console.print(table)
    if len(shown) > STANDING_SHOWN:
        console.print(Text(f"  ... {len(shown) - STANDING_SHOWN} more partition(s) (--format json lists every one)",
                           style="dim"))


TRANSACTIONS_SHOWN = 20  # the latest transactions listed; every open one is listed besides


def _transactions(console: Console, report: AnalysisReport) -> None:
    """The transaction coordinator's story: each transactional id's latest transactions and every open one."""
    story = report.story.transactions
    if story is None or not (story.ids or story.open_partitions):
        return
    every = story.transactions
    shown = [t for t in every[:-TRANSACTIONS_SHOWN] if t.outcome == "open"] + every[-TRANSACTIONS_SHOWN:]
    console.print()
    console.print(Text(f"Transactions: {len(story.ids)} transactional id(s), {len(every)} transaction(s)"
                       + (f", the latest {len(shown)}" if len(shown) < len(every) else ""), style="bold"))
    table = Table(box=None, pad_edge=False)
    for name in ("transactional id", "producer", "partitions", "start (UTC)", "took", "outcome", "state"):
        table.add_column(name, overflow="fold")
    for t in shown:
        style = {"open": "red", "aborted": "yellow"}.get(t.outcome, "")
        table.add_row(t.transactional_id, f"{t.producer_id}/{t.producer_epoch}", short(tp_labels(t.partitions), 4),
                      clock(t.start_ms / 1000 if t.start_ms and t.start_ms > 0 else None), seconds(t.duration_ms),
                      Text(t.outcome, style=style), t.last_state)
    console.print(table)
    for p in story.open_partitions:
        console.print(Text(f"  {p.topic}-{p.partition}: producer {p.producer_id} open since offset {p.first_offset}; "
                           f"last stable offset {p.last_stable_offset}, log end {p.log_end_offset}", style="red"))


def _inventory(report: AnalysisReport) -> str | None:
    """What was read, in one line: the counts the report's JSON gives in full."""
    parts = []
    if report.records or report.errors or report.unknown_types:
        parts.append(f"{sum(report.records.values())} __consumer_offsets record(s)"
                     + (f" ({report.errors} undecodable)" if report.errors else ""))
    if report.exchanges:
        parts.append(f"{sum(sum(c.values()) for c in report.exchanges.values())} captured exchange(s)")
    if report.blobs or report.blob_errors:
        parts.append(f"{sum(report.blobs.values())} payload(s)"
                     + (f" ({report.blob_errors} undecodable)" if report.blob_errors else ""))
    return "Read: " + ", ".join(parts) if parts else None


def render_terminal(report: AnalysisReport, file: IO[str] | None = None, width: int | None = None,
                    color: bool | None = None) -> None:
    """Print the report. ``color=None`` lets rich decide from the stream (a terminal gets colour)."""
    console = Console(file=file, width=width, highlight=False, soft_wrap=False,
                      force_terminal=color if color else None, no_color=color is False)
    if width is None and not console.is_terminal:
        console.width = PIPE_WIDTH  # a file or a pipe has no width: do not squeeze the tables into 80 columns
    timeline = report.story
    rounds = sum(len(g.rounds) for g in timeline.groups)
    console.print(Text(f"Rebalance timeline: {len(timeline.groups)} group(s), {rounds} round(s), "
                       f"{len(timeline.findings)} finding(s)", style="bold"))
    read = _inventory(report)
    if read:
        console.print(Text(read, style="dim"))
    _findings(console, report)
    _transactions(console, report)
    for g in timeline.groups:
        console.print()
        _group(console, g)
        _standing(console, report.lag.get(g.group))
    problems = report.problems
    if problems:
        console.print()
        console.print(Text(f"Unreadable input ({len(problems)})", style="bold red"))
        for e in problems[:10]:
            console.print(f"  {e}")
        if len(problems) > 10:
            console.print(f"  ... {len(problems) - 10} more (--format json lists every one)")


def terminal_text(report: AnalysisReport, width: int = PIPE_WIDTH) -> str:
    """The report as plain text (no colour), e.g. for report.txt."""
    out = io.StringIO()
    render_terminal(report, file=out, width=width, color=False)
    return out.getvalue()
