"""The lag chart drawn under a group's rounds: per partition its lag in records at each commit (the thinned
history :mod:`kafka_meta.analysis.lag` keeps), on the rounds chart's time axis, so a rebalance and the lag it
left behind are read off one vertical line. Each point's hover gives the committed offset, the lag in seconds
and the partition's Burrow status."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from kafka_meta.analysis.lag import GroupStanding
from kafka_meta.analysis.timeline import GroupTimeline
from kafka_meta.report.charts import PALETTE, POINT_PAD_S, when

TimeRange = tuple[float, float]


def time_range(g: GroupTimeline, standing: GroupStanding | None) -> TimeRange | None:
    """The seconds both charts of a group span: its rounds and its commits' lag points (None: no time)."""
    times = [t for r in g.rounds for t in (r.start, r.end) if t is not None]
    if standing is not None:
        times += [p.ms / 1000 for row in standing.partitions for p in row.history if p.ms is not None]
    if not times:
        return None
    low, high = min(times), max(times)
    pad = max((high - low) * 0.02, 1.0 if high - low >= 1 else POINT_PAD_S)
    return low - pad, high + pad


def has_lag(standing: GroupStanding | None) -> bool:
    """Whether there is a lag to draw: some commit's lag in records is known (a log end was read)."""
    return standing is not None and any(p.records is not None for row in standing.partitions for p in row.history)


def lag_figure(standing: GroupStanding, span: TimeRange | None) -> go.Figure:
    fig = go.Figure()
    for i, row in enumerate(standing.partitions):
        points = [p for p in row.history if p.ms is not None and p.records is not None]
        if not points:
            continue
        hover = [f"<b>{row.name}</b> offset {p.offset}<br>lag {p.records} record(s)"
                 + ("" if p.seconds is None else f", {p.seconds:.1f} s") + f"<br>{row.evaluation.status}"
                 for p in points]
        fig.add_trace(go.Scatter(name=f"{row.name} ({row.evaluation.status})", mode="lines+markers",
                                 x=[when(p.ms / 1000) for p in points], y=[p.records for p in points],
                                 line={"shape": "hv", "color": PALETTE[i % len(PALETTE)]}, hoverinfo="text",
                                 hovertext=hover, marker={"size": 5}))
    layout: dict[str, Any] = {"height": 260, "margin": {"l": 10, "r": 10, "t": 30, "b": 30},
                              "legend": {"orientation": "h", "y": -0.3}, "template": "plotly_white",
                              "title": {"text": f"{standing.group}: lag at each commit, records "
                                                f"(Burrow: {standing.status.status})", "font": {"size": 14}}}
    fig.update_layout(**layout)
    fig.update_xaxes(type="date", title_text="time (UTC)")
    if span is not None:
        fig.update_xaxes(range=[when(span[0]), when(span[1])])
    fig.update_yaxes(title_text="lag (records)", rangemode="tozero")
    return fig
