"""One plotly figure per group: its rounds on a time axis, one lane per member, coloured by protocol and
metadata versions, findings marked on their own lane.

Each member's bar runs from its JoinGroup request to its SyncGroup answer (the time it could not consume
under an eager assignor); a round known only from the offsets log is a point (the log records when a
generation completed, not how long it took).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

import plotly.graph_objects as go

from kafka_meta.analysis.member_names import member_label
from kafka_meta.analysis.timeline import GroupTimeline, MemberRound, Round

FINDINGS_LANE = "findings"
TRANSACTIONS_LANE = "transactional commits"
# each outcome of a transactional offset commit, drawn apart: the aborted ones never took effect
OUTCOME_MARKS = {"committed": ("circle", "#54a24b"), "aborted": ("x-thin-open", "#c0392b"),
                 "open": ("circle-open", "#e67e22")}
SEVERITY_COLOUR = {"critical": "#c0392b", "warning": "#e67e22", "info": "#2980b9"}
PALETTE = ("#4c78a8", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac", "#f58518",
           "#e45756")
POINT_PAD_S = 30.0
MIN_BAR_MS = 150.0  # a bar shorter than this would not be visible at the scale of a storm


def when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")


def lane(m: MemberRound) -> str:
    return member_label(m.member_id, m.client_id)


def colour_key(r: Round, m: MemberRound) -> str:
    return f"{r.protocol or next(iter(m.protocols), None) or r.protocol_type or '?'} · {m.versions}"


def _hover(r: Round, m: MemberRound) -> str:
    def tps(s: set[tuple[str, int]] | None) -> str:
        return "?" if s is None else (", ".join(f"{t}-{p}" for t, p in sorted(s))[:200] or "none")

    lines = [f"<b>{m.member_id}</b> ({m.client_id or '-'})", f"generation {r.generation}, {r.protocol or '-'}",
             f"versions: {m.versions}" + (f", {m.user_data}" if m.user_data else ""),
             f"assigned: {tps(m.assigned)}", f"revoked: {tps(m.revoked)}", f"added: {tps(m.added)}"]
    if m.epoch is not None:
        lines.append(f"member epoch {m.epoch}, reconciled: {m.reconciled}")
    lines += [f"! {e}" for e in m.errors]
    return "<br>".join(lines)


def _transaction_marks(fig: go.Figure, g: GroupTimeline, lanes: dict[str, None]) -> dict[str, None]:
    """The group's transactional offset commits as marks on a lane of their own, one series per outcome
    (committed, aborted: never in force, open: still waiting for a marker where the log ends), per second."""
    timed = sorted((second, outcome, n) for (second, outcome), n in g.transaction_marks.items() if second is not None)
    if not timed:
        return lanes
    for outcome, (symbol, colour) in OUTCOME_MARKS.items():
        points = [(second, n) for second, kind, n in timed if kind == outcome]
        if points:
            fig.add_trace(go.Scatter(name=f"transaction {outcome}", mode="markers",
                                     x=[when(second) for second, _ in points], y=[TRANSACTIONS_LANE] * len(points),
                                     hoverinfo="text", hovertext=[f"{n} offset commit(s) in transactions {outcome}"
                                                                  for _, n in points],
                                     marker={"symbol": symbol, "size": 11, "color": colour,
                                             "line": {"width": 2, "color": colour}}))
    return {TRANSACTIONS_LANE: None, **lanes}


UNOWNED_LANE = "unowned partitions"


def _unowned_bars(fig: go.Figure, g: GroupTimeline, lanes: dict[str, None]) -> dict[str, None]:
    """A lane of what each round cost: a bar from the first partition left without an owner to the last one
    owned again, its hover the round's partition-seconds and each gap (kafka_meta.analysis.unowned)."""
    cost = g.unowned
    if cost is None or not cost.by_round:
        return lanes
    base, x, text = [], [], []
    for i, gaps in sorted(cost.by_round.items()):
        start, end = min(gap.start for gap in gaps), max(gap.end for gap in gaps)
        base.append(when(start))
        x.append(max((end - start) * 1000, MIN_BAR_MS))
        text.append(f"<b>gen {g.rounds[i].generation}: {cost.round_seconds(i):.1f} partition-s unowned</b><br>"
                    + "<br>".join(f"{gap.partition[0]}-{gap.partition[1]}: {gap.seconds:.2f} s ({gap.how})"
                                  for gap in gaps[:12]))
    fig.add_trace(go.Bar(name="unowned partitions", orientation="h", base=base, x=x, y=[UNOWNED_LANE] * len(x),
                         hovertext=text, hoverinfo="text", marker={"color": "#d62728", "opacity": 0.6}))
    return {UNOWNED_LANE: None, **lanes}


