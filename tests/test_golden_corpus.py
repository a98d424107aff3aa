"""The project's own golden corpus (fixtures/golden): it verifies, covers every registered type and
version, holds every shared vector of a registered type, and is exactly what the build script writes."""

from __future__ import annotations

import pytest
from conftest import GOLDEN_DIR, ROOT, SHARED_REASON

from kafka_meta.codec.registry import Registry, load_bundled
from kafka_meta.golden import find_cases, subjects, verify_directory
from kafka_meta.golden.build import build
from kafka_meta.golden.sources import shared_vectors
from kafka_meta.golden.verify import read_bytes

CORPUS = ROOT / "fixtures" / "golden"
REBUILD = "rebuild the corpus with: python -m kafka_meta.golden.build"


def bundled() -> Registry:
    """The bundled types only (other tests register specs of their own in the global registry)."""
    registry = Registry()
    registry.add_loader(load_bundled)
    return registry


def test_every_case_of_the_corpus_verifies():
    report = verify_directory(CORPUS, bundled())
    assert report.layout_problems == []
    assert report.results, "the corpus is empty"
    assert [r.report() for r in report.failed] == []


def test_the_corpus_covers_every_registered_type_and_version():
    cases, _ = find_cases(CORPUS)
    present = {(c.subject, c.version) for c in cases}
    missing = [f"{name} v{v}" for name, subject in subjects(bundled()).items() for v in subject.versions()
               if (name, v) not in present]
    assert missing == [], REBUILD


@pytest.mark.skipif(not GOLDEN_DIR.is_dir(), reason=SHARED_REASON)
def test_every_shared_vector_of_a_registered_type_is_in_the_corpus():
    known = subjects(bundled())
    cases, _ = find_cases(CORPUS)
    pinned = {read_bytes(c) for c in cases}  # a record may be filed under its record type's current name
    vectors = [v for v in shared_vectors(GOLDEN_DIR) if v.subject in known]
    assert vectors, "no shared vector has a registered type"
    missing = [v.metadata["source"] for v in vectors if v.blob not in pinned]
    assert missing == [], REBUILD


@pytest.mark.skipif(not GOLDEN_DIR.is_dir(), reason=SHARED_REASON)
def test_rebuilding_writes_exactly_the_corpus(tmp_path):
    report = build(tmp_path, GOLDEN_DIR, bundled())
    assert report.skipped == []
    ours = {p.relative_to(CORPUS): p.read_bytes() for p in CORPUS.rglob("*") if p.is_file()}
    rebuilt = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert sorted(map(str, set(ours) ^ set(rebuilt))) == [], REBUILD
    assert [str(k) for k in ours if ours[k] != rebuilt[k]] == [], REBUILD


def test_a_rebuild_keeps_hand_added_cases_and_drops_stale_generated_ones(tmp_path):
    build(tmp_path, None, bundled())
    hand = tmp_path / "ConsumerProtocolAssignment" / "v0"
    (hand / "mine.bin").write_bytes(bytes.fromhex("00000000000000000000"))
    (hand / "mine.json").write_text('{"type": "ConsumerProtocolAssignment", "version": 0, "data": '
                                    '{"assignedPartitions": [], "userData": ""}}')
    stale = hand / "generated-old.json"
    stale.write_text('{"type": "ConsumerProtocolAssignment", "version": 0, "generatedBy": "kafka_meta.golden.build"}')
    (hand / "generated-old.bin").write_bytes(b"\x00")
    report = build(tmp_path, None, bundled())
    assert (hand / "mine.bin").exists() and not stale.exists() and not (hand / "generated-old.bin").exists()
    assert stale in report.removed
    assert verify_directory(tmp_path, bundled()).ok
