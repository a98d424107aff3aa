"""The terminal faces give their widest columns to the content: at 120 and at 100 columns no group name, state
or kind breaks mid-word, in `watch`'s table (kafka_meta.live.view) and in `report`'s (kafka_meta.report.terminal),
rendered by rich from the lab's real recordings (their records, and what the coordinators' describe answers said)."""

from __future__ import annotations

import io
import re

import pytest
from conftest import ROOT

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.inputs import read
from kafka_meta.live import describe
from kafka_meta.live.core import LiveTimeline
from kafka_meta.live.view import TerminalView
from kafka_meta.log import read_log
from kafka_meta.report.terminal import terminal_text

LAB = ROOT / "fixtures" / "lab"
WIDTHS = (120, 100)
DESCRIBES = (("DescribeGroups", describe.described_classic), ("ShareGroupDescribe", describe.described_share),
             ("StreamsGroupDescribe", describe.described_streams),
             ("ConsumerGroupDescribe", describe.described_consumer))


@pytest.fixture(scope="module")
def core() -> LiveTimeline:
    """Every recording's __consumer_offsets, then every describe answer of every capture, in capture order
    (the states a group went through: PreparingRebalance, CompletingRebalance, Stable, Empty ...)."""
    recordings = sorted(p for p in LAB.iterdir() if (p / "kafka-logs").is_dir()) if LAB.is_dir() else []
    if not recordings:
        pytest.skip("no lab recordings")
    core = LiveTimeline("127.0.0.1:9092")
    for path in recordings:
        for r in read_log(path / "kafka-logs"):
            if r["topic"] == "__consumer_offsets" and not r.get("_error"):
                core.on_record(r["partition"], r["offset"], r["timestamp"], r["key"], r["value"], 0.0)
    for d in _descriptions():
        core.on_description(d, 1.0)
    return core


def _descriptions() -> list:
    """Every describe answer of every capture, as the watch reads them."""
    out = []
    for path in sorted(LAB.iterdir()):
        if not (path / "capture.pcapng").exists():
            continue
        for e in read([str(path / "capture.pcapng")]).exchanges:
            for api, read_answer in DESCRIBES:
                if e.get("apiName") == api and not e.get("_error") and e["response"]:
                    out += read_answer(e["response"])
    return out


def _whole(text: str, words: set[str]) -> list[str]:
    """The words that appear on no line whole (broken across lines, or cut)."""
    return sorted(w for w in words if not any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", line)
                                              for line in text.splitlines()))


def _watched(core: LiveTimeline, width: int) -> str:
    from rich.console import Console

    console = Console(record=True, width=width, file=io.StringIO(), color_system=None)
    view = TerminalView(console)
    view.close(core)
    return console.export_text()


@pytest.mark.parametrize("width", WIDTHS)
def test_watch_never_breaks_a_group_name_or_state(core, width):
    """The view as each describe answer left it (a group is shown in its newest state: every state it went
    through is shown once, PreparingRebalance and CompletingRebalance among them)."""
    views = core.groups()
    names = {v.group for v in views}
    assert any(len(n) >= 20 for n in names), names  # long names
    seen: set[str] = set()
    for d in _descriptions():
        if d.state in seen or not core.wanted(d.group):
            continue
        seen.add(d.state)
        core.on_description(d, 2.0)
        text = _watched(core, width)
        shown = core.groups()
        assert max(len(line) for line in text.splitlines()) <= width
        assert _whole(text, names | {v.state for v in shown if v.state} | {v.kind for v in shown}) == [], text
    assert {"PreparingRebalance", "Stable", "Empty"} <= seen, seen


@pytest.mark.parametrize("width", (120,))
def test_report_never_breaks_a_group_name_or_state(width):
    paths = [str(p / part) for p in sorted(LAB.iterdir()) for part in ("capture.pcapng", "kafka-logs")
             if (p / part).exists()] if LAB.is_dir() else []
    if not paths:
        pytest.skip("no lab recordings")
    inputs = read(paths)
    report = AnalysisReport(timeline=build_timeline(inputs.exchanges, inputs.offsets))
    text = terminal_text(report, width=width)
    groups = report.story.groups
    states = {r.state for g in groups for r in g.rounds if r.state}
    assert {"superseded"} <= states
    assert _whole(text, {g.group for g in groups} | states) == []
