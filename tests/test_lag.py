"""Where each group stands (kafka_meta.analysis.lag, lag_feed; kafka_meta.log.offset_times): the committed
offsets, members and generations of the lab's recordings as their clients reported them, log ends and lag
against what Kafka's own admin and consumer clients read from a running broker, the bounded index's
guarantees, and an exact merge of states read apart."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_meta.analysis.generations import NotMergeable
from kafka_meta.analysis.lag import LagState, status_rows
from kafka_meta.cli.report_reading import read_report
from kafka_meta.log.offset_times import OffsetTimes

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "lab"
RECORDINGS = sorted(p for p in LAB.iterdir() if (p / "truth.jsonl").exists())


def _truth(path: Path) -> list[dict]:
    return [json.loads(line) for line in (path / "truth.jsonl").read_text().splitlines() if line.strip()]


def _latest_stated(path: Path) -> dict[tuple[str, str], int]:
    """Per group and partition, the offset the last event of the clients or the admin client stated: a commit
    the client saw succeed, a committed transaction's offsets, a listConsumerGroupOffsets snapshot."""
    latest: dict[tuple[str, str], tuple[int, int]] = {}
    for e in _truth(path):
        stated = ((e["event"] == "commit" and e.get("ok")) or (e["event"] == "txn" and e.get("outcome") == "committed")
                  or e["event"] == "committed")
        for tp, offset in (e.get("offsets") or {}).items() if stated else ():
            key = (e["group"], tp)
            if key not in latest or e["ts"] >= latest[key][0]:
                latest[key] = (e["ts"], offset)
    return {k: v[1] for k, v in latest.items()}


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_committed_offsets_are_the_last_the_clients_and_admin_client_stated(path):
    """The offsets standing at the end of each recording's log are, partition by partition, the last ones its
    clients saw committed or Kafka's admin client listed (aborted transactions' never among them)."""
    stated = _latest_stated(path)
    report = read_report([str(path / "kafka-logs")], jobs=1)
    got = {(g, p.name): p.offset for g, s in report.lag.items() for p in s.partitions}
    assert got == stated


def _last_commits(path) -> dict[tuple[str, str], tuple[int, str, int]]:
    """Per (group, partition), the last commit a client reported as made: when, by which member, in which
    generation."""
    last: dict[tuple[str, str], tuple[int, str, int]] = {}
    for e in _truth(path):
        if e["event"] == "commit" and e.get("ok"):
            for tp in e.get("offsets") or {}:
                if (e["group"], tp) not in last or e["ts"] >= last[(e["group"], tp)][0]:
                    last[(e["group"], tp)] = (e["ts"], e["member_id"], e["generation"])
    return last


@pytest.mark.parametrize("path", [p for p in RECORDINGS if any(e["event"] == "commit" for e in _truth(p))],
                         ids=lambda p: p.name)
def test_the_member_and_generation_of_each_last_commit_are_the_clients_own(path):
    """The member a standing names for the last commit of each partition (the owner in the generation in force,
    by the timeline) and that generation are the ones the committing client reported."""
    last = _last_commits(path)
    report = read_report([str(path / "kafka-logs")], jobs=1)
    got = {(g, p.name): (p.member, p.generation) for g, s in report.lag.items() for p in s.partitions}
    assert {k: got.get(k) for k in last} == {k: v[1:] for k, v in last.items()}


@pytest.mark.parametrize("path", [p for p in RECORDINGS if any(e["event"] == "commit" for e in _truth(p))],
                         ids=lambda p: p.name)
def test_a_capture_alone_names_the_committing_member_from_its_requests(path):
    """Without the log, the OffsetCommit requests of the capture give each partition's last offset (the last
    the clients or the admin client stated: a client's commit on close is in no commit line), and the member and
    generation the request carried: the committing client's own."""
    last = _last_commits(path)
    report = read_report([str(path / "capture.pcapng")], jobs=1)
    got = {(g, p.name): p for g, s in report.lag.items() for p in s.partitions}
    assert {k: (got[k].member, got[k].generation) for k in last} == {k: v[1:] for k, v in last.items()}
    stated = _latest_stated(path)
    assert {k: got[k].offset if k in got else None for k in stated} == stated


