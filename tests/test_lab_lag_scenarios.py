"""The `lag` recording (fixtures/lab/lag, docs/lab.md) is what its scenario says it is, so that what is held
to it holds something: Kafka's Admin client read each group's committed offsets and its partitions' log ends
every 2 s ("lag" lines), the members wrote their commits, the scenario its steps. The slow group's lag grows
while it commits, the stopped group's commits stop while its lag grows, the rewind takes a caught-up group's
offsets back, the quiet group commits rarely and is caught up. The log ends Admin read are also held to the
records the broker's segments keep, and the committed offsets it read to the commits the timeline puts in
force. The recording is committed: no JVM.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from lab_truth import recording, steps, truth

from kafka_meta.log import read_log

PATH = recording("lag")
pytestmark = pytest.mark.skipif(PATH is None, reason="no lag recording (fixtures/lab/lag)")
# how long a record may take from its producer's clock (its CreateTime) to the partition's high watermark:
# linger.ms is 20 and the broker is on loopback; a second is far more than any record of the recording took
IN_FLIGHT_MS = 1000


def lag_lines(group: str) -> list[dict]:
    return [e for e in truth(PATH) if e["event"] == "lag" and e["group"] == group]


def commits(member: str) -> list[dict]:
    return [e for e in truth(PATH) if e["event"] == "commit" and e["source"] == member and e["ok"]]


def step_of(group: str, action: str) -> dict:
    found = [s for s in steps(PATH) if s.get("group") == group and s.get("action") == action]
    assert len(found) == 1, (group, action, found)
    return found[0]


def event(source: str, name: str) -> dict:
    found = [e for e in truth(PATH) if e["source"] == source and e["event"] == name]
    assert len(found) == 1, (source, name)
    return found[0]


def total_lag(line: dict) -> int | None:
    lags = [p["lag"] for p in line["partitions"].values()]
    return None if None in lags else sum(lags)


def test_every_lag_line_is_the_log_end_less_the_committed_offset():
    lines = [e for e in truth(PATH) if e["event"] == "lag"]
    assert {e["group"] for e in lines} == {"lab-lag-slow", "lab-lag-stopped", "lab-lag-rewind", "lab-lag-quiet"}
    for line in lines:
        assert line["asked"] <= line["ends_asked"] <= line["ts"]
        for partition, seen in line["partitions"].items():
            if seen["committed"] is None:
                assert seen["lag"] is None, (line["group"], partition)
            else:
                assert seen["lag"] == seen["end"] - seen["committed"] >= 0, (line["group"], partition, seen)


def test_the_slow_consumer_falls_behind_while_it_commits():
    """Production (about 10 records a second) outruns the consumer's 4 a second: its total lag grows from one
    reading to the next, and by the end it is hundreds of records, while commits kept coming until it was
    stopped."""
    stop = step_of("lab-lag-slow", "stop")
    totals = [total_lag(e) for e in lag_lines("lab-lag-slow") if e["ts"] < stop["ts"]]
    totals = [t for t in totals if t is not None]
    assert len(totals) >= 20
    assert all(later >= earlier for earlier, later in pairwise(totals)), totals
    assert totals[-1] - totals[0] >= 200, totals
    times = [c["ts"] for c in commits("lab-lag-slow-a")]
    assert len(times) >= 30 and times[-1] > stop["ts"] - 3000
    assert max(b - a for a, b in pairwise(times)) < 3000  # a commit at least every 3 s
    for partition in ("lab-lag-busy-0", "lab-lag-busy-1"):
        offsets = [c["offsets"][partition] for c in commits("lab-lag-slow-a") if partition in c["offsets"]]
        assert offsets == sorted(offsets), partition  # never backward: behind, not rewound


def test_the_stopped_consumer_stops_committing_and_its_lag_grows():
    """Caught up and committing about once a second until it halts; then no commit for 40 s, the committed
    offsets Admin reads stay what it last committed, the log ends go on, and it was still a member when it
    was stopped (no rebalance callback, its close came after the stop step)."""
    halt, stop = step_of("lab-lag-stopped", "halt"), step_of("lab-lag-stopped", "stop")
    halted = event("lab-lag-stopped-a", "halted")
    before = [c for c in commits("lab-lag-stopped-a") if c["ts"] < halt["ts"]]
    assert len(before) >= 10 and before[-1]["offsets"] == halted["committed"]
    assert [c for c in commits("lab-lag-stopped-a") if c["ts"] >= halt["ts"]] == []
    assert stop["ts"] - halt["ts"] >= 30_000
    lines = lag_lines("lab-lag-stopped")
    at_halt = [e for e in lines if e["ts"] < halt["ts"]][-1]
    assert all(p["lag"] <= 15 for p in at_halt["partitions"].values()), at_halt  # it was keeping up
    after = [e for e in lines if halted["ts"] < e["asked"] and e["ts"] < stop["ts"]]
    assert len(after) >= 15
    for line in after:
        assert {p: seen["committed"] for p, seen in line["partitions"].items()} == halted["committed"]
    lags = [total_lag(e) for e in after]
    assert all(later > earlier for earlier, later in pairwise(lags)), lags
    assert lags[-1] >= 300
    callbacks = [e for e in truth(PATH) if e["source"] == "lab-lag-stopped-a"
                 and e["event"] in ("assigned", "revoked", "lost") and halt["ts"] <= e["ts"] < stop["ts"]]
    assert callbacks == []
    assert event("lab-lag-stopped-a", "closed")["ts"] > stop["ts"]


def test_the_rewind_takes_a_caught_up_groups_offsets_back():
    """Lag 0 for more than 10 s before the rewind; the member commits 20 records back on both partitions
    (the log ends unchanged: nothing more was written to the topic), Admin reads lag 20, and the member reads
    them again and commits its way back to lag 0."""
    step, rewind = step_of("lab-lag-rewind", "rewind"), event("lab-lag-rewind-a", "rewind")
    lines = lag_lines("lab-lag-rewind")
    ends = {p: seen["end"] for p, seen in lines[0]["partitions"].items()}
    assert ends == {"lab-lag-rewind-0": 30, "lab-lag-rewind-1": 30}
    assert all({p: seen["end"] for p, seen in e["partitions"].items()} == ends for e in lines)
    caught_up = [e for e in lines if e["ts"] < step["ts"] and total_lag(e) == 0]
    assert caught_up and step["ts"] - caught_up[0]["asked"] >= 10_000
    assert all(total_lag(e) == 0 for e in lines if caught_up[0]["ts"] <= e["ts"] < step["ts"])
    assert rewind["from"] == ends and rewind["to"] == {p: end - 20 for p, end in ends.items()}
    back = next(c for c in commits("lab-lag-rewind-a") if c["ts"] >= rewind["ts"])
    assert back["why"] == "rewind" and back["offsets"] == rewind["to"]
    seen_back = next(e for e in lines if e["asked"] > back["ts"])
    assert {p: s["committed"] for p, s in seen_back["partitions"].items()} == rewind["to"]
    again = [c["offsets"] for c in commits("lab-lag-rewind-a") if c["ts"] > back["ts"]]
    assert {p: max(o[p] for o in again if p in o) for p in ends} == ends
    assert total_lag(lines[-1]) == 0


def test_the_quiet_consumer_commits_rarely_and_is_caught_up():
    """A record every 8 s, each committed on its own: commits 8 s apart, never more than the newest record
    behind (it may be read before its member committed it), caught up at the end."""
    stop = step_of("lab-lag-quiet", "stop")
    rows = [r for r in read_log(PATH / "kafka-logs" / "lab-lag-quiet-0") if r["timestamp"] < stop["ts"] - 1000]
    quiet = commits("lab-lag-quiet-a")
    assert [c["offsets"]["lab-lag-quiet-0"] for c in quiet][:len(rows)] == [r["offset"] + 1 for r in rows]
    # the first records were there when it joined; from the second on, each came 8 s after the one before
    gaps = [b["ts"] - a["ts"] for a, b in pairwise(quiet[1:])]
    assert len(gaps) >= 6 and min(gaps) >= 6000, gaps
    lines = [e for e in lag_lines("lab-lag-quiet") if total_lag(e) is not None]
    assert len(lines) >= 25 and all(total_lag(e) <= 1 for e in lines)
    assert total_lag(lines[-1]) == 0


def test_the_log_ends_admin_read_are_the_kept_segments():
    """Every record below an end Admin read was written before its answer was in, and every record at or
    above it was not yet written (give or take its time in flight) when the question was sent: the log ends
    are the broker's, and the kept segments hold the topics' records whole."""
    records: dict[str, list[int]] = {}
    for row in read_log(PATH / "kafka-logs"):
        if row["topic"].startswith("lab-lag-") and not row["control"]:
            records.setdefault(f"{row['topic']}-{row['partition']}", []).append(row["timestamp"])
    assert set(records) == {"lab-lag-busy-0", "lab-lag-busy-1", "lab-lag-quiet-0", "lab-lag-rewind-0",
                            "lab-lag-rewind-1"}
    checked = 0
    for line in (e for e in truth(PATH) if e["event"] == "lag"):
        for partition, seen in line["partitions"].items():
            written = records[partition]
            assert seen["end"] <= len(written), (partition, seen)
            assert all(ts <= line["ts"] for ts in written[:seen["end"]]), (partition, seen)
            assert all(ts >= line["ends_asked"] - IN_FLIGHT_MS for ts in written[seen["end"]:]), (partition, seen)
            checked += 1
    assert checked >= 200


@pytest.mark.parametrize("source", ["capture", "log", "both"])
def test_the_committed_offsets_read_with_the_log_ends_are_the_timelines(source):
    """As Admin's other snapshots are held (test_lab_timeline): each lag line's committed offsets are those
    the group's commits put in force at some moment between asking for them and asking for the log ends."""
    from test_lab_timeline import SOURCES, _committed_between

    timeline = SOURCES[source](PATH)
    checked = 0
    for line in (e for e in truth(PATH) if e["event"] == "lag"):
        committed = {p: s["committed"] for p, s in line["partitions"].items() if s["committed"] is not None}
        if not committed:
            continue
        tl = timeline.group(line["group"])
        # the Java clock counts whole milliseconds: "ends_asked" t was at some moment of [t, t + 1)
        possible = _committed_between(tl, line["asked"] / 1000, (line["ends_asked"] + 1) / 1000)
        assert committed in possible, (line["group"], line["ts"], committed, possible[-1])
        checked += 1
    assert checked >= 100


def test_the_recording_stays_small():
    committed = [p for p in PATH.rglob("*") if p.is_file() and p.name != "scenario.log"]
    assert sum(p.stat().st_size for p in committed) < 3_000_000
