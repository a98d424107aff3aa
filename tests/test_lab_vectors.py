"""The golden vectors taken from the lab's recordings (fixtures/lab/vectors.jsonl, by lab/extract_vectors): the
file is what the committed recordings give, it holds every kind of bytes they hold that kafka_meta reads, and
each vector names who wrote it. (That each one verifies both ways as a golden case: test_golden_corpus.py.)

No JVM: the extraction reads the committed recordings with kafka_meta's own readers.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import LAB, ROOT

from kafka_meta.golden.sources import vector_file

VECTORS = ROOT / "fixtures" / "lab" / "vectors.jsonl"
RECORDINGS = ROOT / "fixtures" / "lab"
MAX_BYTES = 300_000  # a few hundred KB at most: one or two cases of each kind
WRITER = re.compile(r"^(Apache Kafka (?P<kafka>[\d.]+) (broker|Java client)|Kafka Streams (?P<streams>[\d.]+)) "
                    r"\(lab recording: (?P<scenario>[a-z-]+)\)$")


@pytest.fixture(scope="module")
def labvectors():
    if str(LAB) not in sys.path:
        sys.path.insert(0, str(LAB))
    import labvectors.main

    return labvectors.main


@pytest.fixture(scope="module")
def lines() -> list[dict]:
    return [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines()]


def test_the_vector_file_is_what_the_recordings_give(labvectors, tmp_path):
    out = tmp_path / "vectors.jsonl"
    assert labvectors.main(["--recordings", str(RECORDINGS), "--out", str(out)]) == 0
    assert out.read_bytes() == VECTORS.read_bytes(), "regenerate it with: lab/extract_vectors"


def test_the_vector_file_stays_small(lines):
    assert VECTORS.stat().st_size <= MAX_BYTES
    kinds = Counter((line["type"], line["version"], line["source"].split(" (")[0]) for line in lines)
    assert max(kinds.values()) <= 16, kinds.most_common(3)


def test_every_vector_names_its_writer_as_the_recording_does(lines):
    """The broker wrote the logs and the responses; a request's writer is what its connection's ApiVersions
    request said (KIP-511); the recording pins which releases ran."""
    for line in lines:
        writer = WRITER.match(line["source"])
        assert writer, line["source"]
        pinned = json.loads((RECORDINGS / writer["scenario"] / "recording.json").read_text())["versions"]
        if writer["kafka"] is not None:
            assert writer["kafka"] in (pinned["kafka.version"], pinned["streams.legacy.version"]), line["source"]
        else:
            assert writer["streams"] in (pinned["kafka.version"], pinned["streams.legacy.version"]), line["source"]
        if line["family"] in ("offsets-topic", "control", "cluster-metadata") or line["type"].endswith("Response"):
            assert line["source"].startswith(f"Apache Kafka {pinned['kafka.version']} broker"), line


def test_the_vectors_hold_every_kind_of_bytes_the_recordings_hold(lines):
    held = {(line["type"], line["version"]) for line in lines}
    by_writer = {(line["type"], line["version"], line["source"].split(" (")[0]) for line in lines}
    records = {"OffsetCommit": 4, "GroupMetadata": 3}
    records |= {f"{family}{record}": 0 for family in ("ConsumerGroup", "ShareGroup", "StreamsGroup")
                for record in ("Metadata", "MemberMetadata", "TargetAssignmentMetadata", "TargetAssignmentMember",
                               "CurrentMemberAssignment")}
    records |= {"ShareGroupStatePartitionMetadata": 0, "StreamsGroupTopology": 0}
    assert {(name, version) for name, version in records.items()} <= held
    tombstones = {line["type"] for line in lines if line["family"] == "offsets-topic" and line["hex"] is None}
    assert {"ConsumerGroupMemberMetadata", "ShareGroupMemberMetadata", "StreamsGroupMemberMetadata"} <= tombstones
    markers = {line["hex"] for line in lines if line["type"] == "ControlRecordKey"}
    assert markers == {"00000000", "00000001"}  # ABORT and COMMIT
    assert {("EndTxnMarker", 0), ("MetadataRecordFrame/FeatureLevelRecord", 0), ("MetadataRecordFrame/TopicRecord", 0),
            ("FeatureLevelRecord", 0), ("TopicRecord", 0), ("CooperativeStickyAssignorUserData", 0)} <= held
    # the Streams upgrade: 2.4.1's metadata, 4.4.0's under upgrade.from=2.4, then 4.4.0's own
    assert {("SubscriptionInfo", 5, "Kafka Streams 2.4.1"), ("SubscriptionInfo", 5, "Kafka Streams 4.4.0"),
            ("SubscriptionInfo", 11, "Kafka Streams 4.4.0"), ("AssignmentInfo", 5, "Kafka Streams 2.4.1"),
            ("AssignmentInfo", 11, "Kafka Streams 4.4.0"), ("ConsumerProtocolSubscription", 1, "Kafka Streams 2.4.1"),
            ("ConsumerProtocolAssignment", 1, "Kafka Streams 2.4.1"),
            ("ConsumerProtocolSubscription", 3, "Apache Kafka 4.4.0 Java client"),
            ("ConsumerProtocolAssignment", 3, "Apache Kafka 4.4.0 Java client")} <= by_writer
    apis = ("JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit", "OffsetFetch", "FindCoordinator",
            "DescribeGroups", "ConsumerGroupHeartbeat", "ConsumerGroupDescribe", "ShareGroupHeartbeat",
            "StreamsGroupHeartbeat", "TxnOffsetCommit", "EndTxn")
    bodies = {line["type"] for line in lines if line["family"] == "protocol"}
    assert {f"{api}{side}" for api in apis for side in ("Request", "Response")} <= bodies


def test_lab_vectors_are_named_as_corpus_cases(lines):
    vectors = list(vector_file(VECTORS))
    assert len(vectors) == len(lines)
    assert all(v.name.startswith("lab-") and "lab/vectors.jsonl line" in v.metadata["source"] for v in vectors)
    framed = [v for v in vectors if v.subject == "MetadataRecord"]
    assert framed and {v.version for v in framed} == {1}  # the frame's version, as the shared vectors read


def test_the_recordings_read_by_the_extraction_are_the_committed_ones(labvectors):
    assert [p.name for p in labvectors.recordings(RECORDINGS)] == sorted(
        p.name for p in RECORDINGS.iterdir() if (p / "recording.json").is_file())
    assert Path(labvectors.ROOT) == ROOT
