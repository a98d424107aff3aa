"""The analyze job (Spark, local mode) on the lab's recordings, captures and log directories in one run: its
report.json tells what the Java clients themselves observed, as the plain-Python timeline does."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from lab_truth import (
    completed_members,
    groups,
    owned_histories,
    recording,
    timeline_histories,
    truth,
    without_handovers,
)

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from kafka_meta.cli.main import main

SCENARIOS = ("classic", "static", "storm", "consumer", "transactions", "transactions-hanging", "share",
             "streams-upgrade", "streams-group")


def _units(labels: list[str] | None) -> set[tuple[str, int]] | None:
    if labels is None:
        return None
    return {(label.rsplit("-", 1)[0], int(label.rsplit("-", 1)[1])) for label in labels}


def rounds_of(doc: dict) -> list[SimpleNamespace]:
    """report.json's rounds of one group as the objects the truth helpers read."""
    return [SimpleNamespace(generation=r["generation"], source=r["source"], causes=r["causes"],
                            members=[SimpleNamespace(member_id=m["memberId"], assigned=_units(m["assigned"]),
                                                     synced_at=m["syncedAt"]) for m in r["members"]])
            for r in doc["rounds"]]


@pytest.fixture(scope="module")
def report(spark, tmp_path_factory):
    paths = [recording(name) for name in SCENARIOS]
    if None in paths:
        pytest.skip("the lab recordings are not all there (fixtures/lab)")
    inputs = [str(p / part) for p in paths for part in ("capture.pcapng", "kafka-logs")]  # type: ignore[operator]
    out = tmp_path_factory.mktemp("lab-analyze")
    status = main(["analyze", *inputs, "--output", str(out)])
    doc = json.loads((out / "report.json").read_text())
    # the exit status says whether everything was read (README, "Exit status"): a recording's capture may end
    # inside an exchange (tshark stopped mid-response), and then the report lists it and the status is 1
    incomplete = [*doc["unreadable"], *doc["problems"]]
    assert status == (1 if incomplete or doc["errors"] or doc["blobErrors"] else 0), (status, incomplete[:5])
    assert all("capture ends inside" in line or "were not captured" in line for line in incomplete), incomplete[:5]
    return doc, paths


def test_every_group_of_every_recording_is_in_the_report(report):
    doc, paths = report
    for path in paths:
        for name in groups(path):
            assert name in doc["groups"], (path.name, name)


def test_classic_generations_and_ownership_equal_what_the_clients_saw(report):
    doc, paths = report
    for path in paths:
        for name, seen in groups(path).items():
            if seen.protocol != "classic":
                continue
            got = completed_members(rounds_of(doc["groups"][name]))
            assert sorted(got) == sorted(seen.generations), name
            for generation, owners in seen.generations.items():
                assert {m: got[generation][m] for m in owners} == owners, (name, generation)


def test_kip848_members_went_through_what_their_listeners_saw(report):
    doc, paths = report
    for path in paths:
        for name, seen in groups(path).items():
            if seen.protocol != "consumer":
                continue
            got = {m: without_handovers(h) for m, h in timeline_histories(rounds_of(doc["groups"][name])).items()}
            assert got == {m: without_handovers(h) for m, h in owned_histories(path, name).items()}, name


def test_findings_as_an_operator_would_judge_them(report):
    doc, _ = report
    severity = {(f["group"], f["kind"]): f["severity"] for f in doc["findings"]}
    assert severity[("lab-storm", "storm")] == "critical"
    assert severity[("lab-static", "storm")] == "critical"
    for churn in ("lab-classic-range", "lab-classic-coop", "lab-consumer-uniform", "lab-consumer-range"):
        assert severity.get((churn, "churn")) == "info" and (churn, "storm") not in severity, churn
    assert severity[("lab-wordcount-upgrade", "upgrade-finished")] == "info"
    assert not {k for k in severity if k[0] == "lab-wordcount-upgrade" and k[1] in ("storm", "stuck-upgrade")}
    assert not [k for k in severity if k[1] in ("join-unfinished", "zombie-commit")], severity


def test_an_aborted_transactions_offsets_are_not_counted(report):
    doc, paths = report
    transactions = [e for e in truth(next(p for p in paths if p.name == "transactions"))
                    if e["event"] == "transaction"]
    txn = doc["groups"]["lab-txn"]
    aborted = sum(len(t["offsets"]) for t in transactions if t["outcome"] == "aborted")
    assert aborted and txn["abortedCommits"] == aborted
    # one OffsetCommit record per partition of each committed transaction, and only those
    committed = sum(len(t["offsets"]) for t in transactions if t["outcome"] == "committed")
    assert sum(r["commits"] for r in txn["rounds"]) == committed


def test_settled_epochs_are_what_kafkas_admin_client_described(report):
    """KIP-848, share and streams groups: each Stable describe snapshot is the round of its group epoch."""
    from test_lab_timeline import _described

    doc, paths = report
    checked = 0
    for path in paths:
        for event in truth(path):
            if event["event"] not in ("describe", "streams_describe") or not event.get("members"):
                continue
            if event.get("state") != "Stable" or event.get("group_epoch") is None or event.get("type") == "Classic":
                continue
            r = next(r for r in doc["groups"][event["group"]]["rounds"] if r["generation"] == event["group_epoch"])
            got = {m["memberId"]: frozenset(m["assigned"] or ()) for m in r["members"]}
            assert got == _described(event), (event["group"], event["group_epoch"])
            checked += 1
    assert checked >= 10


def test_spark_writer_gives_the_same_report(report, spark, tmp_path):
    """The report above came from tables the Python workers wrote as they read the broker's logs
    (kafka_meta.spark.offsets_writer); Spark's own writer (a URL output) gives the same report."""
    from kafka_meta.spark.inputs import plan
    from kafka_meta.spark.job import Progress, log_inputs, run

    doc, paths = report
    inputs = [str(p / part) for p in paths for part in ("capture.pcapng", "kafka-logs")]
    assert log_inputs(plan(inputs)[0]) is not None  # the captures give exchanges: the logs are all the records
    by_spark = run(spark, inputs, output=f"file://{tmp_path}/out", progress=Progress(lambda _: None))
    assert (tmp_path / "out" / "offsets" / "_SUCCESS").exists()  # Spark's writer wrote this one
    theirs = json.loads(json.dumps(by_spark.to_json()))
    assert {**theirs, "output": None} == {**doc, "output": None}


def test_transactions_as_their_producers_and_the_coordinator_saw_them(report):
    """analyze's transactions section, read from every recording's log directory at once: each transaction the
    producers of transactions-hanging logged, the one they fenced and the one left hanging."""
    doc, paths = report
    recorded = truth(next(p for p in paths if p.name == "transactions-hanging"))
    told = {(t["transactionalId"], t["startMs"]): t for i in doc["transactions"]["transactionalIds"]
            for t in i["transactions"]}
    for txn in (e for e in recorded if e["event"] == "txn"):
        ours = told[(txn["transactional_id"], txn["start"])]
        assert (ours["outcome"], ours["producerId"], ours["producerEpoch"]) == (
            txn["outcome"], txn["producer_id"], txn["producer_epoch"])
    kinds = {(f["kind"], f["transactionalId"]) for f in doc["findings"]}
    assert {(k, t) for k, t in kinds if t and t.startswith("lab-txh")} == {
        ("fenced-producer", "lab-txh-fenced"), ("hanging-transaction", "lab-txh-hanging")}
