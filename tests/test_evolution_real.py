"""The real thing: Kafka's specs of Oct 2024 against those of Aug 2026."""

from __future__ import annotations

import shutil

import pytest
from conftest import SHARED_REASON, SPEC_DIR

from kafka_meta.evolution import Level, Severity, compare_paths, transitive

pytestmark = pytest.mark.skipif(not SPEC_DIR.is_dir(), reason=SHARED_REASON)
NEWER = SPEC_DIR / "newer"


@pytest.fixture(scope="module")
def report():
    return compare_paths(SPEC_DIR, NEWER)


def rule_subjects(report, rule):
    return {(f.subject, f.path) for f in report.sorted() if f.rule == rule}


def test_the_share_group_records_changed_without_a_version_bump(report):
    layout = {f.subject: f for f in report.sorted() if f.rule == "layout-changed"}
    assert set(layout) == {"record 11 value", "record 15 value"}
    assert all(f.breaking and f.severity is Severity.WIRE and f.versions == "0" for f in layout.values())
    assert layout["record 11 value"].message.endswith("position 1: nothing -> MetadataHash (int64)")
    assert "position 0: InitializedTopics -> InitializingTopics (same encoding)" in layout["record 15 value"].message
    assert rule_subjects(report, "tagged-only-violated") == {
        ("record 11 value", "ShareGroupMetadataValue.MetadataHash"),
        ("record 15 value", "ShareGroupStatePartitionMetadataValue.InitializingTopics")}


def test_retired_record_types_are_reported_removed(report):
    removed = {f.subject: f for f in report.sorted() if f.rule == "record-type-removed"}
    assert set(removed) == {"record 9", "record 18"}
    assert removed["record 9"].level is Level.BREAKING and "ShareGroupPartitionMetadata" in removed["record 9"].message
    assert removed["record 18"].level is Level.RISKY and "retired" in removed["record 18"].message


def test_the_apikey_convention_change_is_not_a_wire_break(report):
    convention = rule_subjects(report, "coordinator-convention")
    assert {s for s, _ in convention} == {f"record {n}" for n in (0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15)}
    assert all(f.level is Level.INFO for f in report.sorted() if f.rule == "coordinator-convention")
    keys = [f for f in report.sorted() if f.subject.endswith(" key") and f.level is not Level.INFO]
    assert [(f.rule, f.subject) for f in keys] == [("message-renamed", "record 0 key")]  # OffsetCommit -> Legacy...
    wire_breaks = {f.subject for f in report.breaking([Severity.WIRE])}
    assert not any(s.endswith(" key") for s in wire_breaks)


def test_compatible_additions_are_reported_as_such(report):
    tagged = {(f.subject, f.path) for f in report.sorted() if f.rule == "field-added" and f.level is Level.INFO}
    assert ("record 1 value", "OffsetCommitValue.topicId") in tagged
    assert ("record 8 value", "ConsumerGroupCurrentMemberAssignmentValue.AssignedPartitions.AssignmentEpochs") in tagged
    assert {f.subject for f in report.sorted() if f.rule == "record-type-added"} == {
        f"record {n}" for n in (16, 17, 19, 20, 21, 22, 23)}
    # the legacy offset commit record (type 0) only reads value version 0 now
    shrunk = [f for f in report.sorted() if f.rule == "valid-versions-shrunk"]
    assert [(f.subject, f.versions) for f in shrunk] == [("record 0 value", "1-4")]


def test_the_subscription_specs_did_not_change(report):
    assert not [f for f in report.sorted() if "ConsumerProtocol" in f.path or "SubscriptionInfo" in f.path]


def test_transitive_finds_a_record_type_that_came_and_went(tmp_path):
    """Three snapshots: Oct 2024, a middle one that had record type 18, Aug 2026."""
    middle = tmp_path / "middle"
    shutil.copytree(NEWER / "group-coordinator", middle)
    for part in ("Key", "Value"):
        text = (middle / f"StreamsGroupMetadata{part}.json").read_text()
        (middle / f"StreamsGroupPartitionMetadata{part}.json").write_text(
            text.replace("StreamsGroupMetadata", "StreamsGroupPartitionMetadata").replace('"apiKey": 17',
                                                                                         '"apiKey": 18'))
    reports = transitive([SPEC_DIR / "group-coordinator", middle, NEWER / "group-coordinator"])
    assert [(r.old, r.new) for r in reports] == [
        (str(SPEC_DIR / "group-coordinator"), str(middle)),
        (str(SPEC_DIR / "group-coordinator"), str(NEWER / "group-coordinator")),
        (str(middle), str(NEWER / "group-coordinator"))]
    last = {f.subject: f for f in reports[2].sorted() if f.rule == "record-type-removed"}
    assert last["record 18"].level is Level.BREAKING and "StreamsGroupPartitionMetadata" in last["record 18"].message
    assert {f.subject for f in reports[0].sorted() if f.rule == "record-type-added"} >= {"record 18"}


def test_our_offsets_specs_say_what_kafkas_2026_specs_say():
    from conftest import ROOT

    report = compare_paths(NEWER / "group-coordinator", ROOT / "schemas" / "offsets")
    assert [f.message for f in report.sorted()] == []


# the metadata records whose Kafka counterpart no snapshot here holds (every one but FeatureLevelRecord):
# tests/test_lab_specs.py compares them with Kafka 4.4's, in the lab's jars
ONLY_IN_THE_JARS = "metadata"


@pytest.mark.parametrize(("ours", "theirs"), [("consumer", "newer/clients"), ("streams", "newer/streams"),
                                              ("metadata", "metadata")])
def test_our_other_specs_say_what_kafkas_say(ours, theirs):
    """The checker as a second, independent cross-check of our specs against Kafka's newest ones."""
    from conftest import ROOT

    from kafka_meta.evolution import compare_specs
    from kafka_meta.spec.loader import load_specs

    kafka = {s.name: s for s in load_specs(SPEC_DIR / theirs)}
    mine = [s for s in load_specs(ROOT / "schemas" / ours) if ours != ONLY_IN_THE_JARS or s.name in kafka]
    assert mine and all(s.name in kafka for s in mine)
    assert [f.message for s in mine for f in compare_specs(kafka[s.name], s)] == []
