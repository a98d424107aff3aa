"""The analyze job's timeline on local Spark: report.json gains each group's rounds and the findings, and
report.html is written beside it; the same story the plain-Python builder tells from the same inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from pcap_exchanges import CAPTURES, capture_exchanges

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "fixtures" / "captures" / "capture.jsonl"


def test_report_json_and_html_carry_the_timeline(spark, tmp_path, capsys):
    story = [CAPTURES[name] for name in ("storm", "upgrade", "coop")]  # the README's story, in three captures
    code = main(["analyze", str(SAMPLE), *(a for p in story for a in ("--capture", str(p))), "--output",
                 str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1  # the sample's damaged payloads could not be read: listed in the report, and 1
    saved = json.loads((tmp_path / "report.json").read_text())
    rows = [r for r in map(json.loads, SAMPLE.read_text().splitlines()) if "key" in r]
    exchanges = [e for p in story for e in capture_exchanges(p)]
    local = build_timeline(exchanges, rows)
    assert sorted(saved["groups"]) == sorted({g.group for g in local.groups} | {"orders", "audit", "word-count",
                                                                                "checkout"})
    for g in local.groups:
        assert [(r["generation"], r["commits"], r["leader"], r["triggers"]) for r in saved["groups"][g.group]["rounds"]
                ] == [(r.generation, r.commits, r.leader, r.triggers) for r in g.rounds], g.group
    assert [(f["group"], f["kind"]) for f in saved["findings"]] == [(f.group, f.kind) for f in local.ranked_findings]
    kinds = {(f["group"], f["kind"]) for f in saved["findings"]}
    # the bundled sample's story: churn, an upgrade stuck half-way, a cooperative migration in two phases
    assert ("g-cfk-storm", "churn") in kinds and ("g-upgrade", "stuck-upgrade") in kinds
    assert [r["phase"] for r in saved["groups"]["g-cfk-coop"]["rounds"][1:3]] == ["revoke", "assign"]
    assert saved["groups"]["orders"]["rounds"][0]["commits"] == 6 and saved["groups"]["audit"]["mixedVersions"] is False
    html = (tmp_path / "report.html").read_text()
    drawn = [name for name, g in saved["groups"].items() if g.get("rounds") or g.get("findings")]
    assert html.startswith("<!DOCTYPE html>") and html.count("Plotly.newPlot") == len(drawn)
    assert "rebalance timeline:" in out and "CRITICAL g-upgrade: upgrade stuck half-way" in out


def test_captures_given_as_the_input_make_the_timeline(spark, tmp_path, capsys):
    """A capture as analyze's INPUT (the capture data source): its exchanges build the timeline too."""
    capture = tmp_path / "in"
    capture.mkdir()
    (capture / "kip848.pcapng").write_bytes(CAPTURES["kip848"].read_bytes())
    assert main(["analyze", str(capture), "--output", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    rounds = saved["groups"]["g-cfk-848"]["rounds"]
    local = build_timeline(capture_exchanges(CAPTURES["kip848"])).group("g-cfk-848")
    assert [(r["generation"], r["complete"]) for r in rounds] == [(r.generation, r.complete) for r in local.rounds]
    assert saved["groups"]["g-cfk-848"]["kind"] == "consumer (KIP-848)"
    assert (tmp_path / "out" / "report.html").stat().st_size > 1_000_000


def test_the_readme_main_command_reads_every_kind_of_input(spark, tmp_path, capsys):
    """The quick start's inputs, as the README gives them: JSON Lines, a directory of packet captures and a
    broker log directory in one run; each kind's groups reach the report, with its own evidence."""
    import re

    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Quick start")
    command = re.findall(r"```\n(.*?)\n```", readme[start:], re.S)[0].split("&&")[-1].split()
    assert command[:2] == ["kafka-meta", "analyze"]
    inputs = command[2:]
    assert {Path(p).name for p in inputs} == {"capture.jsonl", "pcap", "kafka-logs", "capture.pcapng"}, inputs
    assert any("fixtures/lab/streams-upgrade" in p for p in inputs)  # Kafka Streams' own upgrade, recorded
    # the log's damaged batches and the sample's damaged payloads are read around and listed: exit status 1
    assert main(["analyze", *(str(ROOT / p) for p in inputs), "--output", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    saved = json.loads((tmp_path / "report.json").read_text())
    groups = saved["groups"]
    assert {"orders", "word-count"} <= set(groups)  # JSON Lines
    assert {"ledger", "billing"} <= set(groups)  # only in the log segments
    assert {"g-cfk-storm", "g-upgrade", "g-cfk-848", "lab-storm"} <= set(groups)  # only in the captures
    cited = {e.get("file") for f in saved["findings"] for e in f.get("evidence", [])}
    assert any(str(c).startswith("__consumer_offsets-") for c in cited)  # a log's record: its partition
    assert any(str(c).endswith(".pcap") for c in cited)
    kinds = {(f["group"], f["kind"]): f["severity"] for f in saved["findings"]}
    assert kinds[("lab-storm", "storm")] == "critical" and ("g-upgrade", "stuck-upgrade") in kinds
    assert kinds[("g-cfk-storm", "churn")] == "info"  # eight consumers joining and leaving: churn, not a storm
    # the Streams application, from its capture and its broker's log in one job: the upgrade finished
    assert kinds[("lab-wordcount-upgrade", "upgrade-finished")] == "info"
    assert ("lab-wordcount-upgrade", "stuck-upgrade") not in kinds and ("lab-wordcount-upgrade", "storm") not in kinds
    upgrade = groups["lab-wordcount-upgrade"]["rounds"]
    assert sum(any(c["kind"] == "probing" for c in r["causes"]) for r in upgrade) == 2
    coop = next(name for name in groups if name.startswith("g-cfk-coop"))
    assert [r["phase"] for r in groups[coop]["rounds"][1:3]] == ["revoke", "assign"]
    # the log's two damaged batches are reported with their place, not fatal and no undecodable record
    assert len([p for p in saved["problems"] if "CRC-32C mismatch" in p]) == 2 and saved["errors"] == 0
    assert "damage read around" in out
    assert (tmp_path / "report.html").exists()
    assert str(tmp_path / "report.html") in out.rstrip().splitlines()[-1]  # the summary ends saying where to look

    # the same inputs through `kafka-meta report`, without Spark: one document, the same counts, groups,
    # rounds, findings and damage
    assert main(["report", *(str(ROOT / p) for p in inputs), "--format", "json"]) == 1  # as analyze
    told = json.loads(capsys.readouterr().out)
    assert sorted(told) == sorted(saved)
    for key in ("records", "tombstones", "unknownRecordTypes", "readForward", "errors", "blobs", "blobVersions",
                "blobErrors", "exchanges", "exchangeErrors", "unreadable", "thresholds"):
        assert told[key] == saved[key], key
    assert sorted(told["problems"]) == sorted(saved["problems"])  # each reader's damage, with its place
    assert sorted(told["groups"]) == sorted(groups)
    state = ("kind", "protocolType", "assignor", "generation", "members", "subscriptionVersions",
             "assignmentVersions", "streams", "committedPartitions", "explanation", "abortedCommits")
    for name, group in groups.items():
        assert {k: told["groups"][name].get(k) for k in state} == {k: group.get(k) for k in state}, name

    def evidence(findings):  # JSON Lines line numbers are the reader's alone: Spark's JSON reader has none
        return [(f["group"], f["kind"], f["severity"], f["summary"], f["member"],
                 [(e["file"], e["frame"], e["offset"]) for e in f["evidence"]]) for f in findings]

    assert evidence(told["findings"]) == evidence(saved["findings"])
    for name, group in groups.items():
        def story(rounds):
            return [(r["generation"], r["commits"], r["leader"], r["phase"], r["complete"],
                     sorted(map(str, r["triggers"]))) for r in rounds]

        assert story(told["groups"][name]["rounds"]) == story(group["rounds"]), name
    assert [(f["group"], f["kind"], f["severity"]) for f in told["findings"]] == \
        [(f["group"], f["kind"], f["severity"]) for f in saved["findings"]]


def test_only_changes_of_a_keys_value_travel_to_the_driver(spark):
    """Byte-identical rewrites are dropped on the executors; a change back, and a tombstone, are kept."""
    from kafka_meta.spark.timeline import _changes_only

    a, b = bytearray(b"A"), bytearray(b"B")
    rows = [(b"k", a, 0), (b"k", a, 1), (b"k", b, 2), (b"k", a, 3), (b"k", None, 4), (b"k", None, 5),
            (b"j", a, 6), (b"j", a, 7)]
    df = spark.createDataFrame(rows, "key binary, value binary, offset long")
    kept = _changes_only(df, ["offset"], ["key"]).orderBy("offset").collect()
    assert [r.offset for r in kept] == [0, 2, 3, 4, 6]
    unordered = _changes_only(df.drop("offset"), [], ["key"])
    assert unordered.columns == ["key", "value"] and unordered.count() == 5
