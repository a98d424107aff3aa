"""Defaults, ignorable, mapKey and entityType."""

from __future__ import annotations

from evolution_support import field, findings, one, spec

from kafka_meta.evolution import Level, Severity


def test_default_of_a_tagged_field_breaks():
    changed = one(findings(spec([field("T", "int32", taggedVersions="0+", tag=0, default=-1)], "0", "0+"),
                           spec([field("T", "int32", taggedVersions="0+", tag=0, default=0)], "0", "0+")),
                  "default-changed")
    assert changed.breaking and "default '-1' -> '0'" in changed.message and "absent tag" in changed.message


def test_default_of_a_field_some_version_lacks_is_risky():
    changed = one(findings(spec([field("G", versions="1+", default=-1)], "0-2"),
                           spec([field("G", versions="1+", default=0)], "0-2")), "default-changed")
    assert changed.level is Level.RISKY and changed.severity is Severity.WIRE and changed.versions == "0"


def test_default_of_an_always_present_field_is_a_model_change():
    changed = one(findings(spec([field("G", default="-1")]), spec([field("G", default=-2)])), "default-changed")
    assert changed.level is Level.RISKY and changed.severity is Severity.PYTHON_API


def test_same_default_written_differently_is_no_change():
    assert findings(spec([field("G", default="-1")]), spec([field("G", default=-1)])) == []
    assert findings(spec([field("S", "string")]), spec([field("S", "string", default="")])) == []


def test_ignorable_map_key_and_entity_type():
    old = spec([{"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
        field("Name", "string", mapKey=True, entityType="topicName"), field("X", versions="1+")]}])
    new = spec([{"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
        field("Name", "string"), field("X", versions="1+", ignorable=True)]}])
    found = findings(old, new)
    assert one(found, "map-key-changed").path == "Widget.Topics.Name"
    assert one(found, "entity-type-changed").message == "entityType topicName -> None: no wire effect"
    ignorable = one(found, "ignorable-changed")
    assert ignorable.level is Level.RISKY and "drops a non-default value silently" in ignorable.message
