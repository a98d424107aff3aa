"""How far a watch is behind the log end (kafka_meta.live.catchup), sans-IO: positions, log ends and a clock in;
the records behind, the rates over a moving window, the time to catch up, the caught-up flag and its news out.
Then the same state as a person and a program see it: the terminal view's status line and event lines, and the
JSON events and snapshot, from a core fed the lab's classic recording in batches."""

from __future__ import annotations

import io
import json

import pytest
from conftest import ROOT

from kafka_meta.live.catchup import CAUGHT_UP_S, FALLEN_BEHIND_S, RATE_WINDOW_S, CatchUp, count_text
from kafka_meta.live.core import OFFSETS_TOPIC, TRANSACTION_TOPIC, FetchedRecord, LiveTimeline
from kafka_meta.live.events import CATCHING_UP, CAUGHT_UP
from kafka_meta.live.view import JsonLines, TerminalView, event_line, snapshot
from kafka_meta.log import read_log

P0, P1, P2 = (OFFSETS_TOPIC, 0), (OFFSETS_TOPIC, 1), (OFFSETS_TOPIC, 2)
T0 = (TRANSACTION_TOPIC, 0)


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def test_behind_is_the_sum_over_partitions_and_the_time_is_what_closes_the_gap():
    c = CatchUp()
    first = c.update({P0: 0, P1: 100}, {P0: 1000, P1: 600}, at=100.0)
    assert kinds(first) == [CATCHING_UP]
    assert c.state.behind == 1500 and not c.state.caught_up
    assert not c.state.rated and c.state.message() == "catching up: 1.5 k records behind"  # no rate yet
    assert first[0].detail["behind"] == 1500 and first[0].detail["caughtUp"] is False
    # one second on: 300 read, the log grew by 100, so the gap closes at 200/s
    assert c.update({P0: 200, P1: 200}, {P0: 1050, P1: 650}, at=101.0) == []
    s = c.state
    assert (s.behind, s.read_rate, s.end_rate) == (1300, 300.0, 100.0)
    assert s.eta_s == pytest.approx(6.5)
    assert s.message() == "catching up: 1.3 k records behind, 6 s at the current rate"


def test_the_message_a_person_reads():
    c = CatchUp()
    c.update({P0: 0}, {P0: 3_200_000}, at=0.0)
    c.update({P0: 80_000}, {P0: 3_280_000 - 2_000}, at=1.0)  # read 80 k/s, the log grew 78 k... closing 2 k/s
    assert c.state.message() == "catching up: 3.2 M records behind, 27 min at the current rate"
    c = CatchUp()
    c.update({P0: 0}, {P0: 3_280_000}, at=0.0)
    c.update({P0: 80_000}, {P0: 3_280_000}, at=1.0)
    assert c.state.message() == "catching up: 3.2 M records behind, 40 s at the current rate"
    assert [count_text(n) for n in (0, 950, 1_000, 41_200, 999_999, 3_240_000)] == [
        "0", "950", "1.0 k", "41 k", "1000 k", "3.2 M"]


def test_the_rates_are_over_a_moving_window():
    c = CatchUp()
    position = 0
    for second in range(30):  # slow for 20 s (100/s), then fast (1,000/s)
        position += 100 if second < 20 else 1000
        c.update({P0: position}, {P0: 1_000_000}, at=float(second))
    assert c.state.read_rate == pytest.approx(1000.0)  # the slow seconds have left the window
    assert len(c.samples) <= RATE_WINDOW_S + 2  # a few samples kept, however long the watch


def test_no_division_by_zero_when_nothing_moves():
    c = CatchUp()
    c.update({P0: 10}, {P0: 50}, at=5.0)
    c.update({P0: 10}, {P0: 50}, at=5.0)  # the same instant again: no span to take a rate over
    assert not c.state.rated and c.state.read_rate == 0.0 and c.state.eta_s is None
    c.update({P0: 10}, {P0: 50}, at=6.0)  # a second on, nothing read: rated, at zero
    s = c.state
    assert s.rated and s.read_rate == 0.0 and s.eta_s is None and not s.caught_up
    assert s.message() == "catching up: 40 records behind, not gaining at the current rate"
    assert s.to_json()["etaS"] is None
    empty = CatchUp()  # an idle cluster read to its end: caught up with no rate at all
    assert kinds(empty.update({P0: 0}, {P0: 0}, at=0.0)) == [CAUGHT_UP]
    assert empty.state.eta_s == 0.0 and empty.state.message() == "caught up"


