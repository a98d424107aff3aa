"""Every verb that writes rows writes rows every verb reads back to the same story: what ``capture``, ``log``
and ``analyze`` write, read again by ``report`` and by ``analyze``, gives the groups, rounds and findings of
the input they were written from.

``offsets`` prints records decoded (its lines name a record's group and fields, not its bytes): its output is
for reading, not for reading again, so what stands for it here is the raw-record JSON Lines it reads, the
bundled fixtures' form, read by every verb alike. ``analyze``'s output is read back from the tables holding
each input row once (``exchanges/``, ``offsets/``); ``groups/`` and ``members/`` are derived from
``offsets/``. Spark runs are few: three jobs in one session, each on several inputs whose groups are apart
(a group read from two inputs of one job is one story of both).
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from kafka_meta.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
CAPTURE = ROOT / "fixtures" / "lab" / "storm" / "capture.pcapng"  # exchanges: group lab-storm
LOG = ROOT / "fixtures" / "log" / "kafka-logs"  # records: audit, billing, ledger, ...
RECORDS = ROOT / "fixtures" / "captures" / "capture.jsonl"  # records and payloads: audit, orders, ... (not LOG's)


def verb(*argv: str) -> subprocess.CompletedProcess[str]:
    """A verb as a user runs it, its rows on stdout."""
    return subprocess.run([sys.executable, "-m", "kafka_meta.cli.main", *argv], capture_output=True, text=True,
                          check=False, cwd=ROOT)


def report_json(*inputs: Path | str) -> dict[str, Any]:
    """``kafka-meta report --format json`` of the inputs."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["report", *map(str, inputs), "--format", "json"])
    return json.loads(out.getvalue())


def analyze(spark: Any, output: Path, *inputs: Path | str) -> dict[str, Any]:
    """``kafka-meta analyze`` of the inputs on the shared session: its report.json."""
    import argparse

    from kafka_meta.spark.job import execute

    with contextlib.redirect_stdout(io.StringIO()):
        execute(argparse.Namespace(input=[str(p) for p in inputs], format="auto", output=str(output), master=None,
                                   bootstrap_servers=None), spark)
    return json.loads((output / "report.json").read_text())


def story(report: dict[str, Any], groups: set[str] | None = None) -> tuple[dict[str, Any], list[Any]]:
    """The groups (each one's rounds: generation, commits, leader, phase, whether complete, what started it)
    and the findings of a report, of ``groups`` only when given."""
    def wanted(name: str) -> bool:
        return groups is None or name in groups

    rounds = {name: [(r["generation"], r["commits"], r["leader"], r["phase"], r["complete"],
                      sorted(map(str, r["triggers"]))) for r in g.get("rounds", [])]
              for name, g in report["groups"].items() if wanted(name)}
    findings = [(f["group"], f["kind"], f["severity"], f["summary"], f["member"]) for f in report["findings"]
                if wanted(f["group"])]
    return rounds, findings


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    """What ``capture`` and ``log`` write of the fixtures."""
    here = tmp_path_factory.mktemp("written")
    paths = {"capture": here / "capture.jsonl", "log": here / "log.jsonl"}
    for name, argv in (("capture", ["capture", str(CAPTURE)]), ("log", ["log", str(LOG)])):
        done = verb(*argv)
        assert done.stdout and "Traceback" not in done.stderr, done.stderr
        paths[name].write_text(done.stdout)
    return paths


@pytest.fixture(scope="module")
def originals(spark, tmp_path_factory) -> dict[str, Any]:
    """The capture beside the raw records, analyzed: its report and where its Parquet is."""
    out = tmp_path_factory.mktemp("originals")
    return {"out": out, "report": analyze(spark, out, CAPTURE, RECORDS)}


@pytest.fixture(scope="module")
def rewritten(spark, written, tmp_path_factory) -> dict[str, Any]:
    """What ``capture`` and ``log`` wrote, analyzed in one job."""
    return analyze(spark, tmp_path_factory.mktemp("rewritten"), written["capture"], written["log"])


@pytest.fixture(scope="module")
def reread(spark, originals, tmp_path_factory) -> dict[str, Any]:
    """What ``analyze`` wrote of the originals, analyzed again."""
    tables = [originals["out"] / "exchanges", originals["out"] / "offsets"]
    return analyze(spark, tmp_path_factory.mktemp("reread"), *tables)


def test_the_capture_verb_s_rows_tell_the_capture_s_story(written, rewritten):
    told = report_json(CAPTURE)
    assert story(told)[0]["lab-storm"] and story(told)[1]  # rounds and a finding: something to compare
    assert story(report_json(written["capture"])) == story(told)
    assert story(rewritten, set(told["groups"])) == story(told)
    assert sum(sum(g.values()) for g in rewritten["exchanges"].values()) == sum(
        sum(g.values()) for g in told["exchanges"].values())


def test_the_log_verb_s_rows_read_alike_by_both_verbs(written, rewritten):
    told = report_json(written["log"])
    assert len(story(told)[0]) >= 5
    assert story(rewritten, set(told["groups"])) == story(told)
    assert rewritten["records"] == told["records"] and rewritten["tombstones"] == told["tombstones"]


def test_the_log_verb_s_rows_tell_the_log_s_story(written):
    """kafka-meta log's JSON Lines carry each transactional record's producer and outcome, so a transaction's
    commits count only when it committed, as read from the segments themselves (billing's round)."""
    assert story(report_json(written["log"])) == story(report_json(LOG))


def test_the_raw_records_read_alike_by_every_verb(originals):
    """The raw-record JSON Lines the offsets verb reads: it reads every record of them, and report and analyze
    tell the same story of them."""
    rows = [json.loads(line) for line in RECORDS.read_text().splitlines() if line.strip()]
    done = verb("offsets", str(RECORDS))
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(printed) == sum("key" in r for r in rows)  # rows in = rows out
    told = report_json(CAPTURE, RECORDS)
    assert story(originals["report"]) == story(told)
    assert originals["report"]["records"] == told["records"] and originals["report"]["blobs"] == told["blobs"]


def test_analyze_s_parquet_tells_its_inputs_story(originals, reread):
    """``exchanges/`` and ``offsets/`` read back, by report and by analyze: the capture's and the records'
    story."""
    told = report_json(CAPTURE, RECORDS)
    tables = [originals["out"] / "exchanges", originals["out"] / "offsets"]
    assert story(report_json(*tables)) == story(told)
    assert story(reread) == story(told)
    assert reread["records"] == told["records"] and reread["exchanges"] == told["exchanges"]
