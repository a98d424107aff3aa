"""The analyze report's group facts, from decoded records (no Spark needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kafka_meta as km
from kafka_meta.analysis import analyze_groups, newest_records, render_text
from kafka_meta.analysis.groups import ownership_conflicts
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.offsets import decode_record, encode_record, new_record

CAPTURE = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "capture.jsonl"


def capture_records():
    rows = [json.loads(line) for line in CAPTURE.read_text().splitlines()]
    return newest_records((bytes.fromhex(r["key"]), None if r["value"] is None else bytes.fromhex(r["value"]))
                          for r in rows if "key" in r)


def test_capture_groups():
    groups = analyze_groups(capture_records())
    assert set(groups) == {"orders", "audit", "word-count", "checkout"}  # retired-app was deleted
    orders = groups["orders"]
    assert orders.assignor == "range" and orders.subscription_versions == {3: 3} and not orders.mixed_versions
    assert orders.committed_partitions == 5  # six commits, one deleted by a tombstone
    audit = groups["audit"]
    assert audit.conflicts == ["audit-1 is claimed by auditor-a, auditor-b",
                               "audit-1 is assigned to auditor-b while auditor-a still owns it"]
    streams = groups["word-count"]
    assert streams.streams and streams.mixed_versions
    assert streams.streams_used_versions == {10: 2, 11: 1} and streams.streams_common_versions == {10: 3}
    checkout = groups["checkout"]
    assert checkout.kind == "consumer (KIP-848)" and checkout.generation == 5
    assert checkout.classic_members == ["m-classic (cooperative-sticky)"]


def test_cooperative_validation_rule():
    def member(mid, owned, assigned):
        sub = km.model("ConsumerProtocolSubscription")(topics=["t"], owned_partitions=[
            {"topic": "t", "partitions": owned}])
        asg = km.model("ConsumerProtocolAssignment")(assigned_partitions=[{"topic": "t", "partitions": assigned}])
        return type("Nest", (), {"member_id": mid, "subscription": sub, "assignment": asg})()

    assert ownership_conflicts([member("a", [0], [0]), member("b", [1], [1, 2])]) == []
    assert ownership_conflicts([member("a", [0, 1], [0]), member("b", [], [1])]) == [
        "t-1 is assigned to b while a still owns it"]


def test_undecodable_member_bytes_are_reported():
    value = {"protocolType": "consumer", "generation": 1, "protocol": "range", "leader": "m", "members": [
        {"memberId": "m", "clientId": "c", "clientHost": "h", "sessionTimeout": 1, "subscription": b"\x00",
         "assignment": b""}]}
    record = decode_record(*encode_record(new_record(2, {"group": "g"}, value)))
    facts = analyze_groups([record])["g"]
    assert facts.member_errors and facts.member_errors[0].startswith("m: subscription:")
    report = AnalysisReport(groups={"g": facts})
    assert "needs attention: g" in render_text(report)


def test_the_summary_says_what_it_could_not_decode_and_where_its_outputs_are(tmp_path):
    """No bare "-" and no "v-1": undecodable payloads are counted as such, exchanges that name no group say
    so, a damaged version field is left to the reason; the summary ends with where each output is."""
    from collections import Counter

    report = AnalysisReport(output=str(tmp_path))
    report.blobs = Counter({"ConsumerProtocolAssignment": 3})
    report.blob_versions = {"ConsumerProtocolAssignment": Counter({3: 1})}
    report.exchanges = {"ApiVersions": Counter({"-": 4}), "JoinGroup": Counter({"g": 2})}
    (tmp_path / "report.html").write_text("")
    text = render_text(report)
    assert "ConsumerProtocolAssignment 3: v3 x1, 2 undecodable" in text
    assert "ApiVersions 4: no group 4" in text and "JoinGroup 2: g 2" in text
    assert text.splitlines()[-1].strip().startswith(str((tmp_path / "report.html").resolve()))
    with pytest.raises(km.DecodeError) as caught:
        km.decode("ConsumerProtocolAssignment", b"\xff\xff")
    assert "v-1" not in str(caught.value) and "unsupported version -1" in str(caught.value)
