"""Where each group stands, live: the watch's core fed the lab's lag recording (real Java consumers on a real
broker: one slow, one paused, one rewound, one on a quiet partition) as a read_committed consumer reads
``__consumer_offsets``, and the log ends ListOffsets would answer. Once caught up it tells each group's lag and
Burrow's status, and a finding for each trouble once; while still catching up it judges nothing."""

from __future__ import annotations

import io
import json

import pytest
from conftest import ROOT
from rich.console import Console

from kafka_meta.inputs import read
from kafka_meta.live.core import LiveTimeline
from kafka_meta.live.events import FINDING
from kafka_meta.live.view import TerminalView, snapshot
from kafka_meta.log import read_log
from kafka_meta.log.offset_times import OffsetTimes

LAG = ROOT / "fixtures" / "lab" / "lag"


STEP_MS = 5_000  # the watch asks the groups' log ends every LAG_EVERY_S


@pytest.fixture(scope="module")
def recorded():
    if not LAG.is_dir():
        pytest.skip("no lab recording lag under fixtures/lab")
    rows = [r for r in read_log(LAG / "kafka-logs") if r["topic"] == "__consumer_offsets" and not r.get("_error")]
    partitions = read([str(LAG / "kafka-logs")]).partitions
    ends = {(p["topic"], p["partition"]): p["logEndOffset"] for p in partitions}
    written = {(p["topic"], p["partition"]): OffsetTimes.from_json(p["offsetTimes"]) for p in partitions}
    end_ms = max(json.loads(line)["ts"] for line in (LAG / "truth.jsonl").read_text().splitlines())
    return sorted(rows, key=lambda r: r["timestamp"]), ends, written, end_ms


def replay(rows, written, end_ms: int, judge_from: int = 0) -> tuple[LiveTimeline, list]:
    """A watch kept up with the cluster through the recording: every STEP_MS, the records written by then
    read, the reader at the log end, and the groups' log ends as ListOffsets would have answered then (the
    batch headers say when each stretch of the user topics was written)."""
    core, events, i = LiveTimeline(), [], 0
    read_to: dict = {}
    for t in range(rows[0]["timestamp"], end_ms + STEP_MS, STEP_MS):
        while i < len(rows) and rows[i]["timestamp"] <= t:
            r = rows[i]
            core.on_record(r["partition"], r["offset"], r["timestamp"], r["key"], r["value"], t / 1000)
            read_to[("__consumer_offsets", r["partition"])] = r["offset"] + 1
            i += 1
        core.on_offsets(read_to, read_to, t / 1000)
        ends = {tp: index.end_at(t) or 0 for tp, index in written.items() if tp in set(core.lag_partitions())}
        events += core.on_log_ends(ends, t / 1000)
    return core, events


def test_caught_up_it_tells_each_groups_trouble_once(recorded):
    rows, ends, written, end_ms = recorded
    core, events = replay(rows, written, end_ms)
    assert set(core.lag_partitions()) == set(ends)  # the partitions the groups committed: whose ends to ask
    told = [(e.group, e.detail["finding"]) for e in events if e.kind == FINDING]
    assert sorted(set(told)) == [("lab-lag-rewind", "rewound-offset"), ("lab-lag-slow", "falling-behind"),
                                 ("lab-lag-stopped", "stopped-consumer")]
    assert len(told) == len(set(told))  # each told once (none of them cleared while watching)
    standings = core.standings()
    assert standings["lab-lag-quiet"].status.status == "OK"
    stopped = standings["lab-lag-stopped"]
    assert stopped.total_lag == sum(ends[("lab-lag-busy", p)] for p in (0, 1)) - sum(
        p.offset for p in stopped.partitions)
    when = next(e.at for e in events if e.detail.get("finding") == "stopped-consumer")
    halted = next(json.loads(x) for x in (LAG / "truth.jsonl").read_text().splitlines() if '"halted"' in x)
    assert when * 1000 > halted["ts"]  # told after it stopped, not before


def test_while_catching_up_nothing_is_judged(recorded):
    rows, ends, _, _ = recorded
    core = LiveTimeline()
    for r in rows:
        core.on_record(r["partition"], r["offset"], r["timestamp"], r["key"], r["value"], 0.0)
    core.on_offsets({("__consumer_offsets", 0): 0}, {("__consumer_offsets", 0): 10_000_000}, 1.0)
    assert not core.caught_up
    assert core.on_log_ends(ends, 1.0) == [] and core.standings() == {}


def test_the_live_table_and_the_snapshot_carry_the_lag(recorded):
    rows, _, written, end_ms = recorded
    core, _ = replay(rows, written, end_ms)
    at = core.ends_at
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(TerminalView(Console(file=io.StringIO())).render(core, at))
    line = next(x for x in out.getvalue().splitlines() if "lab-lag-stopped" in x)
    assert f"{core.standings()['lab-lag-stopped'].total_lag:,} ERR" in line
    groups = {g["group"]: g for g in snapshot(core, at).detail["groups"]}
    assert groups["lab-lag-slow"]["standing"]["status"] == "WARN"
    assert groups["lab-lag-quiet"]["standing"]["status"] == "OK"


def test_answers_are_read_between_at_an_even_pace_batch_headers_as_steps():
    index = OffsetTimes()
    index.add(9, 1_000)
    index.add(19, 2_000)
    assert index.end_at(1_500) == 10  # batch headers: the end stepped at 2 s
    assert index.end_near(1_500) == 15  # answers at 1 s and 2 s: it moved somewhere between
    assert index.end_near(2_500) == 20 and index.end_near(500) is None
