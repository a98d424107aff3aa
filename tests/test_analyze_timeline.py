"""The analyze job's timeline on local Spark: report.json gains each group's rounds and the findings, and
report.html is written beside it; the same story the plain-Python builder tells from the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.spark.job import Progress, run, write_report

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "fixtures" / "captures" / "capture.jsonl"
LOG = ROOT / "fixtures" / "log" / "kafka-logs"


def test_report_json_and_html_carry_the_timeline(spark, tmp_path):
    lines: list[str] = []
    report = run(spark, str(SAMPLE), output=str(tmp_path), progress=Progress(lines.append))
    write_report(report, str(tmp_path))
    saved = json.loads((tmp_path / "report.json").read_text())
    rows = [r for r in map(json.loads, SAMPLE.read_text().splitlines()) if "key" in r]
    local = build_timeline(offsets_rows=rows)
    for g in local.groups:
        spark_rounds = saved["groups"][g.group]["rounds"]
        assert [(r["generation"], r["commits"], r["leader"]) for r in spark_rounds] == [
            (r.generation, r.commits, r.leader) for r in g.rounds]
    assert [(f["group"], f["kind"]) for f in saved["findings"]] == [(f.group, f.kind) for f in local.ranked_findings]
    assert saved["groups"]["orders"]["rounds"][0]["commits"] == 6
    assert saved["groups"]["word-count"]["findings"][0]["kind"] == "stuck-upgrade"
    assert saved["groups"]["audit"]["mixedVersions"] is False  # the job's own facts are still there
    html = (tmp_path / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count("Plotly.newPlot") >= 4
    assert any("building the rebalance timeline" in line for line in lines)
