"""golden verify on deliberately broken copies of the corpus: every kind of damage is reported, by field."""

from __future__ import annotations

import json
import shutil

import pytest
from test_golden_corpus import CORPUS

from kafka_meta.golden import find_cases, subjects, verify_directory
from kafka_meta.golden.diff import bytes_diff, json_diff
from kafka_meta.golden.verify import verify_case


@pytest.fixture
def corpus(tmp_path):
    copy = tmp_path / "golden"
    shutil.copytree(CORPUS, copy)
    return copy


def pick(root, subject, version):
    return next(c for c in find_cases(root)[0] if c.subject == subject and c.version == version
                and c.name.startswith("java"))


def problems_of(root, case):
    """What golden verify reports for ``case`` as it now lies under ``root``: ``verify_directory``'s check of
    each case it finds, made of this one alone (the other cases of the copy are untouched)."""
    found = next(c for c in find_cases(root)[0] if c.id == case.id)
    return verify_case(found, subjects().get(found.subject)).problems


def test_an_edited_field_is_named_in_both_directions(corpus):
    case = pick(corpus, "ConsumerProtocolSubscription", 2)
    doc = json.loads(case.json_path.read_text())
    doc["data"]["generationId"] = 1234
    case.json_path.write_text(json.dumps(doc))
    problems = problems_of(corpus, case)
    assert any("decoded bytes differ" in p and "data.generationId: expected 1234, got" in p for p in problems)
    assert any(p.startswith("encoding the .json gives other message bytes: first difference at byte") for p in problems)
    assert any("field that differs: data.generationId" in p for p in problems)


def test_a_damaged_bin_reports_the_decode_error_with_its_offset(corpus):
    case = pick(corpus, "ConsumerProtocolSubscription", 1)
    case.body_path.write_bytes(case.body_path.read_bytes()[:-1])
    problems = problems_of(corpus, case)
    assert any(p.startswith("decoding the bytes fails:") and "byte" in p for p in problems)
    assert any("lengths" in p for p in problems)


def test_a_changed_byte_that_still_decodes_shows_the_field(corpus):
    case = next(c for c in find_cases(corpus)[0] if c.subject == "ConsumerProtocolAssignment" and c.version == 3
                and json.loads(c.json_path.read_text())["data"]["assignedPartitions"]
                and json.loads(c.json_path.read_text())["data"]["userData"] is None)
    data = bytearray(case.body_path.read_bytes())
    data[-5] ^= 0x01  # the last partition number's low byte (before the int32 user-data length)
    case.body_path.write_bytes(bytes(data))
    problems = problems_of(corpus, case)
    assert any(".partitions[" in p and "decoded bytes differ" in p for p in problems), problems


def test_version_and_type_mismatches_are_reported(corpus):
    case = pick(corpus, "ConsumerProtocolSubscription", 0)
    moved = corpus / "ConsumerProtocolSubscription" / "v1"
    for path in case.files():
        shutil.move(path, moved / path.name)
    moved_case = find_moved(corpus, case.name)
    assert problems_of(corpus, moved_case) == ["the .json says version 0, the directory says 1"]
    doc = json.loads(moved_case.json_path.read_text())
    doc.update(version=1, type="ConsumerProtocolAssignment")
    moved_case.json_path.write_text(json.dumps(doc))
    problems = problems_of(corpus, moved_case)
    wrong_type = "the .json says type 'ConsumerProtocolAssignment', the directory says ConsumerProtocolSubscription"
    assert wrong_type in problems
    assert "decoded bytes differ from the .json: version: expected 1, got 0" in problems


def find_moved(root, name):
    return next(c for c in find_cases(root)[0] if c.name == name)


def test_layout_problems_orphans_and_unknown_types(corpus):
    (corpus / "ConsumerProtocolSubscription" / "v0" / "orphan.bin").write_bytes(b"\x00\x00")
    (corpus / "ConsumerProtocolSubscription" / "version-zero").mkdir()
    (corpus / "NoSuchType" / "v0").mkdir(parents=True)
    (corpus / "NoSuchType" / "v0" / "x.json").write_text('{"type": "NoSuchType", "version": 0, "data": {}}')
    report = verify_directory(corpus)
    assert not report.ok
    assert any("orphan.bin: no orphan.json" in p for p in report.layout_problems)
    assert any("version-zero: a version directory must be named" in p for p in report.layout_problems)
    unknown = next(r for r in report.results if r.case.subject == "NoSuchType")
    assert "unknown type 'NoSuchType'" in unknown.problems[0]
    assert len(report.failed) == 1


def test_unreadable_json_is_a_problem_not_a_crash(corpus):
    case = pick(corpus, "ConsumerProtocolAssignment", 0)
    case.json_path.write_text("{not json")
    assert problems_of(corpus, case)[0].startswith(f"{case.name}.json is not readable JSON")


def test_json_diff_reports_every_difference():
    expected = {"a": 1, "b": [1, 2, 3], "c": {"d": "x"}, "gone": True}
    actual = {"a": 2, "b": [1, 2], "c": {"d": "y"}, "extra": None}
    assert json_diff(expected, actual) == [
        "a: expected 1, got 2",
        "b[2]: expected 3, missing (got 2 elements)",
        'c.d: expected "x", got "y"',
        "gone: expected True, missing",
        "extra: not expected, got None",
    ]
    assert json_diff({"n": 1}, {"n": 1.0}) == ["n: expected 1, got 1.0"]
    assert json_diff([{"x": 1}], [{"x": 1}]) == []


def test_bytes_diff_names_the_offset():
    assert bytes_diff(b"\x00\x01\x02", b"\x00\x01\x03").startswith("first difference at byte 2; lengths 3")
    assert "one is a prefix of the other, up to byte 2" in bytes_diff(b"\x00\x01", b"\x00\x01\x05")
