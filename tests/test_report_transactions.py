"""The report's transactions against what the Java clients and the broker's Admin API said of them, on the
lab's recording of a broker with transactions committed, aborted, fenced and left hanging
(fixtures/lab/transactions-hanging: its kafka-logs copy and truth.jsonl, docs/lab.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_meta.cli.main import main

RECORDING = Path(__file__).resolve().parent.parent / "fixtures" / "lab" / "transactions-hanging"


def truth(event: str) -> list[dict]:
    lines = [json.loads(line) for line in (RECORDING / "truth.jsonl").read_text().splitlines() if line.strip()]
    return [line for line in lines if line["event"] == event]


@pytest.fixture(scope="module")
def report() -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["report", "--format", "json", str(RECORDING / "kafka-logs")])
    assert code in (0, 1)
    return json.loads(out.getvalue())


def test_every_transaction_as_its_producer_saw_it(report):
    told = [t for i in report["transactions"]["transactionalIds"] for t in i["transactions"]]
    ours = sorted((t["transactionalId"], t["producerId"], t["producerEpoch"], tuple(t["partitions"]), t["startMs"],
                   t["outcome"]) for t in told)
    theirs = sorted((t["transactional_id"], t["producer_id"], t["producer_epoch"], tuple(sorted(t["partitions"])),
                     t["start"], t["outcome"]) for t in truth("txn"))
    assert ours == theirs
    for t in told:  # it ended after its last record was written, as the producer saw it end
        if t["outcome"] != "open":
            end = next(x["end"] for x in truth("txn") if x["start"] == t["startMs"])
            assert 0 <= end - t["endMs"] < 1000


def test_each_id_ends_in_the_state_and_epoch_the_coordinator_describes(report):
    ids = {i["transactionalId"]: i for i in report["transactions"]["transactionalIds"]}
    for described in truth("transaction_state"):
        life = ids[described["transactional_id"]]
        assert life["state"] == described["state"]
        assert (life["epochs"][-1]["producerId"], life["epochs"][-1]["producerEpoch"]) == (
            described["producer_id"], described["producer_epoch"])
        assert life["timeoutMs"] == described["timeout_ms"]


def test_the_fenced_producer_is_found(report):
    fenced = [f for f in report["findings"] if f["kind"] == "fenced-producer"]
    said = truth("fenced")
    assert [f["transactionalId"] for f in fenced] == [s["transactional_id"] for s in said]
    ids = {i["transactionalId"]: i for i in report["transactions"]["transactionalIds"]}
    for s in said:
        (entry,) = ids[s["transactional_id"]]["fenced"]
        assert (entry["from"]["producerId"], entry["from"]["producerEpoch"], entry["by"]["producerEpoch"]) == (
            s["producer_id"], s["producer_epoch"], s["new_epoch"])


def test_the_hanging_transaction_names_its_partitions_and_where_they_are_held(report):
    hanging = [f for f in report["findings"] if f["kind"] == "hanging-transaction"]
    (open_txn,) = [t for t in truth("txn") if t["outcome"] == "open"]
    assert [f["transactionalId"] for f in hanging] == [open_txn["transactional_id"]]
    assert hanging[0]["partitions"] == sorted(open_txn["partitions"])
    held = {(p["partition"], p["producerId"], p["firstOffset"]) for p in report["transactions"]["openPartitions"]}
    described = {(p["partition"], q["producer_id"], q["txn_start_offset"])
                 for p in truth("producers") for q in p["producers"] if q["txn_start_offset"] is not None}
    assert held == described


def test_the_group_stands_where_the_broker_says_and_its_pending_commit_beside(report):
    (committed,) = truth("committed")
    (pending,) = truth("txn_pending")
    group = report["groups"][committed["group"]]
    assert group["pendingCommits"] == pending["offsets"]
    aborted = [t for t in truth("txn") if t["outcome"] == "aborted"]
    assert group["abortedCommits"] == sum(len(t["offsets"]) for t in aborted)
    assert any(f["kind"] == "aborted-commits" and f["group"] == committed["group"] for f in report["findings"])


def test_the_groups_committed_offsets_leave_out_aborted_and_open_transactions():
    from kafka_meta.analysis.assemble import build_timeline
    from kafka_meta.inputs import read

    inputs = read([str(RECORDING / "kafka-logs")])
    (committed,) = truth("committed")
    timeline = build_timeline(inputs.exchanges, inputs.offsets)
    assert timeline.group(committed["group"]).committed_offsets() == committed["offsets"]


def test_the_html_report_draws_the_transactions(tmp_path):
    """The page's transactions table (the hanging one among them) and each group's lane of transactional
    commits, the aborted ones a series of their own."""
    page = tmp_path / "report.html"
    assert main(["report", "-o", str(page), "--format", "json", str(RECORDING / "kafka-logs")]) in (0, 1)
    html = page.read_text()
    assert "<h2>Transactions</h2>" in html and "lab-txh-hanging" in html
    assert "partition held open" in html and "lab-txh-out-1" in html
    for series in ("transaction committed", "transaction aborted", "transaction open"):
        assert series in html, series
