"""Burrow's WARN and ERR become findings with what they cost and what to change, held to the lab's lag
recording (fixtures/lab/lag: real Java consumers on a real broker; truth.jsonl says what each did): a slow
consumer falls behind, a paused one stops with lag, one is rewound while caught up, and a quiet partition's
rare commits are no finding at all."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from kafka_meta.analysis.burrow import Evaluation, GroupEvaluation
from kafka_meta.analysis.lag import GroupStanding, PartitionStanding
from kafka_meta.analysis.lag_findings import lag_findings
from kafka_meta.cli.report_reading import read_report

LAG = ROOT / "fixtures" / "lab" / "lag"


def _truth() -> list[dict]:
    return [json.loads(line) for line in (LAG / "truth.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module", params=[("kafka-logs",), ("capture.pcapng", "kafka-logs")], ids=["log", "both"])
def findings(request) -> dict[str, list]:
    if not LAG.is_dir():
        pytest.skip("no lab recording lag under fixtures/lab")
    report = read_report([str(LAG / p) for p in request.param])
    out: dict[str, list] = {}
    for f in report.story.findings:
        out.setdefault(f.group, []).append(f)
    return out


def _one(findings: dict[str, list], group: str, kind: str):
    found = [f for f in findings.get(group, []) if f.kind == kind]
    assert len(found) == 1, (group, kind, [f.kind for f in findings.get(group, [])])
    return found[0]


def test_the_slow_consumer_is_falling_behind_and_told_to_add_consumers(findings):
    f = _one(findings, "lab-lag-slow", "falling-behind")
    assert f.severity == "warning" and set(f.partitions) == {"lab-lag-busy-0", "lab-lag-busy-1"}
    assert f.remedy is not None and "add consumers (it has 1 for 2 partition(s)" in f.remedy.text
    assert "lab-lag-slow-a" in f.summary and "on 127.0.0.1 owns" in f.summary


def test_the_paused_consumer_stopped_with_lag_and_its_poll_interval_is_named(findings):
    halted = next(e for e in _truth() if e["event"] == "halted" and e["group"] == "lab-lag-stopped")
    f = _one(findings, "lab-lag-stopped", "stopped-consumer")
    assert f.severity == "critical"
    assert set(f.partitions) == {f"{tp}" for tp in halted["committed"]}
    # it stopped committing at the offsets it reported, and commits nothing after
    assert f.ts is not None and f.ts * 1000 <= halted["ts"] + 1
    assert f.remedy is not None and "max.poll.interval.ms (now 300000 ms)" in f.remedy.text


def test_the_rewound_consumer_is_told_from_where_to_where(findings):
    rewind = next(e for e in _truth() if e["event"] == "rewind")
    f = _one(findings, rewind["group"], "rewound-offset")
    back = {rewind["from"][tp] for tp in rewind["to"]}, {rewind["to"][tp] for tp in rewind["to"]}
    assert f"offset went back from {back[0].pop()} to {back[1].pop()}" in f.summary
    assert set(f.partitions) == set(rewind["to"])


def test_a_quiet_partition_that_commits_rarely_is_no_finding(findings):
    assert not [f for f in findings.get("lab-lag-quiet", []) if f.kind in (
        "falling-behind", "stopped-consumer", "stalled-consumer", "rewound-offset")]


def _standing(status: str, rule: str) -> GroupStanding:
    p = PartitionStanding("t", 0, 5, 1_000, 3, "m-1", "app", "/10.0.0.1", 9, 4, 2.0, Evaluation(status, rule, 1.0),
                          3, ())
    return GroupStanding("g", (p,), GroupEvaluation("ERR" if status != "WARN" else "WARN", rule, ("t-0",)))


def test_a_stall_names_the_record_it_is_stuck_on_and_ok_makes_no_finding():
    (f,) = lag_findings(_standing("STALL", "3 commits at offset 5"), None)
    assert f.kind == "stalled-consumer" and f.severity == "critical"
    assert "offset 5 of t-0" in f.remedy.text and "app · m-1 on 10.0.0.1" in f.summary
    ok = GroupStanding("g", _standing("OK", "caught up").partitions, GroupEvaluation("OK", "caught up", ()))
    assert lag_findings(ok, None) == []