LAG_RECORDING = LAB / "lag"


@pytest.mark.skipif(not (LAG_RECORDING / "truth.jsonl").exists(), reason="no lag recording")
def test_the_lag_recordings_groups_stand_as_their_scenario_made_them():
    """A slow consumer falls behind (WARN), one that halts while still a member stops (STOP: ERR), one sent 20
    records back while caught up is rewound (REWIND: ERR), one on a quiet topic commits rarely but is caught
    up (OK); the log ends are the last ones Kafka's admin client listed (the producer had stopped by then)."""
    report = read_report([str(LAG_RECORDING / "kafka-logs")], jobs=1)
    statuses = {g: (s.status.status, s.status.rule.split(":")[0]) for g, s in report.lag.items()}
    assert statuses == {"lab-lag-slow": ("WARN", "WARN"), "lab-lag-stopped": ("ERR", "STOP"),
                        "lab-lag-rewind": ("ERR", "REWIND"), "lab-lag-quiet": ("OK", "OK")}
    listed: dict[str, int] = {}
    for e in _truth(LAG_RECORDING):
        if e["event"] == "lag":
            for tp, seen in e["partitions"].items():
                listed[tp] = max(listed.get(tp, 0), seen["end"] or 0)
    assert {p.name: p.log_end for s in report.lag.values() for p in s.partitions} == listed
    halted = next(e for e in _truth(LAG_RECORDING) if e["event"] == "halted")
    stopped = {p.name: p.offset for p in report.lag["lab-lag-stopped"].partitions}
    assert stopped == halted["committed"]


def test_the_json_report_carries_each_groups_table():
    report = read_report([str(LAB / "classic" / "kafka-logs")], jobs=1)
    doc = report.to_json()
    standing = doc["groups"]["lab-classic-range"]["standing"]
    assert standing["status"] == "OK" and len(standing["partitions"]) == 6
    row = standing["partitions"][0]
    assert row["consumerId"].startswith("lab-classic-range-a-") and row["logEndOffset"] is None
    assert row["history"] and row["history"][-1]["offset"] == row["currentOffset"]


# the bounded offset -> time index

points = st.lists(st.tuples(st.integers(1, 50), st.integers(-1, 5_000)), max_size=400)


def _built(steps: list[tuple[int, int]], keep: int) -> tuple[OffsetTimes, list[tuple[int, int]]]:
    index, offset, batches = OffsetTimes(keep), -1, []
    for size, ms in steps:
        offset += size
        index.add(offset, ms)
        batches.append((offset, ms))
    return index, batches


@given(points, st.integers(1, 20))
def test_the_index_stays_bounded_and_its_answers_never_overstate_lag(steps, keep):
    index, batches = _built(steps, keep)
    assert len(index.offsets) < 2 * keep
    assert index.offsets == sorted(index.offsets) and index.times == sorted(index.times)
    real = [(o, ms) for o, ms in batches if ms >= 0]
    if real:
        assert index.offsets[-1] == real[-1][0]  # the newest batch always kept
    for n in range(len(batches)):
        first = batches[n - 1][0] + 1 if n else 0
        newest_so_far = max((ms for o, ms in batches[:n + 1] if ms >= 0), default=None)
        at = index.time_at(first)
        if at is not None and newest_so_far is not None:
            assert at >= newest_so_far  # a record is never said older than the records up to its batch
    for probe in (0, 100, 2_500, 5_000):
        end = index.end_at(probe)
        truly = max((o + 1 for o, ms in batches if ms >= 0), default=None)
        if end is not None:
            assert truly is not None and end <= truly
            assert all(ms <= probe for o, ms in zip(index.offsets, index.times, strict=True) if o < end)