def test_caught_up_is_told_once_and_again_only_after_falling_well_behind():
    c = CatchUp()
    told = c.update({P0: 0}, {P0: 10_000}, at=0.0)
    for second in range(1, 6):  # 2,000 a second read, nothing written
        told += c.update({P0: min(10_000, 2_000 * second)}, {P0: 10_000}, at=float(second))
    assert kinds(told) == [CATCHING_UP, CAUGHT_UP]  # at 4 s, 2,000 behind is not less than a second of reading
    assert told[1].detail["tookS"] == 5.0 and told[1].detail["readWhileCatchingUp"] == 10_000
    # a cluster taking 1,000 commits a second, the reader keeping up: a few hundred behind at each look is not
    # falling behind, and nothing more is told
    end, position = 10_000, 10_000
    for second in range(6, 40):
        end += 1000
        position = end - 300 * (second % 3)
        told += c.update({P0: position}, {P0: end}, at=float(second))
    assert kinds(told) == [CATCHING_UP, CAUGHT_UP] and c.state.caught_up
    # a backlog of far more than FALLEN_BEHIND_S of reading (a reconnection): behind again, then caught up again
    end += 200_000
    told += c.update({P0: position}, {P0: end}, at=40.0)
    assert kinds(told) == [CATCHING_UP, CAUGHT_UP] and c.state.caught_up  # one look: maybe a burst
    told += c.update({P0: position + 1000}, {P0: end}, at=41.0)
    assert kinds(told)[2:] == [CATCHING_UP] and not c.state.caught_up
    assert c.state.behind > FALLEN_BEHIND_S * c.state.read_rate
    position += 1000
    for second in range(42, 50):
        position = min(end, position + 50_000)
        told += c.update({P0: position}, {P0: end}, at=float(second))
    assert kinds(told) == [CATCHING_UP, CAUGHT_UP, CATCHING_UP, CAUGHT_UP]
    # and once caught up again, one look well behind is again not enough to say so
    told += c.update({P0: end}, {P0: end + 5_000_000}, at=50.0)
    assert kinds(told)[4:] == [] and c.state.caught_up


def test_a_burst_after_a_quiet_spell_read_by_the_next_look_is_not_falling_behind():
    c = CatchUp()
    told = c.update({P0: 100}, {P0: 100}, at=0.0)
    told += c.update({P0: 100}, {P0: 5_100}, at=1.0)  # 5,000 commits at once after nothing
    told += c.update({P0: 5_100}, {P0: 5_100}, at=2.0)
    assert kinds(told) == [CAUGHT_UP]


def test_within_a_second_of_reading_is_caught_up_under_load():
    c = CatchUp()
    c.update({P0: 0}, {P0: 100_000}, at=0.0)
    c.update({P0: 60_000}, {P0: 120_000}, at=1.0)
    assert not c.state.caught_up  # 60 k behind at 60 k/s: not less than a second of reading
    c.update({P0: 125_000}, {P0: 140_000}, at=2.0)  # 15 k behind, reading 62.5 k/s
    assert c.state.behind < CAUGHT_UP_S * c.state.read_rate and c.state.caught_up


def test_a_position_past_the_log_end_asked_earlier_is_not_negative():
    c = CatchUp()
    c.update({P0: 120, P1: 30}, {P0: 100, P1: 50}, at=0.0)  # P0's end asked before its last records were read
    assert c.state.behind == 20


def test_partitions_appearing_later():
    c = CatchUp()
    c.update({P0: 1000}, {P0: 1000}, at=0.0)
    assert c.state.caught_up
    # __transaction_state created: its partition has a log end before the consumer knows where it starts
    told = c.update({P0: 1000}, {P0: 1000, T0: 500}, at=1.0)
    assert not c.state.caught_up and c.state.unplaced == 1 and c.state.behind == 0
    assert "1 partition not positioned yet" in c.state.message()
    assert kinds(told) == [CATCHING_UP]
    # positioned at its beginning: its backlog counts, and appearing is not reading (no burst in the rate)
    c.update({P0: 1000, T0: 0}, {P0: 1000, T0: 500}, at=2.0)
    assert c.state.behind == 500 and c.state.read_rate == 0.0 and c.state.unplaced == 0
    told = c.update({P0: 1000, T0: 500}, {P0: 1000, T0: 500}, at=3.0)
    assert kinds(told) == [CAUGHT_UP] and c.state.caught_up
    # a partition seeked far forward (a watch started at the end of a new partition) is no reading either
    c.update({P0: 1000, T0: 500, P2: 9_000_000}, {P0: 1000, T0: 500, P2: 9_000_000}, at=4.0)
    assert c.state.read_rate < 200 and c.state.caught_up


def test_an_empty_partition_without_a_position_holds_nothing_back():
    c = CatchUp()
    c.update({P0: 10}, {P0: 10, P1: 0}, at=0.0)
    assert c.state.caught_up and c.state.unplaced == 0


def test_no_log_end_yet_tells_nothing():
    c = CatchUp()
    assert c.update({P0: 10}, {}, at=0.0) == [] and c.state is None


# --- the core, the view and the JSON, with real records


LOGS = ROOT / "fixtures" / "lab" / "classic" / "kafka-logs"


