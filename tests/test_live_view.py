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


def _transactions_core() -> tuple[LiveTimeline, float, list[Event]]:
    """A core fed the transactions-hanging recording's records, the events they caused, and ``limit``: a minute
    past the hanging transaction's timeout."""
    logs = LAB / "transactions-hanging" / "kafka-logs"
    if not logs.is_dir():
        pytest.skip("no lab recording transactions-hanging")
    core, events = LiveTimeline("127.0.0.1:9092"), []
    for r in read_log(logs):
        if r["topic"] in ("__consumer_offsets", "__transaction_state") and not r.get("control"):
            events += core.on_record(r["partition"], r["offset"], r["timestamp"], r["key"], r["value"], 0.0,
                                     r["topic"])
    (entry,) = core.open_transactions(0.0)
    limit = (entry.transaction.start_ms + entry.transaction.timeout_ms) / 1000 + 60
    return core, limit, events


def rendered_at(core: LiveTimeline, now: float) -> str:
    from rich.console import Console

    console = Console(record=True, width=WIDTH, file=io.StringIO(), color_system=None)
    view = TerminalView(console)
    view.live.stop()
    console.print(view.render(core, now))
    return console.export_text()


def test_the_transactions_block_shows_the_counts_and_every_open_transaction():
    core, limit, _ = _transactions_core()
    before = rendered_at(core, limit - 120)  # open 9 minutes: within its 10-minute timeout
    assert "transactions: 3 committed, 2 aborted, 1 fenced, 1 open\n" in before and "HANGING" not in before
    (row,) = [line for line in before.splitlines() if "lab-txh-hanging" in line]
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells == ["lab-txh-hanging", "3 epoch 0", "Ongoing", "__consumer_offsets-1, lab-txh-out-1", "9m00s",
                     "600s"]
    assert core.on_tick(limit)  # now past its timeout
    after = rendered_at(core, limit)
    assert "1 open, 1 hanging" in after
    (row,) = [line for line in after.splitlines() if "lab-txh-hanging" in line]
    assert "HANGING (Ongoing)" in row and "11m00s" in row


def test_the_lines_of_aborted_transactions_and_findings():
    from kafka_meta.live.view import event_line

    core, limit, events = _transactions_core()
    events += core.on_tick(limit)
    lines = [line for e in events if (line := event_line(e)) is not None]
    aborted = [line for line in lines if "transaction aborted" in line]
    assert len(aborted) == 2 and all("lab-txh-" in line and " s: " in line for line in aborted)
    # committed ones are counted in the block, not printed: two aborted, the fence and the hanging one
    assert len(lines) == 4 and not any("transaction committed" in line for line in lines)
    assert any(line.split(" ", 1)[1].startswith("WARNING fenced-producer: transactional id lab-txh-fenced")
               for line in lines)
    assert any(line.split(" ", 1)[1].startswith("CRITICAL hanging-transaction: ") and "lab-txh-out-1" in line
               for line in lines)


def test_the_json_snapshot_holds_the_transactions():
    from kafka_meta.live.view import snapshot

    core, limit, _ = _transactions_core()
    core.on_tick(limit)
    shot = snapshot(core, limit).to_json()
    tx = shot["transactions"]
    assert (tx["committed"], tx["aborted"], tx["fenced"]) == (3, 2, 1)
    (open_txn,) = tx["open"]
    assert open_txn["transactionalId"] == "lab-txh-hanging" and open_txn["hanging"] is True
    assert open_txn["openMs"] == open_txn["timeoutMs"] + 60_000
    assert [i["transactionalId"] for i in tx["transactionalIds"]] == ["lab-txh-app", "lab-txh-fenced",
                                                                      "lab-txh-hanging"]
    assert set(shot["positions"]) == {"__consumer_offsets", "__transaction_state"}
    assert shot["positions"]["__transaction_state"] == {"0": 3, "1": 10, "2": 13}


def test_the_live_html_page_draws_the_transactions_and_the_hanging_one(tmp_path):
    from kafka_meta.live.report import write_live_html

    core, limit, _ = _transactions_core()
    core.on_tick(limit)
    page = tmp_path / "watch.html"
    write_live_html(core, page, "watch")
    html = page.read_text()
    assert "<h2>Transactions</h2>" in html and "lab-txh-hanging" in html
    assert "<b>transactional id lab-txh-hanging</b>: the transaction of producer 3 epoch 0 is Ongoing" in html
    assert "another instance with the same transactional.id started" in html  # the fenced producer
