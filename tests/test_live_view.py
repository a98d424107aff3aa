"""The live terminal view (kafka_meta.live.view.TerminalView), rendered by rich into a recording console from a
core fed with real records and descriptions: the lab's classic recording's ``__consumer_offsets`` one record at
a time, and what the lab's classic, share and streams scenarios' describe answers said of their groups."""

from __future__ import annotations

import io

import pytest
from conftest import ROOT

from kafka_meta.inputs import read
from kafka_meta.live import describe
from kafka_meta.live.core import LiveTimeline
from kafka_meta.live.events import DISCONNECTED, Event
from kafka_meta.live.view import TerminalView
from kafka_meta.log import read_log

LAB = ROOT / "fixtures" / "lab"
WIDTH = 320  # wide enough that no cell folds onto a second line


def _described(scenario: str, api: str, read_answer) -> list:
    """Each group of a scenario as the last answer with members described it."""
    capture = LAB / scenario / "capture.pcapng"
    if not capture.exists():
        pytest.skip(f"no lab capture {scenario}")
    answers = [e["response"] for e in read([str(capture)]).exchanges
               if e.get("apiName") == api and not e.get("_error") and e["response"]["groups"][0]["members"]]
    return list({d.group: d for body in answers for d in read_answer(body)}.values())


@pytest.fixture(scope="module")
def core() -> LiveTimeline:
    logs = LAB / "classic" / "kafka-logs"
    if not logs.is_dir():
        pytest.skip("no lab recording classic")
    core = LiveTimeline("127.0.0.1:9092")
    for r in read_log(logs):
        if r["topic"] == "__consumer_offsets" and not r.get("_error"):
            core.on_record(r["partition"], r["offset"], r["timestamp"], r["key"], r["value"], 0.0)
    for scenario, api, read_answer in (("classic", "DescribeGroups", describe.described_classic),
                                       ("share", "ShareGroupDescribe", describe.described_share),
                                       ("streams-group", "StreamsGroupDescribe", describe.described_streams)):
        for described in _described(scenario, api, read_answer):
            core.on_description(described, 1.0)
    return core


def rendered(core: LiveTimeline, *events: Event) -> str:
    from rich.console import Console

    console = Console(record=True, width=WIDTH, file=io.StringIO(), color_system=None)
    view = TerminalView(console)
    for e in events:
        view.event(e)
    view.close(core)
    return console.export_text()


def test_the_view_shows_every_group_with_its_state_generation_and_members(core):
    text = rendered(core)
    rows = {line.split("│")[1].strip(): [cell.strip() for cell in line.split("│")[1:-1]]
            for line in text.splitlines() if line.count("│") > 5}
    views = {v.group: v for v in core.groups()}
    assert len(views) == 4 and set(views) <= set(rows)
    for name, v in views.items():
        _, kind, state, epochs, members = rows[name][:5]
        assert (kind, state, members) == (v.kind, v.state or "-", str(v.members))
        assert epochs.split()[0] == str(v.generation)
        if v.last_round is not None:
            assert rows[name][5].startswith(f"{v.last_round.generation} at ")
    classic = [v for v in views.values() if v.kind == "classic"]
    assert classic and all(v.generation and v.members and v.state for v in classic)  # generations: the log's
    assert rows["lab-share"][1:5] == ["share", "Stable", str(views["lab-share"].described.epoch),
                                      str(len(views["lab-share"].described.members))]
    streams = rows["lab-wordcount-streams"]
    assert streams[1] == "streams" and streams[2] == "Stable" and streams[3].endswith("(topology 0)")
    assert "connected to 127.0.0.1:9092" in text and "DISCONNECTED" not in text


def test_the_view_says_when_the_cluster_stopped_answering(core):
    gone = Event(DISCONNECTED, 0.0, detail={"bootstrap": "127.0.0.1:9092", "reason": "connection refused"})
    text = rendered(core, gone)
    assert "the cluster at 127.0.0.1:9092 stopped answering (connection refused); retrying" in text
    assert "DISCONNECTED since" in text and "connection refused (retrying)" in text


def test_a_group_only_listed_says_why_under_the_table():
    core = LiveTimeline()
    listed = describe.not_described(describe.GroupDescription("lab-share", "share", state="Stable"),
                                    describe.SHARE_GROUP_DESCRIBE)
    core.on_description(listed, 0.0)
    text = rendered(core)
    assert "lab-share: listed only: the broker's ApiVersions has no ShareGroupDescribe" in " ".join(text.split())
