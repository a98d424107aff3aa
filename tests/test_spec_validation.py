"""A spec that breaks a rule of the dialect is refused with the file, the field and the rule named."""

from __future__ import annotations

import json

import pytest

from kafka_meta.errors import SpecError
from kafka_meta.spec import load_spec, load_spec_text


def spec(fields, **top):
    body = {"type": "data", "name": "Probe", "validVersions": "0-2", "flexibleVersions": "1+", "fields": fields}
    body.update(top)
    return json.dumps(body)


GOOD = {"name": "A", "type": "int32", "versions": "0+"}

CASES = [
    ("unknown-attribute", spec([{**GOOD, "colour": "red"}]), "Probe.A"),
    ("unknown-attribute", spec([GOOD], extra=1), ""),
    ("message-type", spec([GOOD], type="blob"), "Probe"),
    ("valid-versions", spec([GOOD], validVersions="none"), "Probe"),
    ("flexible-versions", spec([GOOD], flexibleVersions="1-2"), "Probe"),
    ("version-range", spec([{**GOOD, "versions": "3-1"}]), "Probe.A"),
    ("missing-attribute", spec([{"name": "A", "type": "int32"}]), "Probe.A"),
    ("field-type", spec([{**GOOD, "type": "int33"}]), "Probe.A"),
    ("field-type", spec([{**GOOD, "type": "[][]int32"}]), "Probe.A"),
    ("records-unsupported", spec([{**GOOD, "type": "records"}]), "Probe.A"),
    ("duplicate-field", spec([GOOD, GOOD]), "Probe.A"),
    ("nullable-type", spec([{**GOOD, "nullableVersions": "0+"}]), "Probe.A"),
    ("tag-without-versions", spec([{**GOOD, "tag": 0}]), "Probe.A"),
    ("tag-missing", spec([{**GOOD, "taggedVersions": "1+"}]), "Probe.A"),
    ("tagged-versions", spec([{**GOOD, "tag": 0, "taggedVersions": "1-2"}]), "Probe.A"),
    ("tagged-versions", spec([{**GOOD, "tag": 0, "taggedVersions": "0+"}]), "Probe.A"),
    ("tagged-versions", spec([{**GOOD, "versions": "2+", "tag": 0, "taggedVersions": "1+"}]), "Probe.A"),
    ("duplicate-tag", spec([{**GOOD, "tag": 0, "taggedVersions": "1+"},
                            {"name": "B", "type": "int8", "versions": "0+", "tag": 0, "taggedVersions": "1+"}]),
     "Probe.B"),
    ("tagged-map-key", spec([{"name": "S", "type": "string", "versions": "0+", "mapKey": True, "tag": 1,
                              "taggedVersions": "1+"}]), "Probe.S"),
    ("tagged-nullability", spec([{"name": "S", "type": "string", "versions": "0+", "nullableVersions": "2+",
                                  "tag": 1, "taggedVersions": "1+"}]), "Probe.S"),
    ("field-flexible-versions", spec([{**GOOD, "flexibleVersions": "none"}]), "Probe.A"),
    ("default", spec([{**GOOD, "default": "x"}]), "Probe.A"),
    ("default", spec([{"name": "I", "type": "int8", "versions": "0+", "default": "300"}]), "Probe.I"),
    ("default", spec([{"name": "S", "type": "string", "versions": "0+", "default": "null"}]), "Probe.S"),
    ("default", spec([{"name": "B", "type": "bytes", "versions": "0+", "default": "abc"}]), "Probe.B"),
    ("boolean-attribute", spec([{**GOOD, "ignorable": "yes"}]), "Probe.A"),
    ("undefined-struct", spec([{"name": "T", "type": "[]Topic", "versions": "0+"}]), "Probe.T"),
    ("duplicate-struct", spec([{"name": "T", "type": "[]Topic", "versions": "0+", "fields": [GOOD]},
                               {"name": "U", "type": "Topic", "versions": "0+", "fields": [GOOD]}]), "Probe.U"),
    ("fields-on-primitive", spec([{**GOOD, "fields": [GOOD]}]), "Probe.A"),
    ("json", "{ not json", ""),
]


@pytest.mark.parametrize("rule, text, path", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_violations_are_named(rule, text, path):
    with pytest.raises(SpecError) as info:
        load_spec_text(text, "probe.json")
    err = info.value
    assert err.rule == rule
    assert err.source == "probe.json"
    assert err.path == path
    assert "probe.json" in str(err) and rule in str(err)


def test_missing_file_is_a_spec_error(tmp_path):
    with pytest.raises(SpecError, match="cannot read"):
        load_spec(tmp_path / "absent.json")


def test_comments_are_allowed_even_inside_lines():
    text = """// header comment
    { "type": "data", "name": "C", /* block */ "validVersions": "0", "flexibleVersions": "none",
      "fields": [ { "name": "U", "type": "string", "versions": "0+", "about": "a // not a comment" } ] }"""
    parsed = load_spec_text(text)
    assert parsed.fields[0].about == "a // not a comment"


def test_numeric_and_boolean_defaults_mean_their_text():
    parsed = load_spec_text(spec([{"name": "A", "type": "int32", "versions": "0+", "default": -1},
                                  {"name": "B", "type": "bool", "versions": "0+", "default": True},
                                  {"name": "C", "type": "int16", "versions": "0+", "default": "0x7f"}]))
    assert [f.default_value() for f in parsed.fields] == [-1, True, 127]