def group_figure(g: GroupTimeline) -> go.Figure:
    bars: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    points: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    lanes: dict[str, None] = {}
    for r in g.rounds:
        for m in r.members:
            name = lane(m)
            lanes.setdefault(name)
            start = m.joined_at or r.start
            end = m.synced_at or r.end
            if start is None:
                continue
            target = bars if end is not None or r.source == "capture" else points
            series = target[colour_key(r, m)]
            series["y"].append(name)
            series["text"].append(_hover(r, m))
            if target is bars:
                stop = end if end is not None else start
                series["base"].append(when(start))
                series["x"].append(max((stop - start) * 1000, MIN_BAR_MS))
                series["pattern"].append("" if end is not None else "/")
            else:
                series["x"].append(when(start))
    fig = go.Figure()
    colours = {key: PALETTE[i % len(PALETTE)] for i, key in enumerate(sorted(set(bars) | set(points)))}
    for key, s in sorted(bars.items()):
        fig.add_trace(go.Bar(name=key, legendgroup=key, orientation="h", base=s["base"], x=s["x"], y=s["y"],
                             hovertext=s["text"], hoverinfo="text", marker={"color": colours[key],
                                                                           "pattern": {"shape": s["pattern"]}}))
    for key, s in sorted(points.items()):
        fig.add_trace(go.Scatter(name=key, legendgroup=key, showlegend=key not in bars, mode="markers", x=s["x"],
                                 y=s["y"], hovertext=s["text"], hoverinfo="text",
                                 marker={"symbol": "diamond", "size": 12, "color": colours[key]}))
    for r in g.rounds:
        if r.start is None:
            continue
        end = r.end if r.end is not None and r.end > r.start else r.start + MIN_BAR_MS / 1000
        fig.add_vrect(x0=when(r.start), x1=when(end), fillcolor="#888", opacity=0.08, line_width=0,
                      annotation_text=f"gen {r.generation if r.generation is not None else '?'}",
                      annotation_position="top left", annotation_font_size=10)
    lanes = _transaction_marks(fig, g, lanes)
    lanes = _unowned_bars(fig, g, lanes)
    marked = [f for f in g.findings if f.ts is not None]
    if marked:
        lanes = {FINDINGS_LANE: None, **lanes}
        fig.add_trace(go.Scatter(name="findings", mode="markers", x=[when(f.ts) for f in marked],
                                 y=[FINDINGS_LANE] * len(marked), hoverinfo="text",
                                 hovertext=[f"<b>{f.severity}</b>: {f.summary}" for f in marked],
                                 marker={"symbol": "x", "size": 13,
                                         "color": [SEVERITY_COLOUR.get(f.severity, "#555") for f in marked]}))
    fig.update_layout(barmode="overlay", height=140 + 34 * max(len(lanes), 1), margin={"l": 10, "r": 10, "t": 30,
                                                                                        "b": 30},
                      legend={"orientation": "h", "y": -0.25}, template="plotly_white",
                      title={"text": f"{g.group}: rounds by member", "font": {"size": 14}})
    fig.update_xaxes(type="date", title_text="time (UTC)")
    times = [r.start for r in g.rounds if r.start is not None] + [r.end for r in g.rounds if r.end is not None]
    if times and max(times) - min(times) < 1:  # a single moment (one logged generation): show a minute around it
        fig.update_xaxes(range=[when(min(times) - POINT_PAD_S), when(max(times) + POINT_PAD_S)])
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(list(lanes))), title_text="")
    return fig
