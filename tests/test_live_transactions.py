"""The live core (kafka_meta.live.core) fed the real ``__transaction_state`` records of the lab's
``transactions-hanging`` recording (fixtures/lab/transactions-hanging: a Kafka 4.4 broker's segments, the
clients' truth.jsonl), one at a time as a consumer of the topic hands them over: each transaction told as it
ends, the fenced producer told once, the hanging one told once it is open past its timeout by the wall clock,
and a long watch's state flat however many transactions it reads."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from kafka_meta.analysis.transactional_ids import TransactionHistory
from kafka_meta.live.core import OFFSETS_TOPIC, TRANSACTION_TOPIC, LiveTimeline
from kafka_meta.live.events import CONNECTED, FINDING, PROBLEM, TRANSACTION
from kafka_meta.live.report import live_report
from kafka_meta.log import read_log

RECORDING = ROOT / "fixtures" / "lab" / "transactions-hanging"


def truth(event: str) -> list[dict]:
    lines = [json.loads(line) for line in (RECORDING / "truth.jsonl").read_text().splitlines() if line.strip()]
    return [line for line in lines if line["event"] == event]


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    if not (RECORDING / "kafka-logs").is_dir():
        pytest.skip("no lab recording transactions-hanging under fixtures/lab")
    return [r for r in read_log(RECORDING / "kafka-logs") if r["topic"] in (OFFSETS_TOPIC, TRANSACTION_TOPIC)
            and not r.get("control") and not r.get("_error")]


def feed(core: LiveTimeline, rows: list[dict], at: float = 0.0) -> list:
    events = []
    for r in rows:
        events += core.on_record(r["partition"], r["offset"], r["timestamp"], r["key"], r["value"], at, r["topic"])
    return events


def hanging_txn() -> dict:
    (txn,) = [t for t in truth("txn") if t["outcome"] == "open"]
    return txn


def test_each_transaction_is_told_as_it_ends(rows):
    """Every transaction the producers saw end is one ``transaction`` event, with its producer, epoch,
    partitions, start and outcome as the producer logged them; the one they left open is open."""
    core = LiveTimeline()
    events = feed(core, rows)
    told = [e.detail for e in events if e.kind == TRANSACTION]
    ours = sorted((t["transactionalId"], t["producerId"], t["producerEpoch"], tuple(t["partitions"]), t["startMs"],
                   t["outcome"]) for t in told)
    theirs = sorted((t["transactional_id"], t["producer_id"], t["producer_epoch"], tuple(sorted(t["partitions"])),
                     t["start"], t["outcome"]) for t in truth("txn") if t["outcome"] != "open")
    assert ours == theirs and len(told) == 5
    for t in told:  # it ended after its last record was written, as the producer saw it end
        end = next(x["end"] for x in truth("txn") if x["start"] == t["startMs"])
        assert 0 <= end - t["endMs"] < 1000 and t["durationMs"] == t["endMs"] - t["startMs"] > 0
    assert core.transaction_counts() == {"committed": 3, "aborted": 2, "fenced": 1}
    (still,) = core.open_transactions(hanging_txn()["start"] / 1000 + 5)
    assert still.transaction.transactional_id == hanging_txn()["transactional_id"]
    assert sorted(f"{t}-{p}" for t, p in still.transaction.partitions) == sorted(hanging_txn()["partitions"])
    assert 5000 <= still.open_ms < 6000 and not still.hanging
    assert core.records["TransactionLog"] == sum(1 for r in rows if r["topic"] == TRANSACTION_TOPIC)


def test_the_fenced_producer_is_told_once(rows):
    core = LiveTimeline()
    events = feed(core, rows)
    fenced = [e.detail for e in events if e.kind == FINDING and e.detail["finding"] == "fenced-producer"]
    (said,) = truth("fenced")
    assert [(f["transactionalId"], f["producerId"], f["producerEpoch"], f["byProducerEpoch"]) for f in fenced] == [
        (said["transactional_id"], said["producer_id"], said["producer_epoch"], said["new_epoch"])]
    assert "another instance" in fenced[0]["why"] and fenced[0]["evidence"]["file"].startswith(TRANSACTION_TOPIC)
    # read again from the start (a consumer resuming early after a reconnection): nothing is told again
    assert feed(core, rows) == [] and core.repeated == len(rows)
    assert core.transaction_counts()["fenced"] == 1


def test_a_transaction_is_hanging_once_open_past_its_timeout_by_the_wall_clock(rows):
    """The hanging producer's transaction (killed with kill -9, its timeout 600 s): not hanging a second before
    its timeout, told once a second after, and not judged at all while the topic is still being read."""
    core = LiveTimeline()
    feed(core, rows)
    txn = hanging_txn()
    (state,) = [t for t in truth("transaction_state") if t["transactional_id"] == txn["transactional_id"]]
    limit = (txn["start"] + state["timeout_ms"]) / 1000
    # the report's rule (open where the inputs end) would call it hanging; the live page does not, until judged
    assert [f.kind for f in live_report(core, now=limit - 1).story.ranked_findings] == ["fenced-producer"]
    assert not core.overdue(limit - 1) and core.overdue(limit + 1)  # worth asking whether the topic is read
    assert core.on_tick(limit + 3600, settled=False) == []  # a backlog still being read: nothing judged
    assert core.on_tick(limit - 1) == []
    (told,) = core.on_tick(limit + 1)
    assert told.kind == FINDING and told.detail["finding"] == "hanging-transaction"
    assert told.detail["severity"] == "critical" and told.detail["transactionalId"] == txn["transactional_id"]
    assert told.detail["partitions"] == sorted(txn["partitions"]) and told.detail["timeoutMs"] == 600_000
    assert 600_000 < told.detail["openMs"] <= 602_000
    assert core.on_tick(limit + 60) == [] and not core.overdue(limit + 60)  # told once
    (entry,) = core.open_transactions(limit + 60)
    assert entry.hanging
    # the live HTML page's report names it hanging now
    story = live_report(core, now=limit + 60).story
    hanging = [f for f in story.ranked_findings if f.kind == "hanging-transaction"]
    assert [(f.transactional_id, f.severity) for f in hanging] == [(txn["transactional_id"], "critical")]


def test_the_log_clock_counts_when_it_is_later_than_the_wall_clock(rows):
    """A watch whose clock is behind the broker's: the newest record's time is the least "now" can be."""
    core = LiveTimeline()
    feed(core, rows)
    newest = max(r["timestamp"] for r in rows if r["topic"] == TRANSACTION_TOPIC)
    (entry,) = core.open_transactions(0.0)
    assert entry.open_ms == newest - hanging_txn()["start"]


def test_resuming_gives_every_topic_its_positions(rows):
    core = LiveTimeline()
    feed(core, rows)
    back = core.on_connection(True, 0.0, "127.0.0.1:9092")[0]
    assert back.kind == CONNECTED
    resume = back.detail["resumeFrom"]
    assert set(resume) == {OFFSETS_TOPIC, TRANSACTION_TOPIC}
    for topic, partitions in resume.items():
        for partition, offset in partitions.items():
            assert offset == 1 + max(r["offset"] for r in rows if r["topic"] == topic
                                     and r["partition"] == int(partition))
    assert core.positions[TRANSACTION_TOPIC, 2] == resume[TRANSACTION_TOPIC]["2"]


def test_a_record_that_does_not_read_is_a_problem_with_its_place(rows):
    core = LiveTimeline()
    first = next(r for r in rows if r["topic"] == TRANSACTION_TOPIC and r["value"])
    (problem,) = core.on_record(first["partition"], 7, 0, first["key"], first["value"][:5], 0.0, TRANSACTION_TOPIC)
    assert problem.kind == PROBLEM and f"{TRANSACTION_TOPIC}-{first['partition']}" in problem.detail["problem"]
    assert "offset 7" in problem.detail["problem"] and core.problems == 1


def test_a_long_watch_holds_as_much_after_thousands_of_transactions_as_after_a_hundred(rows):
    """The app's three transactions (committed, aborted, committed: real records of its partition) written
    again and again at new offsets: the core's state after 3,000 transactions is what it was after 300, every
    one told and counted; the report's unbounded history keeps them all."""
    app = [r for r in rows if r["topic"] == TRANSACTION_TOPIC and r["partition"] == 2]
    core, unbounded, offset, sizes = LiveTimeline(keep_transactions=5), TransactionHistory(), 0, []
    everything = LiveTimeline(keep_transactions=None)  # what state_size would say of a history kept whole
    from kafka_meta.analysis.transaction_feed import decode_state

    told = 0
    for cycle in range(1000):
        for r in app:
            told += sum(1 for e in core.on_record(2, offset, r["timestamp"], r["key"], r["value"], 0.0,
                                                  TRANSACTION_TOPIC) if e.kind == TRANSACTION)
            unbounded.state(*decode_state(r["key"], r["value"]), r["timestamp"])
            if cycle < 200:
                everything.on_record(2, offset, r["timestamp"], r["key"], r["value"], 0.0, TRANSACTION_TOPIC)
            offset += 1
        if cycle in (99, 999):
            sizes.append(core.state_size())
        if cycle in (99, 199):
            sizes.append(everything.state_size())
    assert sizes[0] == sizes[3]  # bounded: flat
    assert sizes[2] > sizes[1] + 1000  # kept whole, the same records make it grow, and state_size says so
    assert told == 3000 and core.transaction_counts() == {"committed": 2000, "aborted": 1000, "fenced": 0}
    (life,) = core.transactions.ids.values()
    assert len(life.transactions) == 5 and life.outcomes() == {"committed": 2000, "aborted": 1000}
    assert len(life.epochs) <= 5 and life.older_epochs > 0
    assert life.to_json()["older"]["transactions"] == {"committed": 1997, "aborted": 998}  # kept: A C C A C
    assert len(unbounded.ids["lab-txh-app"].transactions) == 3000
    assert "older" not in unbounded.ids["lab-txh-app"].to_json()  # the report's JSON is as it was


def test_a_removed_transactional_id_is_let_go_by_a_bounded_history():
    bounded, unbounded = TransactionHistory(keep_transactions=1), TransactionHistory()
    for history in (bounded, unbounded):
        history.state("gone", None, 0)
    assert bounded.ids == {} and bounded.removed == 1
    assert unbounded.ids["gone"].state == "removed"
    with pytest.raises(ValueError, match="at least 1"):
        TransactionHistory(keep_transactions=0)