def recording() -> dict[int, list[FetchedRecord]]:
    if not LOGS.is_dir():
        pytest.skip("no lab recording classic")
    by_partition: dict[int, list[FetchedRecord]] = {}
    for r in read_log(LOGS):
        if r["topic"] == OFFSETS_TOPIC and not r.get("_error"):
            by_partition.setdefault(r["partition"], []).append(
                FetchedRecord(r["offset"], r["timestamp"], r["key"], r["value"]))
    return by_partition


def test_the_core_read_in_batches_says_how_far_behind_then_caught_up():
    """The recording's records handed over in batches, half of each partition first: the core's positions
    against the log ends are what is behind; the rest read, it has caught up, told once; and the batches give
    the same commits and rounds as one record at a time."""
    records = recording()
    ends = {(OFFSETS_TOPIC, p): rs[-1].offset + 1 for p, rs in records.items()}
    core, one_by_one = LiveTimeline("127.0.0.1:9092"), LiveTimeline("127.0.0.1:9092")
    for p, rs in records.items():
        for r in rs:
            one_by_one.on_record(p, r.offset, r.timestamp, r.key, r.value, 0.0)
    told = []
    for p, rs in records.items():
        told += core.on_batch(OFFSETS_TOPIC, p, rs[: len(rs) // 2], 10.0)
    told += core.on_offsets(core.positions, ends, 10.0)
    behind = sum(ends[p] - core.positions[p] for p in ends)
    assert behind > 0 and core.catchup.state.behind == behind
    for p, rs in records.items():
        told += core.on_batch(OFFSETS_TOPIC, p, rs[len(rs) // 2:], 11.0)
    told += core.on_offsets(core.positions, ends, 11.0)
    told += core.on_offsets(core.positions, ends, 12.0)
    assert [e.kind for e in told if e.kind in (CATCHING_UP, CAUGHT_UP)] == [CATCHING_UP, CAUGHT_UP]
    assert core.catchup.state.caught_up and core.catchup.state.behind == 0
    assert core.commits == one_by_one.commits and core.positions == one_by_one.positions
    assert {g: [r.generation for r in t.rounds] for g, t in core.timelines().items()} == {
        g: [r.generation for r in t.rounds] for g, t in one_by_one.timelines().items()}
    assert core.state_size() == one_by_one.state_size() + len(ends) * 2 + len(core.catchup.samples)


def fed(catching_up: bool) -> tuple[LiveTimeline, list]:
    records = recording()
    core = LiveTimeline("127.0.0.1:9092")
    for p, rs in records.items():
        core.on_batch(OFFSETS_TOPIC, p, rs, 0.0)
    ends, before = dict(core.positions), dict(core.positions)
    one = min(ends)  # a partition the recording has records in
    before[one] -= 80_000  # a second earlier, 80,000 records short of where it is now
    if catching_up:
        ends[one] += 3_200_000  # and the log end that far ahead
    told = core.on_offsets(before, ends, 100.0)
    told += core.on_offsets(core.positions, ends, 101.0)
    return core, told


def rendered(core: LiveTimeline, events) -> str:
    from rich.console import Console

    console = Console(record=True, width=200, file=io.StringIO(), color_system=None)
    view = TerminalView(console)
    for e in events:
        view.event(e)
    view.close(core)
    return console.export_text()


def test_the_view_says_catching_up_with_the_time_left_then_caught_up():
    core, told = fed(catching_up=True)
    text = rendered(core, told)
    assert kinds(told) == [CATCHING_UP]
    status = next(line for line in text.splitlines() if line.startswith("connected to"))
    assert status.endswith("catching up: 3.2 M records behind, 40 s at the current rate"), status
    assert event_line(told[0]).endswith("catching up: 3.3 M records behind")  # the first look: no rate yet
    core, told = fed(catching_up=False)
    text = rendered(core, told)
    assert kinds(told) == [CATCHING_UP, CAUGHT_UP]
    status = next(line for line in text.splitlines() if line.startswith("connected to"))
    assert status.endswith("records read; caught up"), status
    assert "caught up: 80 k records read in 1.0 s" in text


def test_the_json_events_and_snapshot_say_how_far_behind():
    core, told = fed(catching_up=True)
    out = io.StringIO()
    lines = JsonLines(out)
    for e in told:
        lines.event(e)
    lines.event(snapshot(core, 101.0))
    first, last = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["event"] == "catching-up" and first["caughtUp"] is False and first["etaS"] is None
    assert last["event"] == "snapshot"
    assert last["catchUp"] == {"caughtUp": False, "behind": core.catchup.state.behind, "readRate": 80000.0,
                               "endRate": 0.0, "etaS": 40.0,
                               "message": "catching up: 3.2 M records behind, 40 s at the current rate"}
    core, told = fed(catching_up=False)
    caught = json.loads(json.dumps(told[-1].to_json()))
    assert caught["event"] == "caught-up" and caught["caughtUp"] is True and caught["behind"] == 0
    assert caught["tookS"] == 1.0 and caught["readWhileCatchingUp"] == 80_000 and caught["message"] == "caught up"
    assert snapshot(LiveTimeline("x"), 0.0).detail["catchUp"] is None  # before any log end was asked
