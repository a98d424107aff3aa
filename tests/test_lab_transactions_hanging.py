"""The transactions-hanging recording (docs/lab.md): what its Java clients observed (truth.jsonl) is what the
broker's own segments hold. Each committed or aborted transaction ends in a marker of its producer on every
data partition it wrote, of its outcome; the fenced producer's transaction was aborted for it; the hanging
transaction's records and its transactional offset commit have no marker after them; and the group's committed
offsets Admin read are those of the last committed transaction, not the aborted or the pending ones.

No JVM: the committed recording is read with kafka_meta's log reader.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from kafka_meta.log import read_log

RECORDING = ROOT / "fixtures" / "lab" / "transactions-hanging"
COMMIT, ABORT = b"\x00\x00\x00\x01", b"\x00\x00\x00\x00"  # a control record's key: version 0, then its type

pytestmark = pytest.mark.skipif(not RECORDING.is_dir(), reason="no transactions-hanging recording")


def truth(event: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in (RECORDING / "truth.jsonl").read_text().splitlines()]
    return [line for line in lines if line["event"] == event]


def rows(partition: str) -> list[dict[str, Any]]:
    path: Path = RECORDING / "kafka-logs" / partition
    found = list(read_log(path))
    assert found and not [r for r in found if r["_error"]], f"{path}: no rows, or rows that do not read"
    return found


def markers(partition: str) -> dict[int, list[bytes]]:
    """Each producer's markers on one partition, in log order (the key tells COMMIT from ABORT)."""
    by_producer: dict[int, list[bytes]] = defaultdict(list)
    for row in rows(partition):
        if row["control"]:
            by_producer[row["producerId"]].append(row["key"])
    return by_producer


def test_the_recording_keeps_the_transaction_log_the_output_topic_and_the_offsets_topic():
    kept = json.loads((RECORDING / "recording.json").read_text())["segments"]
    topics = {segment.split("/")[0].rsplit("-", 1)[0] for segment in kept}
    assert {"__transaction_state", "__consumer_offsets", "lab-txh-out"} <= topics


def test_every_ended_transaction_has_its_outcomes_marker_on_each_partition_it_wrote():
    ended = [t for t in truth("txn") if t["outcome"] != "open"]
    assert {t["outcome"] for t in ended} == {"committed", "aborted"}
    expected: dict[tuple[str, int], list[bytes]] = defaultdict(list)
    for txn in ended:
        for partition in txn["partitions"]:  # the data partitions and the offsets topic's, as the coordinator said
            expected[(partition, txn["producer_id"])].append(COMMIT if txn["outcome"] == "committed" else ABORT)
    found = {(partition, producer): keys
             for partition in {p for p, _ in expected}
             for producer, keys in markers(partition).items()}
    assert found == dict(expected)


def test_the_fenced_producer_lost_its_transaction_to_a_newer_epoch():
    [fenced] = truth("fenced")
    assert fenced["error"] == "ProducerFencedException"
    assert fenced["new_epoch"] > fenced["producer_epoch"]
    first = [t for t in truth("txn") if t["transactional_id"] == fenced["transactional_id"]
             and t["producer_epoch"] == fenced["producer_epoch"]]
    assert [t["outcome"] for t in first] == ["aborted"]


def test_the_hanging_transaction_has_no_marker_and_the_coordinator_says_ongoing():
    [txn] = [t for t in truth("txn") if t["outcome"] == "open"]
    assert txn["end"] is None
    state = {s["transactional_id"]: s for s in truth("transaction_state")}[txn["transactional_id"]]
    assert (state["state"], state["producer_id"], state["partitions"]) == ("Ongoing", txn["producer_id"],
                                                                           txn["partitions"])
    for partition in txn["partitions"]:
        written = [r for r in rows(partition) if r["producerId"] == txn["producer_id"]]
        assert written and not [r for r in written if r["control"]], f"{partition}: a marker of the open transaction"
    data = [p for p in txn["partitions"] if not p.startswith("__")]
    assert sum(1 for p in data for r in rows(p) if r["producerId"] == txn["producer_id"]) == txn["records"]
    [producers] = [p for p in truth("producers") if p["partition"] in data]
    [open_producer] = [p for p in producers["producers"] if p["producer_id"] == txn["producer_id"]]
    first = min(r["offset"] for r in rows(data[0]) if r["producerId"] == txn["producer_id"])
    assert open_producer["txn_start_offset"] == first


def test_the_groups_committed_offsets_are_the_last_committed_transactions():
    committed = [t for t in truth("txn") if t["outcome"] == "committed"]
    last: dict[str, int] = {}
    for txn in sorted(committed, key=lambda t: t["end"]):
        last.update(txn["offsets"])
    [admin] = truth("committed")
    assert admin["offsets"] == last
    others = {p: o for t in truth("txn") if t["outcome"] != "committed" for p, o in t["offsets"].items()}
    assert any(admin["offsets"].get(p) != o for p, o in others.items())
