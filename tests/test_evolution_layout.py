"""layout-changed: a version whose bytes changed without a version bump, seen by position."""

from __future__ import annotations

from evolution_support import field, findings, one, rules, spec

STRUCT = {"name": "Parts", "type": "[]Part", "versions": "0+", "fields": [field("Code", "int16")]}


def test_an_inline_field_inserted_into_an_existing_version():
    old = spec([field("Epoch"), field("Name", "string")], "0-1")
    new = spec([field("Epoch"), field("Hash", "int64"), field("Name", "string")], "0-1")
    found = findings(old, new)
    layout = one(found, "layout-changed")
    assert layout.breaking and layout.versions == "0-1"
    assert layout.message.endswith("position 1: Name (string) -> Hash (int64); position 2: nothing -> Name (string)")
    assert rules(found) == ["field-added", "layout-changed"]


def test_tagged_fields_may_come_and_go_even_in_nested_structs():
    tagged = {**STRUCT, "fields": [field("Code", "int16"), field("Extra", "int64", "0+", taggedVersions="0+", tag=0)]}
    old = spec([field("Id"), STRUCT], "0", "0+")
    new = spec([field("Id"), tagged, field("Note", "string", "0+", taggedVersions="0+", tag=3)], "0", "0+")
    found = findings(old, new)
    assert rules(found) == ["field-added"] and all(not f.breaking for f in found)


def test_a_nested_struct_that_grows_inline_changes_the_layout():
    grown = {**STRUCT, "fields": [field("Code", "int16"), field("Weight", "int32")]}
    found = findings(spec([field("Id"), STRUCT], "0"), spec([field("Id"), grown], "0"))
    assert "nested struct layouts differ" not in one(found, "layout-changed").message
    assert one(found, "layout-changed").message.endswith("position 1: Parts ([]Part) -> []Part, encoded differently")
    assert one(found, "field-added").path == "Widget.Parts.Weight"


def test_versions_with_the_same_change_are_grouped():
    old = spec([field("A"), field("B", versions="2+")], "0-3")
    new = spec([field("A", "int64"), field("B", versions="2+")], "0-3")
    layout = one(findings(old, new), "layout-changed")
    assert layout.versions == "0-3" and "position 0: A (int32) -> int64" in layout.message
