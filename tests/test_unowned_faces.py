"""The cost of each rebalance in every face: report.json's ``unowned``, the terminal's line per group, the HTML
chart's lane, and ``watch``'s line per group, all from the one computation (kafka_meta.analysis.unowned), on
the lab's KIP-848 recording where a member is killed."""

from __future__ import annotations

import io
import json

import pytest
from lab_truth import recording
from test_lab_timeline import capture_timeline

from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.live.core import LiveTimeline
from kafka_meta.live.view import TerminalView, unowned_lines
from kafka_meta.log import read_log
from kafka_meta.report.charts import UNOWNED_LANE, group_figure
from kafka_meta.report.html import render_html
from kafka_meta.report.terminal import terminal_text

GROUP = "lab-consumer-uniform"


@pytest.fixture(scope="module")
def report() -> AnalysisReport:
    path = recording("consumer")
    if path is None:
        pytest.skip("no consumer recording (fixtures/lab)")
    return AnalysisReport(timeline=capture_timeline(path))


def test_json_gives_each_groups_total_longest_gap_and_rounds(report):
    doc = json.loads(json.dumps(report.to_json()))
    cost = doc["groups"][GROUP]["unowned"]
    tl = report.story.group(GROUP)
    assert cost["partitionSeconds"] == pytest.approx(tl.unowned.partition_seconds, abs=0.001)
    assert cost["partitionSeconds"] == pytest.approx(sum(r["partitionSeconds"] for r in cost["rounds"]), abs=0.01)
    longest = cost["longest"]
    assert longest["how"] == "expiry" and longest["seconds"] > 5
    assert longest["to"] - longest["from"] == pytest.approx(longest["seconds"], abs=0.001)
    assert {r["generation"] for r in cost["rounds"]} <= {r.generation for r in tl.rounds}


def test_terminal_says_the_cost_per_group_and_per_round(report):
    text = terminal_text(report)
    cost = report.story.group(GROUP).unowned
    assert f"unowned: {cost.partition_seconds:.1f} partition-s; longest {cost.longest.seconds:.1f} s" in text
    assert "per round (partition-s): gen " in text
    assert "went without leaving (expired or fenced)" in text


def test_the_chart_has_a_bar_per_costly_round_and_the_page_carries_it(report):
    tl = report.story.group(GROUP)
    fig = group_figure(tl)
    [lane] = [t for t in fig.data if t.name == "unowned partitions"]
    assert len(lane.x) == len(tl.unowned.by_round) and set(lane.y) == {UNOWNED_LANE}
    assert any("partition-s unowned" in text for text in lane.hovertext)
    assert "unowned partitions" in render_html(report)


def test_watch_says_one_line_per_group_from_the_log():
    path = recording("consumer")
    if path is None:
        pytest.skip("no consumer recording (fixtures/lab)")
    core = LiveTimeline("127.0.0.1:9092")
    for r in read_log(path / "kafka-logs"):
        if r["topic"] == "__consumer_offsets" and not r.get("_error"):
            core.on_record(r["partition"], r["offset"], r["timestamp"], r["key"], r["value"], 0.0)
    lines = unowned_lines(core)
    assert any(line.startswith(f"{GROUP}: unowned: ") and "partition-s, longest" in line for line in lines), lines
    from rich.console import Console

    console = Console(record=True, width=320, file=io.StringIO(), color_system=None)
    view = TerminalView(console)
    view.close(core)
    assert f"{GROUP}: unowned: " in console.export_text()


def test_the_page_says_each_groups_cost_above_its_chart(report):
    page = render_html(report)
    cost = report.story.group(GROUP).unowned
    assert (f"Partitions without an owner: {cost.partition_seconds:.1f} partition-s;\nlongest "
            f"{cost.longest.seconds:.1f} s ({cost.longest.partition[0]}-{cost.longest.partition[1]},") in page
