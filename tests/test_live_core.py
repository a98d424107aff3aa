"""The live core (kafka_meta.live.core) fed real ``__consumer_offsets`` records, one at a time, as a consumer of
the topic hands them over: the lab's recordings (fixtures/lab/*/kafka-logs, written by a real Kafka 4.4 broker)
read with the project's log reader."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import ROOT

from kafka_meta.analysis.burrow import WINDOW
from kafka_meta.analysis.generations import OffsetsTimeline, build_generations
from kafka_meta.analysis.lag import HISTORY
from kafka_meta.live import LiveTimeline
from kafka_meta.live.core import OFFSETS_TOPIC
from kafka_meta.live.events import CONNECTED, DISCONNECTED, ROUND
from kafka_meta.log import read_log

LAB = ROOT / "fixtures" / "lab"


def offsets_rows(scenario: str) -> list[dict]:
    path = LAB / scenario / "kafka-logs"
    if not path.is_dir():
        pytest.skip(f"no lab recording {scenario} under fixtures/lab")
    return [r for r in read_log(path) if r["topic"] == "__consumer_offsets" and not r.get("_error")]


def committed_view(rows: list[dict]) -> list[dict]:
    """What a read_committed consumer is handed: no transaction markers, nothing an aborted transaction wrote
    (the broker's aborted-transaction index tells the client which; here the markers that follow say it)."""
    outcome: dict[tuple[int, int], list[dict]] = {}
    aborted: set[int] = set()
    for row in rows:
        producer = row.get("producerId")
        if producer is None or producer < 0:
            continue
        key = (row["partition"], producer)
        if row.get("control"):
            marker = row["key"][2:4] if row["key"] else b""
            if marker == b"\x00\x00":  # ABORT (control record type 0)
                aborted.update(id(r) for r in outcome.get(key, []))
            outcome[key] = []
        else:
            outcome.setdefault(key, []).append(row)
    return [r for r in rows if not r.get("control") and id(r) not in aborted]


def feed(core: LiveTimeline, rows: list[dict], at: float = 0.0) -> list:
    events = []
    for row in rows:
        events += core.on_record(row["partition"], row["offset"], row["timestamp"], row["key"], row["value"], at)
    return events


def rounds_of(timelines: dict) -> dict[str, list[tuple]]:
    return {name: [(r.generation, sorted(m.member_id for m in r.members), r.commits, tuple(r.triggers))
                   for r in tl.rounds] for name, tl in timelines.items()}


@pytest.mark.parametrize("scenario", ["classic", "consumer", "static", "storm"])
def test_one_record_at_a_time_gives_the_batch_timeline(scenario):
    """Partition by partition, one record at a time (as the consumer hands them over): the same rounds,
    members, causes and commits per round as the batch timeline of the same log."""
    rows = offsets_rows(scenario)
    batch, _ = build_generations(rows)
    core = LiveTimeline()
    events = feed(core, rows)
    live = core.timelines()
    assert rounds_of(live) == rounds_of(batch)
    assert {g: tl.committed_offsets() for g, tl in live.items()} == \
        {g: tl.committed_offsets() for g, tl in batch.items()}
    # every generation or epoch the log recorded was told once, as it was read
    told = Counter((e.group, e.detail["generation"]) for e in events if e.kind == ROUND)
    assert set(told.values()) == {1}
    assert set(told) == {(g, r.generation) for g, tl in batch.items() for r in tl.rounds}


def test_asking_for_the_timeline_midway_changes_nothing():
    rows = offsets_rows("classic")
    core = LiveTimeline()
    for i in range(0, len(rows), 7):
        feed(core, rows[i:i + 7])
        core.timelines()  # a finished copy: reading goes on from the unfinished state
        core.groups()
    assert rounds_of(core.timelines()) == rounds_of(build_generations(rows)[0])


def test_read_committed_records_count_at_once_and_aborted_ones_never():
    """A read_committed consumer hands over no markers: the transactional commits it gives count when read
    (the batch reader, which sees the markers, counts the same ones); the aborted transaction's never came."""
    rows = offsets_rows("transactions")
    batch, _ = build_generations(rows)
    handed = committed_view(rows)
    assert len(handed) < len(rows) - sum(1 for r in rows if r.get("control"))  # something was aborted
    core = LiveTimeline()
    feed(core, handed)
    live = core.timelines()
    assert not core.offsets.log.pending  # nothing waits for a marker that never comes
    for group, tl in batch.items():
        assert sum(r.commits for r in live[group].rounds) == sum(r.commits for r in tl.rounds), group
        assert live[group].committed_offsets() == tl.committed_offsets(), group
        assert core.commits[group] == len(tl.commits), group
    # read as if the markers were still to come, the same records would wait forever
    waiting = OffsetsTimeline()
    for n, row in enumerate(handed, 1):
        waiting.feed(row, n)
    assert waiting.log.pending


def test_reading_again_from_an_earlier_offset_counts_nothing_twice():
    """After a reconnection the consumer may resume before where the core stopped: what was read is not
    counted again, and the rest reads on as if nothing had happened."""
    rows = offsets_rows("classic")
    once = LiveTimeline()
    feed(once, rows)
    resumed = LiveTimeline()
    half = len(rows) // 2
    feed(resumed, rows[:half])
    assert resumed.on_connection(False, 1.0, "127.0.0.1:9092", "gone")[0].kind == DISCONNECTED
    back = resumed.on_connection(True, 2.0, "127.0.0.1:9092")[0]
    assert back.kind == CONNECTED and back.detail["resumeFrom"] == {
        OFFSETS_TOPIC: {str(p): o for (_, p), o in sorted(resumed.positions.items())}}
    again = [r for r in rows[:half] if r["offset"] >= resumed.positions[OFFSETS_TOPIC, r["partition"]] - 5]
    feed(resumed, again + rows[half:])
    assert resumed.repeated == len(again) > 0
    assert resumed.commits == once.commits
    assert resumed.records == once.records
    assert rounds_of(resumed.timelines()) == rounds_of(once.timelines())
    assert resumed.positions == {(OFFSETS_TOPIC, p): max(r["offset"] for r in rows if r["partition"] == p) + 1
                                 for p in {r["partition"] for r in rows}}


def _renumbered(rows: list[dict], start: dict[int, int]) -> list[dict]:
    out = []
    for row in rows:
        offset = start.get(row["partition"], 0)
        start[row["partition"]] = offset + 1
        out.append({**row, "offset": offset})
    return out


def test_state_does_not_grow_with_the_records_of_a_fixed_set_of_groups():
    """The same groups committing on and on (the recorded commits written again and again at new offsets):
    the core holds as much after ten rounds of them as after two; the batch reader, which keeps every commit
    for its report, holds more and more."""
    commits = [r for r in offsets_rows("classic") if int.from_bytes(r["key"][:2], "big") in (0, 1)]
    assert commits
    core, batch, next_offsets = LiveTimeline(), OffsetsTimeline(), {}
    sizes, kept, lag_points = [], [], []
    for _ in range(10):
        again = _renumbered(commits, next_offsets)
        feed(core, again)
        for row in again:
            batch.feed(row)
        sizes.append(core.state_size() - core.standing.size())
        lag = core.standing.feed.state.commits.values()
        lag_points.append(max(len(c.window) + len(c.history) for c in lag))
        kept.append(sum(len(c) for c in batch.log.commits.values()))
    assert sizes[1] == sizes[-1]
    # the lag state keeps per partition a window of commits and a history thinned when full: bounded, not equal
    assert max(lag_points) < WINDOW + 2 * HISTORY
    assert kept[-1] == 10 * kept[0]
    assert sum(core.commits.values()) == 10 * len(commits)


def test_rounds_kept_per_group_are_bounded():
    """A group rebalancing on and on keeps its newest rounds only (the storm scenario: a member timing out of
    its poll interval again and again), and the commits of rounds let go still count for the group."""
    rows = offsets_rows("storm")
    full = LiveTimeline()
    feed(full, rows)
    bounded = LiveTimeline(keep_rounds=2)
    feed(bounded, rows)
    longest = max(len(tl.rounds) for tl in full.timelines().values())
    assert longest > 2
    live = bounded.timelines()
    assert max(len(tl.rounds) for tl in live.values()) == 2
    for group, tl in full.timelines().items():
        assert [r.generation for r in live[group].rounds] == [r.generation for r in tl.rounds][-2:]
        assert bounded.commits[group] == full.commits[group]


def test_only_the_groups_asked_about():
    rows = offsets_rows("classic")
    every = LiveTimeline()
    feed(every, rows)
    assert len(every.group_names()) == 2
    one = every.group_names()[0]
    only = LiveTimeline(only=[one])
    events = feed(only, rows)
    assert only.group_names() == [one] and list(only.timelines()) == [one]
    assert {e.group for e in events} == {one}
