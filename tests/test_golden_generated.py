"""Generated cases: every version of every Kafka spec (flexible versions, tagged fields, nullable
structs, which our bundled types may lack) gets realistic cases that verify both ways."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED_REASON, SPEC_DIR
from test_golden_corpus import bundled

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import Unframed
from kafka_meta.codec.registry import Registry
from kafka_meta.golden import find_cases, verify_directory
from kafka_meta.golden.build import build
from kafka_meta.spec.loader import load_specs


@pytest.mark.skipif(not SPEC_DIR.is_dir(), reason=SHARED_REASON)
@pytest.mark.parametrize("snapshot", ["", "newer"])
def test_every_kafka_spec_version_gets_verified_cases(tmp_path, snapshot):
    registry = Registry()
    for directory in ("clients", "metadata", "streams", "group-coordinator"):
        if (SPEC_DIR / snapshot / directory).is_dir():
            for spec in load_specs(SPEC_DIR / snapshot / directory):
                # one family per spec: keys and values stay single messages (unframed keys of several
                # versions cannot be read from their bytes alone)
                registry.register(SpecFormat(spec, Unframed(), family=spec.name))
    report = build(tmp_path, None, registry)
    assert report.skipped == []
    cases, _ = find_cases(tmp_path)
    fmt = registry.get("JoinGroupRequest")
    for version in fmt.versions:
        names = {c.name for c in cases if c.subject == "JoinGroupRequest" and c.version == version}
        flexible = version in fmt.spec.flexible_versions
        assert names == {"generated-typical", "generated-defaults"} | ({"generated-unknown-tagged-field"}
                                                                        if flexible else set())
    assert verify_directory(tmp_path, registry).ok


def test_typical_values_look_like_a_cluster(tmp_path):
    build(tmp_path, None, bundled())
    doc = json.loads((tmp_path / "ConsumerProtocolSubscription" / "v3" / "generated-typical.json").read_text())
    data = doc["data"]
    assert data["topics"] == ["orders", "orders-1"]
    assert data["ownedPartitions"][0] == {"topic": "orders", "partitions": [0, 1, 2]}
    assert data["generationId"] == 7 and data["rackId"] == "rack-a"
    assert doc["source"].startswith("kafka_meta's encoder")
    defaults = json.loads((tmp_path / "ConsumerProtocolSubscription" / "v3" / "generated-defaults.json").read_text())
    assert defaults["data"] == {"topics": [], "userData": None, "ownedPartitions": [], "generationId": -1,
                                "rackId": None}
