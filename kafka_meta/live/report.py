"""The live timeline as the project's one report document, for the offline HTML page ``--html`` keeps
rewriting: the same :class:`~kafka_meta.analysis.report.AnalysisReport` ``kafka-meta report`` renders, findings
included, and its transactions: the watch's bounded history (each transactional id's newest transactions), its
fenced producers, and as hanging only the transactions the watch found open past their timeout (the report's
rule, every transaction open where the inputs end, would name every transaction in flight)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from kafka_meta.analysis.assemble import Timeline
from kafka_meta.analysis.findings import Thresholds, find
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.live.core import LiveTimeline


def live_report(core: LiveTimeline, thresholds: Thresholds | None = None, now: float | None = None
                ) -> AnalysisReport:
    """The report of what the watch has read so far (``now``: the wall clock, for how long transactions are
    open)."""
    timeline = Timeline(thresholds=thresholds or Thresholds(), errors=list(core.offsets.log.errors))
    if core.transactions.ids:
        story = core.transactions.finish()
        story.findings = [f for f in story.findings if f.kind != "hanging-transaction"] + core.hanging_findings(
            time.time() if now is None else now)
        timeline.transactions = story
    groups = list(core.timelines().values())
    for tl in groups:
        tl.findings = find(tl, timeline.thresholds)
    timeline.groups = sorted(groups, key=lambda g: (-g.trouble, g.group))
    return AnalysisReport(records=core.records.copy(), timeline=timeline)


def write_live_html(core: LiveTimeline, path: str | Path, title: str) -> None:
    """Write the page whole and then put it in place, so a browser reloading it never reads half of one."""
    from kafka_meta.report.html import render_html

    path = Path(path)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(render_html(live_report(core), title), encoding="utf-8")
    os.replace(partial, path)
