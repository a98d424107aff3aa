"""KRaft FeatureLevelRecord, raw and framed as in the cluster metadata log, and the metadata.version table."""

from __future__ import annotations

import pytest
from conftest import SHARED_REASON, case_id, golden_cases
from support import mismatches, plain

import kafka_meta as km
from kafka_meta.kraft import BY_LEVEL, METADATA_VERSIONS, level_for, release_for
from kafka_meta.kraft.metadata_version import LATEST_PRODUCTION_LEVEL, MINIMUM_BOOTSTRAP_LEVEL

FEATURES = golden_cases("java/feature-level.jsonl")
RAW = [c for c in FEATURES if c["type"] == "FeatureLevelRecord"]
FRAMED = [c for c in FEATURES if c["type"].startswith("MetadataRecordFrame/")]
MV21 = "116d657461646174612e76657273696f6e001500"  # metadata.version = 21, the example of the notes


@pytest.mark.skipif(not RAW, reason=SHARED_REASON)
@pytest.mark.parametrize("case", RAW, ids=case_id)
def test_raw_record(case):
    data = bytes.fromhex(case["hex"])
    record = km.decode("FeatureLevelRecord", data)
    assert record.version == 0 and mismatches(case["fields"], plain(record)) == []
    expected_unknown = [(u["tag"], bytes.fromhex(u["hex"])) for u in case["fields"].get("_unknownTaggedFields", [])]
    assert [(u.tag, u.data) for u in record.unknown_tagged_fields] == expected_unknown
    assert km.encode(record) == data


@pytest.mark.skipif(not FRAMED, reason=SHARED_REASON)
@pytest.mark.parametrize("case", FRAMED, ids=case_id)
def test_framed_record(case):
    data = bytes.fromhex(case["hex"])
    framed = km.decode("MetadataRecord", data)
    assert (framed.version, framed.frame_version, framed.api_key) == (case["frameVersion"],) * 2 + (case["apiKey"],)
    assert framed.record_version == framed.record.version == case["version"]
    assert framed.record_type == case["type"].split("/")[1]
    assert mismatches(case["fields"], plain(framed.record)) == []
    assert km.encode(framed) == data
    assert km.encode(framed.record) == data[3:]  # the body alone is the raw record


@pytest.mark.skipif(not FEATURES, reason=SHARED_REASON)
def test_release_names_in_the_decoded_view():
    for case in FEATURES:
        framed_or_raw = km.decode("MetadataRecord" if "/" in case["type"] else case["type"], bytes.fromhex(case["hex"]))
        record = getattr(framed_or_raw, "record", framed_or_raw)
        level, name = case["fields"]["featureLevel"], case["fields"]["name"]
        expected = BY_LEVEL[level].release if name == "metadata.version" else None
        assert record.release == expected
        assert record.to_json_dict(views=True).get("release") == expected


def test_metadata_version_table():
    # section 8.2 of the wire-format notes: 1 - 25 through 4.0, 26 - 33 from 4.1 - 4.4, 34 on a 2026 trunk
    assert [mv.level for mv in METADATA_VERSIONS] == list(range(1, 35))
    assert release_for(21) == "3.9-IV0" and level_for("3.9-IV0") == 21 and release_for(99) is None
    assert release_for(MINIMUM_BOOTSTRAP_LEVEL) == "3.3-IV0" and release_for(LATEST_PRODUCTION_LEVEL) == "4.4-IV2"
    assert [mv.level for mv in METADATA_VERSIONS if mv.changes_metadata][:4] == [1, 3, 5, 6]
    assert [mv.level for mv in METADATA_VERSIONS if mv.changes_metadata and mv.level > 25] == [30, 32, 33]
    assert [mv.level for mv in METADATA_VERSIONS if mv.provisional] == [34]


def frame_fails(hex_text: str, **kw) -> km.DecodeError:
    with pytest.raises(km.DecodeError) as info:
        km.decode("MetadataRecord", bytes.fromhex(hex_text), **kw)
    return info.value