def test_the_index_is_exact_until_it_thins():
    index, _ = _built([(10, 1000), (10, 2000), (10, 3000)], keep=10)
    assert index.time_at(0) == 1000 and index.time_at(10) == 2000 and index.time_at(29) == 3000
    assert index.time_at(30) is None
    assert index.end_at(999) is None and index.end_at(2500) == 20 and index.end_at(10_000) == 30


# the state: lag worked out, merged exactly

def _fed(commits, ends) -> LagState:
    state = LagState(window=3, keep_history=4)
    for c in commits:
        state.commit(*c)
    for topic, partition, end, times in ends:
        index = OffsetTimes()
        for o, ms in times:
            index.add(o, ms)
        state.log_end(topic, partition, end, first=0, times=index)
    return state


def test_lag_in_records_and_time_at_each_commit():
    times = [(9, 1000), (19, 2000), (29, 3000)]  # 10 records a second
    state = _fed([("g", "t", 0, 5, 1500), ("g", "t", 0, 15, 2500), ("g", "t", 0, 25, 3200)],
                 [("t", 0, 30, times)])
    s = state.standings()["g"]
    row = s.partitions[0]
    assert (row.offset, row.log_end, row.lag_records) == (25, 30, 5)
    assert row.lag_seconds == pytest.approx(0.2)  # committed at 3.2 s, the record at 25 written by 3.0 s
    assert [(p.records, p.seconds) for p in row.history] == [(5, 0.5), (5, 0.5), (5, 0.2)]
    assert row.evaluation.status == "WARN" and s.status.status == "WARN"
    assert list(status_rows(state.standings())) == [("g", "WARN", s.status.rule, ("t-0",))]


def test_a_tombstone_leaves_nothing_committed():
    state = _fed([("g", "t", 0, 5, 1000)], [])
    state.forget("g", "t", 0)
    assert state.standings() == {}


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 3), st.integers(0, 100),
                          st.integers(0, 10_000)), max_size=60))
def test_states_read_apart_merge_to_the_state_read_whole(commits):
    """Two processes reading disjoint groups and partitions (as a log directory's partitions are) add up to what
    one reading all of it would hold."""
    rows = [(g, "t", p, o, ms) for g, p, o, ms in commits]
    ends = [("t", p, 200, [(50, 2000), (199, 9000)]) for p in range(4)]
    whole = _fed(rows, ends)
    first = _fed([r for r in rows if r[0] == "a"], ends[:2])
    first.merge(_fed([r for r in rows if r[0] != "a"], ends[2:]))
    assert first.standings() == whole.standings()


def test_states_that_both_read_one_partition_do_not_merge():
    with pytest.raises(NotMergeable):
        _fed([("g", "t", 0, 1, 1)], []).merge(_fed([("g", "t", 0, 2, 2)], []))
    with pytest.raises(NotMergeable):
        _fed([], [("t", 0, 5, [])]).merge(_fed([], [("t", 0, 5, [])]))


# against a running broker

