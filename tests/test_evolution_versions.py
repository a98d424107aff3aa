"""Rules on validVersions and flexibleVersions."""

from __future__ import annotations

from evolution_support import field, findings, one, rules, spec

from kafka_meta.evolution import Level, Severity

BASE = [field("Id"), field("Name", "string")]


def test_shrunk_versions_break_and_grown_ones_inform():
    found = findings(spec(BASE, "0-3"), spec(BASE, "1-5"))
    shrunk = one(found, "valid-versions-shrunk")
    assert shrunk.level is Level.BREAKING and shrunk.severity is Severity.WIRE and shrunk.versions == "0"
    assert "bytes of version 0 can no longer be read" in shrunk.message
    grown = one(found, "valid-versions-grown")
    assert grown.level is Level.INFO and "new version 4-5" in grown.message


def test_flexibility_moved_in_a_shared_version():
    found = findings(spec(BASE, "0-3", "3+"), spec(BASE, "0-3", "2+"))
    moved = one(found, "flexible-versions-moved")
    assert moved.breaking and moved.versions == "2" and "now flexible" in moved.message
    assert "layout-changed" in rules(found)  # the string switches to a compact length


def test_a_new_flexible_version_is_no_change():
    assert findings(spec(BASE, "0-3"), spec(BASE, "0-4", "4+")) == findings(spec(BASE, "0-3"), spec(BASE, "0-4"))
    assert rules(findings(spec(BASE, "0-3"), spec(BASE, "0-4", "4+"))) == ["valid-versions-grown"]


def test_identical_specs_have_no_findings():
    assert findings(spec(BASE), spec(BASE)) == []
