"""kafka-meta analyze on packet captures: recognised by magic number (not name), exchanges written as
Parquet and counted per api and group in the report."""

from __future__ import annotations

import collections
import shutil

from capture_support import FIXTURES, everything

from kafka_meta.analysis import render_text
from kafka_meta.inputs import classify
from kafka_meta.spark.job import run


def kinds(path) -> set[str]:
    sources, _ = classify(str(path))
    return {s.kind for s in sources}


def test_captures_detected_by_magic(tmp_path):
    disguised = tmp_path / "traffic.jsonl"
    shutil.copy(FIXTURES / "cfk_storm.pcap", disguised)
    assert kinds(disguised) == {"capture"}
    assert kinds(FIXTURES) == {"capture"}
    text = tmp_path / "lines.pcap"
    text.write_text('{"type": "ConsumerProtocolSubscription", "hex": "00"}\n')
    assert kinds(text) == {"jsonl"}


def test_analyze_counts_exchanges(spark, tmp_path):
    disguised = tmp_path / "in" / "storm.jsonl"
    disguised.parent.mkdir()
    shutil.copy(FIXTURES / "cfk_storm.pcap", disguised)
    shutil.copy(FIXTURES / "cfk_consumer_protocol.pcapng", tmp_path / "in" / "kip848.bin")
    lines: list[str] = []

    class Quiet:
        def step(self, what: str) -> None:
            lines.append(what)

    report = run(spark, str(tmp_path / "in"), output=str(tmp_path / "out"), progress=Quiet())
    want: dict[str, collections.Counter] = {}
    errors = 0
    for path in (disguised, tmp_path / "in" / "kip848.bin"):
        exs, problems = everything(path)
        errors += len(problems) + sum(1 for e in exs if e["_error"])
        for e in exs:
            want.setdefault(e["apiName"], collections.Counter())[e["groupId"] or "-"] += 1
    assert report.exchanges == want and report.exchange_errors == errors
    assert set(report.exchanges["ConsumerGroupHeartbeat"]) == {"g-cfk-848"}
    assert "captured exchanges: " in render_text(report) and "JoinGroup" in render_text(report)
    parquet = spark.read.parquet(str(tmp_path / "out" / "exchanges"))
    assert parquet.count() == sum(sum(c.values()) for c in want.values())
    assert any("packet captures" in line for line in lines)
