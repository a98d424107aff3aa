"""Key + value record cases (``__consumer_offsets``): Java's bytes of every record type become cases
of a registry of Kafka's own specs, tombstones included, and damage to a key is reported."""

from __future__ import annotations

import json

import pytest
from conftest import GOLDEN_DIR, SHARED_REASON, SPEC_DIR
from golden_support import offsets_registry

from kafka_meta.golden import (
    CaseBytes,
    GoldenError,
    RecordSubject,
    add_from_bytes,
    add_from_json,
    find_cases,
    subjects,
    verify_directory,
)
from kafka_meta.golden.build import build

pytestmark = pytest.mark.skipif(not SPEC_DIR.is_dir(), reason=SHARED_REASON)


@pytest.fixture(scope="module")
def registry():
    return offsets_registry()


def test_key_value_types_of_a_family_pair_into_records(registry):
    found = subjects(registry)
    assert isinstance(found["OffsetCommit"], RecordSubject)
    assert "OffsetCommitKey" not in found and "OffsetCommitValue" not in found
    assert found["OffsetCommit"].versions() == [0, 1, 2, 3, 4]


@pytest.mark.skipif(not GOLDEN_DIR.is_dir(), reason=SHARED_REASON)
def test_java_offsets_records_become_verified_cases(tmp_path, registry):
    report = build(tmp_path, GOLDEN_DIR, registry)
    # the 2026 share-group values 11 and 15 changed layout without a version bump: a 2024 reader cannot
    # re-encode them, so they are refused rather than pinned wrongly
    assert all("java-2026" in s and "ShareGroup" in s for s in report.skipped), report.skipped
    cases, problems = find_cases(tmp_path)
    assert problems == []
    assert {c.subject for c in cases} >= {"OffsetCommit", "GroupMetadata", "ShareGroupPartitionMetadata"}
    tombstones = [c for c in cases if c.version is None]
    assert tombstones and all(c.key_path.exists() and not c.body_path.exists() for c in tombstones)
    assert verify_directory(tmp_path, registry).ok
    doc = json.loads(next(c for c in cases if c.subject == "OffsetCommit" and c.version == 3).json_path.read_text())
    assert set(doc) >= {"type", "keyVersion", "key", "version", "value"}
    assert set(doc["key"]) == {"group", "topic", "partition"}


def test_records_from_json_and_a_damaged_key(tmp_path, registry):
    subject = subjects(registry)["OffsetCommit"]
    case = add_from_json(tmp_path, subject, "mine", {
        "keyVersion": 1, "key": {"group": "g", "topic": "t", "partition": 3},
        "value": {"offset": 42, "leaderEpoch": 5, "metadata": "", "commitTimestamp": 1700000000000}}, version=3)
    assert case.key_path.read_bytes() == bytes.fromhex("0001" "000167" "000174" "00000003")
    tomb = add_from_json(tmp_path, subject, "gone", {"key": {"group": "g", "topic": "t", "partition": 3}})
    assert tomb.version is None and not tomb.body_path.exists()
    assert subject.read(CaseBytes(None, tomb.key_path.read_bytes()), None)["value"] is None
    case.key_path.write_bytes(bytes.fromhex("0001000167"))
    report = verify_directory(tmp_path, registry)
    failed = {r.case.name: r.problems for r in report.failed}
    assert list(failed) == ["mine"]
    assert any("decoding the bytes fails: OffsetCommitKey v1, field topic, byte 5" in p for p in failed["mine"])
    assert any("other key bytes" in p for p in failed["mine"])
    case.key_path.unlink()
    failed = {r.case.name: r.problems for r in verify_directory(tmp_path, registry).failed}
    assert failed["mine"] == ["mine.key.bin is missing (a OffsetCommit case is a key and a value)"]


def test_bytes_kafka_would_not_write_need_decode_only(tmp_path, registry):
    subject = subjects(registry)["OffsetCommit"]
    key = bytes.fromhex("0001" "000167" "000174" "00000003")
    # OffsetCommitValue v4 whose empty tagged section is written as a two-byte varint: readable, not canonical
    value = bytes.fromhex("0004" "000000000000002a" "00000005" "01" "0000018bcfe56800" "8000")
    with pytest.raises(GoldenError, match="decode-only"):
        add_from_bytes(tmp_path, subject, "odd", CaseBytes(value, key))
    case = add_from_bytes(tmp_path, subject, "odd", CaseBytes(value, key), decodeOnly=True)
    assert json.loads(case.json_path.read_text())["decodeOnly"] is True
    assert verify_directory(tmp_path, registry).ok