@pytest.mark.kafka
def test_log_ends_and_lag_equal_what_kafkas_clients_read(kafka_broker):
    """A topic of three partitions filled with known timestamps, a group committing part of each: the report of
    the broker's log directory gives the committed offsets Kafka's admin client lists, the log end offsets
    Kafka's consumer reads (ListOffsets), their differences as kafka-consumer-groups.sh's LAG, and the lag in
    time from the records' timestamps."""
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.structs import OffsetAndMetadata

    topic, group, bootstrap = f"lag-topic-{time.time_ns()}", "lag-group", kafka_broker.bootstrap
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=0)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=f"{group}-{topic}", enable_auto_commit=False)
    base = int(time.time() * 1000) - 60_000  # a minute ago: every record's timestamp set by the test
    sizes, committed = {0: 30, 1: 12, 2: 5}, {0: 20, 1: 12, 2: 1}
    try:
        admin.create_topics([NewTopic(topic, 3, 1)])
        for p, n in sizes.items():
            for i in range(n):
                producer.send(topic, b"v", partition=p, timestamp_ms=base + i * 1000)
                producer.flush()  # a batch a record: the index holds each record's time
        tps = [TopicPartition(topic, p) for p in sizes]
        consumer.assign(tps)
        consumer.commit({TopicPartition(topic, p): OffsetAndMetadata(o, "", -1) for p, o in committed.items()})
        listed = admin.list_group_offsets(f"{group}-{topic}")[f"{group}-{topic}"]
        ends = consumer.end_offsets(tps)
    finally:
        consumer.close()
        producer.close()
        admin.close()
    report = read_report([str(kafka_broker.log_dir)], jobs=1)
    standing = report.lag[f"{group}-{topic}"]
    _faces_show(report, standing)
    rows = {p.partition: p for p in standing.partitions}
    assert {p: r.offset for p, r in rows.items()} == {tp.partition: m.offset for tp, m in listed.items()}
    assert {p: r.log_end for p, r in rows.items()} == {tp.partition: end for tp, end in ends.items()}
    assert {p: r.lag_records for p, r in rows.items()} == {
        tp.partition: ends[tp] - listed[tp].offset for tp in ends}
    for p, r in rows.items():
        if r.lag_records == 0:
            assert r.lag_seconds == 0
        else:  # committed now, the record at the committed offset written base + offset seconds
            waited = (r.committed_ms - (base + committed[p] * 1000)) / 1000
            assert r.lag_seconds == pytest.approx(waited, abs=0.001)


@pytest.mark.parametrize("name", ["classic", "transactions-hanging"])
def test_a_log_directory_read_by_processes_stands_as_read_in_one(name):
    """report --jobs: partitions read in processes of their own, their states merged, give the same tables
    (the user topics' log ends included)."""
    path = str(LAB / name / "kafka-logs")
    alone, apart = read_report([path], jobs=1), read_report([path], jobs=2)
    assert apart.lag == alone.lag and alone.lag


def _faces_show(report, standing) -> None:
    """The terminal's table and the HTML's lag chart and table, for a group whose lag is known."""
    from kafka_meta.report.html import render_html
    from kafka_meta.report.terminal import terminal_text

    text = terminal_text(report)
    assert f"where the group stands: {standing.status.status}" in text
    for row in standing.partitions:
        assert any(line.startswith(row.name) and f" {row.lag_records} " in line for line in text.splitlines())
    page = render_html(report)
    assert "lag at each commit" in page and page.count("where the group stands") >= 1


def test_a_group_of_many_partitions_shares_its_history_and_its_chart_spans_the_input():
    """A group of 300 partitions keeps four points of history each and shows two each (its standing says so):
    what a small group's partition keeps, 32 and a window, is not multiplied by its partitions; and each
    partition's points still reach back to its first commits."""
    from kafka_meta.analysis.lag import GROUP_HISTORY

    state = LagState()
    for n in range(1, 201):
        for p in range(300):
            state.commit("big", "t", p, n * 10, n * 1000)
    kept = sum(len(c.history) for c in state.commits.values())
    assert kept <= 300 * 4  # four each at least, never the 32 a small group's partition keeps
    standing = state.standings()["big"]
    assert sum(len(p.history) for p in standing.partitions) <= max(GROUP_HISTORY, 2 * 300)
    row = standing.partitions[0]
    assert row.to_json()["historyPoints"] == 2
    assert row.history[-1].offset == 2000 and row.history[0].offset <= 1000  # the newest, and the first half
    small = LagState()
    for n in range(1, 201):
        small.commit("small", "t", 0, n * 10, n * 1000)
    points = small.standings()["small"].partitions[0].history
    assert points[0].offset <= 200 and points[-1].offset == 2000  # from near the first commit to the last
    assert len(points) <= 2 * 16 + 10
