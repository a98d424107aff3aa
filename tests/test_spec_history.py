"""spec_as_of: the spec a reader whose newest version is R was generated from."""

from __future__ import annotations

import pytest

from kafka_meta.spec import load_spec_text
from kafka_meta.spec.history import range_as_of, spec_as_of
from kafka_meta.spec.versions import Versions

SPEC = """{
  "type": "data", "name": "Widget", "validVersions": "0-5", "flexibleVersions": "3+",
  "fields": [
    {"name": "Id", "type": "int32", "versions": "0+"},
    {"name": "Old", "type": "int32", "versions": "0-1"},
    {"name": "Mid", "type": "string", "versions": "1-3", "nullableVersions": "2-3"},
    {"name": "Parts", "type": "[]Part", "versions": "2+", "fields": [
      {"name": "Code", "type": "int16", "versions": "2+"},
      {"name": "Weight", "type": "int32", "versions": "4+"}]},
    {"name": "Note", "type": "string", "versions": "4+", "taggedVersions": "4+", "tag": 0},
    {"name": "Ref", "type": "Common", "versions": "0+"}
  ],
  "commonStructs": [{"name": "Common", "versions": "0+", "fields": [
    {"name": "A", "type": "int8", "versions": "0+"},
    {"name": "B", "type": "int8", "versions": "2-4"}]}]
}"""


@pytest.mark.parametrize(("text", "newest", "expected"), [
    ("0+", 3, "0+"), ("1-3", 3, "1+"), ("1-3", 2, "1+"), ("1-3", 5, "1-3"), ("4+", 3, "none"), ("none", 3, "none"),
    ("3", 3, "3+"), ("0-1", 1, "0+"),
])
def test_range_as_of(text, newest, expected):
    assert str(range_as_of(Versions.parse(text), newest)) == expected


def test_fields_ranges_and_flexibility_as_of_a_version():
    spec = load_spec_text(SPEC)
    v2 = spec_as_of(spec, 2)
    assert str(v2.valid_versions) == "0-2" and str(v2.flexible_versions) == "none"
    fields = {f.name: f for f in v2.fields}
    assert list(fields) == ["Id", "Old", "Mid", "Parts", "Ref"]  # Note starts at 4: not yet written
    assert str(fields["Old"].versions) == "0-1"  # closed before 2: stays closed
    assert str(fields["Mid"].versions) == "1+" and str(fields["Mid"].nullable_versions) == "2+"
    assert [f.name for f in fields["Parts"].struct.fields] == ["Code"]
    assert [(f.name, str(f.versions)) for f in fields["Ref"].struct.fields] == [("A", "0+"), ("B", "2+")]
    v4 = spec_as_of(spec, 4)
    note = next(f for f in v4.fields if f.name == "Note")
    assert str(note.tagged_versions) == "4+" and note.tag == 0 and str(v4.flexible_versions) == "3+"
    assert spec.fields[2].versions == Versions(1, 3), "the original spec is left alone"
    with pytest.raises(ValueError, match="not in validVersions"):
        spec_as_of(spec, 6)


def test_as_of_the_newest_version_reads_like_the_spec_itself():
    from kafka_meta.codec.builder import SpecBuilder

    spec = load_spec_text(SPEC)
    same = spec_as_of(spec, 5)
    for version in range(6):
        assert repr(SpecBuilder(same).build(version).members) == repr(SpecBuilder(spec).build(version).members)
