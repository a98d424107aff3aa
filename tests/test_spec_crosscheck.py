"""Our own specs in schemas/ say exactly what Kafka's specs say, field by field."""

from __future__ import annotations

import pytest
from conftest import SPEC_DIR, need_shared

from kafka_meta.codec.registry import schema_root
from kafka_meta.spec import load_spec
from kafka_meta.spec.compare import structural_differences
from kafka_meta.spec.loader import iter_spec_files

OURS = sorted(iter_spec_files(schema_root()))

# our spec name -> upstream files it must agree with (both snapshots when the message exists in both)
UPSTREAM = {
    "ConsumerProtocolSubscription": ["clients/ConsumerProtocolSubscription.json",
                                     "newer/clients/ConsumerProtocolSubscription.json"],
    "ConsumerProtocolAssignment": ["clients/ConsumerProtocolAssignment.json",
                                   "newer/clients/ConsumerProtocolAssignment.json"],
    "SubscriptionInfoData": ["streams/SubscriptionInfoData.json", "newer/streams/SubscriptionInfoData.json"],
    "FeatureLevelRecord": ["metadata/FeatureLevelRecord.json"],
}

# request/response specs (schemas/protocol) are cross-checked in tests/test_protocol_specs.py, against the
# snapshot where it holds the message and against Kafka 4.3's files otherwise
PROTOCOL_DIR = "protocol"


# Kafka specs that no snapshot of ../shared/kafka-spec holds: tests/test_lab_specs.py compares them, field by
# field, with Kafka 4.4's own as they lie in the lab's jars
LAB_ONLY = {"TopicRecord", "TransactionLogKey", "TransactionLogValue", "ShareSnapshotKey", "ShareSnapshotValue",
            "ShareUpdateKey", "ShareUpdateValue", "RemoteLogSegmentMetadataRecord",
            "RemoteLogSegmentMetadataUpdateRecord", "RemotePartitionDeleteMetadataRecord",
            "RemoteLogSegmentMetadataSnapshotRecord"}

# every metadata record type and KRaft control value but FeatureLevelRecord (../shared has its spec): the lab's
# jars hold Kafka's specs of them, and tests/test_lab_specs.py holds ours to them
LAB_ONLY_DIRS = {"metadata", "control"}

# formats Kafka describes with no JSON spec of its own (hand-written Java layouts)
NO_UPSTREAM = {"StickyAssignorUserData", "CooperativeStickyAssignorUserData", "ControlRecordKey", "EndTxnMarker",
               "StreamsGroupPartitionMetadataKey", "StreamsGroupPartitionMetadataValue"}


def upstream_for(path) -> list[str]:
    """Upstream files to compare with: the same message in each snapshot that holds our layout. Current
    __consumer_offsets layouts match the 2026 files; the 2024-10 variants match the Oct-2024 ones."""
    name = load_spec(path).name
    if name in UPSTREAM:
        return UPSTREAM[name]
    if path.parent.name == "offsets":
        return [f"newer/group-coordinator/{path.name}"]
    if path.parent.name == "2024-10":
        return [f"group-coordinator/{path.name}"]
    return []


def key_convention(spec):
    """Kafka's 2024 key specs numbered the key body after the record type ("validVersions": "3"); the
    body has one layout either way, so compare keys with versions renamed to 0."""
    from kafka_meta.spec.versions import Versions

    if (spec.name.endswith("Key") and spec.valid_versions.low == spec.valid_versions.high != 0) or (
            spec.name == "OffsetCommitKey" and str(spec.valid_versions) == "0-1"):
        spec.valid_versions = Versions(0, 0)
        for f in spec.fields:
            f.versions = Versions(0, 0)
    return spec


@pytest.mark.parametrize("path", OURS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_our_spec_matches_upstream(path):
    need_shared()
    ours = load_spec(path)
    files = upstream_for(path)
    if path.parent.name == PROTOCOL_DIR:
        pytest.skip("checked by test_protocol_specs.py")
    if not files and (ours.name in LAB_ONLY or path.parent.name in LAB_ONLY_DIRS):
        pytest.skip(f"{ours.name}: compared with Kafka 4.4's spec by test_lab_specs.py")
    if not files:
        assert ours.name in NO_UPSTREAM, f"{ours.name} should be compared with an upstream spec"
        pytest.skip(f"{ours.name} has no upstream spec to compare with")
    for rel in files:
        theirs = key_convention(load_spec(SPEC_DIR / rel))
        assert structural_differences(ours, theirs) == [], rel


def test_every_record_type_of_both_snapshots_is_covered():
    need_shared()
    ours = {(load_spec(p).name, load_spec(p).api_key) for p in OURS}
    for snapshot in ("group-coordinator", "newer/group-coordinator"):
        for path in (SPEC_DIR / snapshot).glob("*.json"):
            name = load_spec(path).name
            assert any(n == name for n, _ in ours), f"{snapshot}/{path.name} has no spec of ours"


def test_our_specs_are_not_copies():
    need_shared()
    for path in OURS:
        for rel in upstream_for(path):
            upstream_text = (SPEC_DIR / rel).read_text()
            assert "Licensed to the Apache Software Foundation" not in path.read_text()
            assert path.read_text() != upstream_text


def test_the_comparison_notices_a_difference():
    need_shared()
    ours = load_spec(schema_root() / "consumer/ConsumerProtocolSubscription.json")
    theirs = load_spec(SPEC_DIR / "clients/ConsumerProtocolSubscription.json")
    theirs.fields[3].default = "0"
    theirs.fields[1].nullable_versions = theirs.fields[0].nullable_versions
    diffs = structural_differences(ours, theirs)
    assert any("GenerationId: default" in d for d in diffs)
    assert any("UserData: nullableVersions" in d for d in diffs)
