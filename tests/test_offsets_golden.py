"""Every __consumer_offsets vector written by Kafka's group coordinator (2024 and 2026 trunk)."""

from __future__ import annotations

import pytest
from conftest import SHARED_REASON, case_id, golden_cases
from support import mismatches, plain

from kafka_meta.offsets import CoordinatorRecord, decode_record, encode_record

CASES = [(snapshot, c) for snapshot in ("java", "java-2026") for c in golden_cases(f"{snapshot}/offsets-topic.jsonl")]


@pytest.mark.skipif(not CASES, reason=SHARED_REASON)
@pytest.mark.parametrize("snapshot, case", CASES, ids=lambda x: x if isinstance(x, str) else case_id(x))
def test_coordinator_vector(snapshot, case):
    key = bytes.fromhex(case["keyHex"])
    value = None if case["hex"] is None else bytes.fromhex(case["hex"])
    record = decode_record(key, value)
    assert isinstance(record, CoordinatorRecord)
    assert record.record_type == case["keyVersion"]
    assert record.value_version == case["version"]
    assert record.tombstone == (value is None)
    assert not record.read_forward
    assert encode_record(record) == (key, value)
    got = plain(record)
    assert mismatches(case["fields"]["key"], got["key"]) == []
    if value is None:
        assert got["value"] is None
    else:
        assert mismatches(case["fields"]["value"], got["value"]) == []


@pytest.mark.skipif(not CASES, reason=SHARED_REASON)
def test_layout_variants_follow_the_bytes():
    """Share-group records changed without a version bump: 2024 bytes read as 2024-10, 2026 as current."""
    seen = {}
    for snapshot, case in CASES:
        if case["hex"] is None:
            continue
        record = decode_record(bytes.fromhex(case["keyHex"]), bytes.fromhex(case["hex"]))
        seen.setdefault((snapshot, case["type"]), set()).add(record.value_variant)
    assert seen[("java", "ShareGroupMetadata")] == {"2024-10"}
    assert seen[("java-2026", "ShareGroupMetadata")] == {"2026-08"}
    assert seen[("java", "ShareGroupStatePartitionMetadata")] == {"2024-10"}
    assert seen[("java-2026", "ShareGroupStatePartitionMetadata")] == {"2026-08"}
    assert seen[("java", "ShareGroupPartitionMetadata")] == {"2024-10"}  # retired type 9
    assert seen[("java", "OffsetCommit")] >= {"2024-10", "2026-08"}  # type-0 keys with v1-v4 values
    assert seen[("java-2026", "OffsetCommit")] == {"2026-08"}