def test_frame_errors_are_java_errors():
    assert "unsupported version 0" in frame_fails("000c00" + MV21).reason  # Kafka 2.8's preview frame
    assert "newer than the newest known (1)" in frame_fails("020c00" + MV21).reason
    e = frame_fails("010600" + MV21)  # apiKey 6: no type of Kafka 4.4's (nor of ours)
    assert (e.path, e.offset) == ("record", 3) and "unknown metadata record apiKey 6" in e.reason
    e = frame_fails("01808004" + "00" + MV21)
    assert (e.path, e.offset) == ("apiKey", 1) and "int16" in e.reason
    e = frame_fails("010c00" + MV21 + "ff")  # Java: "Found 1 byte(s) of garbage after 12"
    assert e.offset == 23 and "Kafka refuses them" in e.reason
    e = frame_fails("010c00" + MV21[:8])
    assert e.path == "record.name" and e.offset == 3
    assert frame_fails("").path == "frameVersion"


def test_newer_record_versions_are_read_with_kafkas_generated_reader_rules():
    framed = km.decode("MetadataRecord", bytes.fromhex("010c01" + MV21))
    assert framed.record_version == framed.record.version == 1 and framed.record.feature_level == 21
    assert km.encode(framed).hex() == "010c01" + MV21
    assert "newer than the newest known (0)" in frame_fails("010c01" + MV21, strict=True).reason


def test_building_a_framed_record():
    record = km.model("FeatureLevelRecord")(name="metadata.version", feature_level=21)
    framed = km.model("MetadataRecord")(record=record)  # the apiKey comes from the record's spec
    assert framed.api_key == 12 and km.encode(framed).hex() == "010c00" + MV21
    from_json = km.model("MetadataRecord").model_validate(framed.to_json_dict(views=True))
    from_json.version = 1
    assert from_json == km.decode("MetadataRecord", km.encode(framed))
    with pytest.raises(ValueError, match="no registered metadata record has apiKey 6"):
        km.model("MetadataRecord")(api_key=6, record={"name": "x", "feature_level": 1})


LOADED_RECORD = """{
  "apiKey": 1000, "type": "metadata", "name": "LoadedProbeRecord", "validVersions": "0-1", "flexibleVersions": "0+",
  "fields": [ { "name": "Id", "type": "int32", "versions": "0+" },
              { "name": "Note", "type": "string", "versions": "1+" } ]
}"""
SHADOW_RECORD = """{
  "apiKey": 12, "type": "metadata", "name": "ShadowFeatureLevelRecord", "validVersions": "0", "flexibleVersions": "0+",
  "fields": [ { "name": "Other", "type": "int8", "versions": "0+" } ]
}"""


def test_loaded_metadata_specs_are_framed_too(tmp_path):
    """Metadata-record specs loaded at run time are dispatched by their apiKey; bundled ones keep theirs."""
    (tmp_path / "loaded.json").write_text(LOADED_RECORD)
    (tmp_path / "shadow.json").write_text(SHADOW_RECORD)
    km.load_specs(tmp_path, replace=True)
    framed = km.decode("MetadataRecord", bytes.fromhex("01e80701" + "00000007" + "026e" + "00"))
    assert (framed.api_key, framed.record_type, framed.record.id, framed.record.note) == (
        1000, "LoadedProbeRecord", 7, "n")
    assert km.encode(framed).hex() == "01e80701" + "00000007" + "026e" + "00"
    assert km.decode("MetadataRecord", bytes.fromhex("010c00" + MV21)).record_type == "FeatureLevelRecord"


def test_json_without_views_has_only_wire_fields_at_every_level():
    framed = km.decode("MetadataRecord", bytes.fromhex("010c00" + MV21))
    assert framed.to_json_dict() == {"frameVersion": 1, "apiKey": 12, "recordVersion": 0, "record": {
        "name": "metadata.version", "featureLevel": 21}}
    with_views = framed.to_json_dict(views=True)
    assert with_views["recordType"] == "FeatureLevelRecord" and with_views["record"]["release"] == "3.9-IV0"
