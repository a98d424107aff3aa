"""Nullability and tagged-field rules."""

from __future__ import annotations

from evolution_support import by_rule, field, findings, one, rules, spec

from kafka_meta.evolution import Level, Severity


def test_nullability_narrowed_breaks_and_widened_is_risky():
    found = findings(spec([field("A", "string", nullableVersions="0+"), field("B", "string")], "0-2"),
                     spec([field("A", "string", nullableVersions="2+"), field("B", "string", nullableVersions="1+")],
                          "0-2"))
    narrowed = one(found, "nullability-narrowed")
    assert narrowed.breaking and narrowed.versions == "0-1" and Severity.PYTHON_API in narrowed.affects
    widened = one(found, "nullability-widened")
    assert widened.level is Level.RISKY and widened.versions == "1-2"


def tag(name, number, ftype="int32", **extra):
    return field(name, ftype, taggedVersions="0+", tag=number, **extra)


def test_tag_reused_by_another_field():
    found = findings(spec([field("A"), tag("Old", 0)], "0-1", "0+"),
                     spec([field("A"), tag("Fresh", 0, "string")], "0-1", "0+"))
    reused = one(found, "tag-reused")
    assert reused.breaking and "tag 0 belonged to Old (int32) and now to Fresh (string)" in reused.message


def test_tag_retyped_and_tag_changed():
    found = findings(spec([tag("A", 0), tag("B", 1)], "0", "0+"), spec([tag("A", 0, "int64"), tag("B", 5)], "0", "0+"))
    assert one(found, "tag-retyped").path == "Widget.A" and "int32 -> int64" in one(found, "tag-retyped").message
    assert one(found, "tag-changed").message.startswith("B moved from tag 1 to tag 5")
    assert by_rule(found, "field-type-changed") == []  # the tag rule says it


def test_a_tag_renamed_field_is_a_rename_not_a_reuse():
    found = findings(spec([tag("Epoch", 0)], "0", "0+"), spec([tag("GroupEpoch", 0)], "0", "0+"))
    assert rules(found) == ["field-renamed"]


def test_tagged_made_untagged_and_back():
    found = findings(spec([field("A"), field("T", "int64", taggedVersions="1+", tag=0)], "0-2", "0+"),
                     spec([field("A"), field("T", "int64")], "0-2", "0+"))
    moved = one(found, "tagged-to-inline")
    assert moved.breaking and moved.versions == "1-2"
    back = findings(spec([field("A"), field("T", "int64")], "0-2", "0+"),
                    spec([field("A"), field("T", "int64", taggedVersions="2+", tag=0)], "0-2", "0+"))
    assert one(back, "inline-to-tagged").versions == "2"
    assert "layout-changed" in rules(found) and "layout-changed" in rules(back)
