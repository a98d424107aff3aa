"""A bounded timeline (the watch keeps each group's newest rounds) says how many rounds it let go, in the
group and in every face, so nothing is silently cut: the storm recording, whose group rebalances on and on."""

from __future__ import annotations

from conftest import ROOT

from kafka_meta.analysis.assemble import Timeline
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.live.core import LiveTimeline
from kafka_meta.log import read_log
from kafka_meta.report.terminal import terminal_text

STORM = ROOT / "fixtures" / "lab" / "storm" / "kafka-logs"


def _live(keep_rounds: int) -> LiveTimeline:
    core = LiveTimeline(keep_rounds=keep_rounds)
    for r in read_log(STORM):
        if r["topic"] == "__consumer_offsets" and not r.get("_error"):
            core.on_record(r["partition"], r["offset"], r["timestamp"], r["key"], r["value"], 0.0)
    return core


def test_a_bounded_timeline_counts_the_rounds_it_let_go():
    full, bounded = _live(1_000).timelines(), _live(2).timelines()
    for group, tl in full.items():
        assert tl.earlier_rounds == 0
        assert bounded[group].earlier_rounds == max(len(tl.rounds) - 2, 0)
        assert bounded[group].to_json()["earlierRounds"] == bounded[group].earlier_rounds
    assert any(tl.earlier_rounds for tl in bounded.values())


def test_the_terminal_report_says_how_many_earlier_rounds_were_not_kept():
    bounded = _live(2).timelines()
    text = terminal_text(AnalysisReport(timeline=Timeline(groups=list(bounded.values()))))
    let_go = max(tl.earlier_rounds for tl in bounded.values())
    assert let_go > 0 and f"2 round(s) (and {let_go} earlier, not kept)" in text
