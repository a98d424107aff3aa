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


def upstream_for(name: str) -> list[str]:
    return UPSTREAM.get(name, [])


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.stem)
def test_our_spec_matches_upstream(path):
    need_shared()
    ours = load_spec(path)
    files = upstream_for(ours.name)
    if not files:
        pytest.skip(f"{ours.name} has no upstream spec to compare with")
    for rel in files:
        theirs = load_spec(SPEC_DIR / rel)
        assert structural_differences(ours, theirs) == [], rel


def test_our_specs_are_not_copies():
    need_shared()
    for path in OURS:
        for rel in upstream_for(load_spec(path).name):
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
