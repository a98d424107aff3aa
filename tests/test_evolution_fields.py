"""Field rules: removed, added, renamed, moved, retyped, re-encoded; by name and by position."""

from __future__ import annotations

from evolution_support import by_rule, field, findings, one, rules, spec

from kafka_meta.evolution import Level, Severity


def test_removed_from_a_still_valid_version():
    found = findings(spec([field("A"), field("B", "string")], "0-2"),
                     spec([field("A"), field("B", "string", "0-1")], "0-2"))
    removed = one(found, "field-removed")
    assert removed.breaking and removed.versions == "2" and removed.path == "Widget.B"
    assert set(removed.affects) == {Severity.WIRE, Severity.JSON_NAMES, Severity.PYTHON_API}


def test_removed_with_its_versions_is_only_an_api_change():
    found = findings(spec([field("A"), field("Old", versions="0")], "0-2"), spec([field("A")], "1-2"))
    removed = one(found, "field-removed")
    assert removed.level is Level.RISKY and removed.severity is Severity.JSON_NAMES
    assert "valid-versions-shrunk" in rules(found)


def test_a_removed_tagged_field_is_risky():
    tagged = field("T", "int64", taggedVersions="0+", tag=1)
    removed = one(findings(spec([field("A"), tagged], "0-1", "0+"), spec([field("A")], "0-1", "0+")),
                  "field-removed")
    assert removed.level is Level.RISKY and "unknown tag" in removed.message


def test_added_fields_inline_tagged_and_in_new_versions():
    old = spec([field("A")], "0-1", "1+")
    new = spec([field("A"), field("B", versions="1+"), field("C", versions="2+"),
                field("T", "string", taggedVersions="1+", tag=0, versions="1+")], "0-2", "1+")
    added = {f.path: f for f in by_rule(findings(old, new), "field-added")}
    assert added["Widget.B"].breaking and added["Widget.B"].versions == "1"
    assert added["Widget.C"].level is Level.INFO and "is new, in versions 2+" in added["Widget.C"].message
    assert added["Widget.T"].level is Level.INFO and "tagged field T (tag 0)" in added["Widget.T"].message


def test_renamed_by_position_is_a_names_break_not_a_wire_break():
    found = findings(spec([field("GroupId", "string"), field("Epoch")]),
                     spec([field("GroupName", "string"), field("Epoch")]))
    renamed = one(found, "field-renamed")
    assert renamed.breaking and set(renamed.affects) == {Severity.JSON_NAMES, Severity.PYTHON_API}
    assert "JSON name groupId -> groupName, attribute group_id -> group_name" in renamed.message
    assert rules(found) == ["field-renamed"]  # no removal, no addition, no layout change


def test_a_case_only_rename_changes_nothing_visible():
    assert findings(spec([field("groupId", "string")]), spec([field("GroupId", "string")])) == []


def test_moved_fields_swap_their_order():
    found = findings(spec([field("A"), field("B", "string"), field("C")]),
                     spec([field("B", "string"), field("A"), field("C")]))
    moved = by_rule(found, "field-moved")
    assert sorted(f.path for f in moved) == ["Widget.A", "Widget.B"] and all(f.breaking for f in moved)
    assert "layout-changed" in rules(found)


def test_type_changes_in_shared_versions_and_in_the_model_only():
    found = findings(spec([field("A"), field("B", versions="0")], "0-2"),
                     spec([field("A", "int64"), field("B", "string", versions="0")], "1-2"))
    changed = {f.path: f for f in by_rule(found, "field-type-changed")}
    assert changed["Widget.A"].breaking and "int32 -> int64" in changed["Widget.A"].message
    assert changed["Widget.B"].level is Level.RISKY and changed["Widget.B"].severity is Severity.PYTHON_API


def test_struct_renamed_and_nested_changes_reported_at_their_path():
    old = spec([{"name": "Items", "type": "[]Item", "versions": "0+", "fields": [field("X"), field("Y", "string")]}])
    new = spec([{"name": "Items", "type": "[]Entry", "versions": "0+", "fields": [field("X", "int16")]}])
    found = findings(old, new)
    assert one(found, "struct-renamed").message.startswith("struct Item is renamed Entry")
    assert one(found, "field-type-changed").path == "Widget.Items.X"
    assert one(found, "field-removed").path == "Widget.Items.Y"


def test_field_level_flexible_versions_override():
    old = spec([field("ClientId", "string", flexibleVersions="none")], "0-2", "1+")
    new = spec([field("ClientId", "string")], "0-2", "1+")
    changed = one(findings(old, new), "field-encoding-changed")
    assert changed.breaking and changed.versions == "1-2"


def test_every_problem_is_reported_not_just_the_first():
    old = spec([field("A"), field("B", "string", nullableVersions="0+"), field("C")], "0-3", "2+")
    new = spec([field("B", "string"), field("A", "int64"), field("D")], "1-3", "3+")
    assert rules(findings(old, new)) == [  # C -> D: same place, same type, so a rename
        "field-moved", "field-renamed", "field-type-changed", "flexible-versions-moved", "layout-changed",
        "nullability-narrowed", "valid-versions-shrunk"]
