"""The project's own golden corpus (fixtures/golden): it verifies, covers every registered type and
version, holds every shared vector of a registered type and every vector taken from the lab's recordings of
Kafka (fixtures/lab/vectors.jsonl), and is exactly what the build script writes."""

from __future__ import annotations

import pytest
from conftest import GOLDEN_DIR, ROOT, SHARED_REASON

from kafka_meta.codec.registry import Registry
from kafka_meta.formats.catalogue import load_bundled
from kafka_meta.golden import find_cases, subjects, verify_directory
from kafka_meta.golden.build import build
from kafka_meta.golden.sources import shared_vectors, vector_file
from kafka_meta.golden.verify import load_document, read_bytes

CORPUS = ROOT / "fixtures" / "golden"
LAB_VECTORS = ROOT / "fixtures" / "lab" / "vectors.jsonl"
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


def test_every_lab_vector_is_in_the_corpus():
    """Bytes Kafka 4.4.0's broker, its Java clients and Kafka Streams wrote in the lab's recordings: every one is
    a case, checked both ways (none needs to be decode-only)."""
    known = subjects(bundled())
    cases, _ = find_cases(CORPUS)
    pinned = {read_bytes(c) for c in cases}
    vectors = list(vector_file(LAB_VECTORS))
    assert vectors and all(v.subject in known for v in vectors)
    assert [v.metadata["source"] for v in vectors if v.blob not in pinned] == [], REBUILD
    lab = [load_document(c) for c in cases if c.name.startswith("lab-")]
    assert len(lab) == len(vectors) and not [d for d in lab if d.get("decodeOnly")]


@pytest.mark.skipif(not GOLDEN_DIR.is_dir(), reason=SHARED_REASON)
def test_rebuilding_writes_exactly_the_corpus(tmp_path):
    report = build(tmp_path, GOLDEN_DIR, bundled(), vectors=[LAB_VECTORS])
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


def test_every_layout_of_every_type_has_cases():
    """Types Kafka wrote in several layouts (record variants, assignor user data framings) have cases of each
    layout at each of its versions; bytes that an earlier layout reads exactly count as that layout's."""
    cases, _ = find_cases(CORPUS)
    seen = {(c.subject, load_document(c).get("variant"), c.version) for c in cases}
    names = {(c.subject, c.version, c.name) for c in cases}
    missing = []
    for name, subject in subjects(bundled()).items():
        for label, layout in subject.layouts():
            for version in layout.versions:
                if (name, label, version) not in seen and (name, version, f"generated-{label}-typical") not in names:
                    missing.append(f"{name} {label} v{version}")
    assert missing == [], REBUILD


def test_layout_variants_and_unreadable_bytes_are_pinned_as_such():
    cases, _ = find_cases(CORPUS)
    docs = {c.id: load_document(c) for c in cases}
    share = {d["variant"] for i, d in docs.items() if i.startswith("ShareGroupMetadata/v0/java")}
    assert share == {"2024-10", "2026-08"}  # same version 0, two layouts, both from Java
    unreadable = [c for c in cases if c.subject == "StickyAssignorUserData" and c.version is None]
    assert [c.directory.name for c in unreadable] == ["unversioned"]
    doc = docs[unreadable[0].id]
    assert doc["variant"] == "unreadable" and doc["data"] == {"previousAssignment": [], "generation": -1}
    assert "decodeOnly" not in doc  # written back byte for byte, as the bytes that came in
    framed = [c for c in cases if c.subject == "MetadataRecord"]
    assert framed and {c.version for c in framed} == {1}  # the frame version, not the record's
