"""Directories: messages matched by name or apiKey, coordinator records by record type, across the
apiKey convention change."""

from __future__ import annotations

import json

from evolution_support import field

from kafka_meta.evolution import Level, compare_paths, compare_specs
from kafka_meta.spec import load_spec_text


def write(directory, name, doc):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.json").write_text(json.dumps({"name": name, **doc}))


def old_record(directory, base, number, value_fields, key_fields=None, value_versions="0"):
    keys = key_fields or [field("GroupId", "string", str(number))]
    write(directory, f"{base}Key", {"type": "data", "validVersions": str(number), "flexibleVersions": "none",
                                    "fields": keys})
    write(directory, f"{base}Value", {"type": "data", "validVersions": value_versions, "flexibleVersions": "0+",
                                      "fields": value_fields})


def new_record(directory, base, number, value_fields, key_fields=None, value_versions="0"):
    keys = key_fields or [field("GroupId", "string", "0")]
    write(directory, f"{base}Key", {"type": "coordinator-key", "apiKey": number, "validVersions": "0",
                                    "flexibleVersions": "none", "fields": keys})
    write(directory, f"{base}Value", {"type": "coordinator-value", "apiKey": number, "validVersions": value_versions,
                                      "flexibleVersions": "0+", "fields": value_fields})


def by(report, rule):
    return [f for f in report.sorted() if f.rule == rule]


def test_the_apikey_convention_change_is_not_a_wire_break(tmp_path):
    old_record(tmp_path / "old", "GroupEpoch", 3, [field("Epoch")])
    new_record(tmp_path / "new", "GroupEpoch", 3, [field("Epoch")])
    report = compare_paths(tmp_path / "old", tmp_path / "new")
    assert [(f.rule, f.level) for f in report.sorted()] == [("coordinator-convention", Level.INFO)]
    assert "bytes are unchanged" in report.sorted()[0].message
    assert report.breaking() == []


def test_a_changed_key_body_under_the_new_convention_is_still_caught(tmp_path):
    old_record(tmp_path / "old", "Member", 5, [field("Epoch")],
               [field("GroupId", "string", "5"), field("MemberId", "string", "5")])
    new_record(tmp_path / "new", "Member", 5, [field("Epoch")], [field("GroupId", "string", "0")])
    report = compare_paths(tmp_path / "old", tmp_path / "new")
    removed = by(report, "field-removed")
    assert [(f.subject, f.path, f.versions) for f in removed] == [("record 5 key", "MemberKey.MemberId", "5 (now 0)")]


def test_record_types_removed_retired_reused_and_added(tmp_path):
    for number, base in ((0, "Alpha"), (1, "Beta"), (2, "Gamma")):
        old_record(tmp_path / "old", base, number, [field("Epoch")])
    new_record(tmp_path / "new", "Alpha", 0, [field("Epoch")])
    new_record(tmp_path / "new", "Delta", 2, [field("Epoch")], [field("GroupId", "string", "0"), field("X", "int64",
                                                                                                         "0")])
    new_record(tmp_path / "new", "Omega", 4, [field("Epoch")])
    report = compare_paths(tmp_path / "old", tmp_path / "new")
    assert [(f.rule, f.subject, f.level.value) for f in report.sorted() if f.rule.startswith("record-type")] == [
        ("record-type-removed", "record 1", "breaking"),
        ("record-type-reused", "record 2", "breaking"),
        ("record-type-removed", "record 3", "risky"),
        ("record-type-added", "record 4", "info"),
    ]
    assert "was Gamma and is now Delta" in by(report, "record-type-reused")[0].message


def test_single_files_of_a_key_across_the_convention(tmp_path):
    old = load_spec_text(json.dumps({"type": "data", "name": "GroupMetadataKey", "validVersions": "2",
                                     "flexibleVersions": "none", "fields": [field("group", "string", "2")]}))
    new = load_spec_text(json.dumps({"type": "coordinator-key", "apiKey": 2, "name": "GroupMetadataKey",
                                     "validVersions": "0", "flexibleVersions": "none",
                                     "fields": [field("group", "string", "0")]}))
    found = compare_specs(old, new)
    assert [f.rule for f in found] == ["coordinator-convention"]


def test_messages_matched_by_name_and_api_key(tmp_path):
    request = {"type": "request", "validVersions": "0-1", "flexibleVersions": "none", "fields": [field("A")]}
    write(tmp_path / "old", "PingRequest", {**request, "apiKey": 90})
    write(tmp_path / "old", "GoneRequest", {**request, "apiKey": 91})
    write(tmp_path / "old", "StayRequest", {**request, "apiKey": 92})
    write(tmp_path / "new", "PingPongRequest", {**request, "apiKey": 90})
    write(tmp_path / "new", "StayRequest", {**request, "apiKey": 91})
    write(tmp_path / "new", "FreshRequest", {**request, "apiKey": 93})
    report = compare_paths(tmp_path / "old", tmp_path / "new")
    assert sorted((f.rule, f.path) for f in report.sorted()) == [
        ("api-key-reused", "GoneRequest"),
        ("message-added", "FreshRequest"),
        ("message-removed", "GoneRequest"),
        ("message-renamed", "PingPongRequest"),
    ]


def test_partial_snapshots_assume_what_they_lack_is_unchanged(tmp_path):
    request = {"type": "request", "validVersions": "0", "flexibleVersions": "none", "fields": [field("A")]}
    write(tmp_path / "old", "PingRequest", {**request, "apiKey": 90})
    old_record(tmp_path / "old", "Alpha", 0, [field("Epoch")])
    (tmp_path / "new").mkdir()
    write(tmp_path / "new", "Other", {"type": "data", "validVersions": "0", "flexibleVersions": "none",
                                      "fields": []})
    full = compare_paths(tmp_path / "old", tmp_path / "new")
    assert {f.rule for f in full.breaking()} == {"message-removed", "record-type-removed"}
    partial = compare_paths(tmp_path / "old", tmp_path / "new", partial=True)
    assert partial.breaking() == [] and {f.rule for f in partial.sorted()} == {"not-compared", "message-added"}
