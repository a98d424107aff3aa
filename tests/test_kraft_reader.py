"""Records of the KRaft metadata log read as a broker's segments hold them: kafka_meta.kraft.reader, and
`kafka-meta log --decode` on `__cluster_metadata` partitions. (Against Kafka's own DumpLogSegments on a real
broker's metadata log: tests/test_lab_dumplog.py.)"""

from __future__ import annotations

import base64
import json

import pytest
from log_support import kafka_python_batch

import kafka_meta as km
from kafka_meta.cli.main import main
from kafka_meta.kraft.reader import (
    Frame,
    UnknownMetadataRecord,
    decode_metadata_record,
    metadata_record_json,
    read_frame,
)

MV21 = bytes.fromhex("010c00" "116d657461646174612e76657273696f6e" "0015" "00")  # metadata.version = 21
# a TopicRecord (apiKey 2, v0) of a real controller: name "t", a topic id; no spec of ours declares it
TOPIC = bytes.fromhex("010200" "0274" + "11" * 16 + "00")


def test_a_feature_level_record_is_decoded():
    record = decode_metadata_record(MV21)
    assert (record.record_type, record.record.name, record.record.feature_level) == (
        "FeatureLevelRecord", "metadata.version", 21)
    assert metadata_record_json(record) == {"frameVersion": 1, "apiKey": 12, "recordVersion": 0,
                                            "recordType": "FeatureLevelRecord",
                                            "record": {"name": "metadata.version", "featureLevel": 21}}


def test_a_record_of_an_undeclared_type_is_kept_whole():
    record = decode_metadata_record(TOPIC)
    assert isinstance(record, UnknownMetadataRecord)
    assert (record.frame_version, record.api_key, record.record_version, record.value) == (1, 2, 0, TOPIC)
    assert metadata_record_json(record) == {"frameVersion": 1, "apiKey": 2, "recordVersion": 0, "unknown": True,
                                            "reason": "unknown metadata record apiKey 2",
                                            "value": base64.b64encode(TOPIC).decode()}
    with pytest.raises(km.DecodeError, match="unknown metadata record apiKey 2") as info:
        decode_metadata_record(TOPIC, strict=True)
    assert (info.value.path, info.value.offset) == ("apiKey", 1)


def test_what_kafka_refuses_is_an_error_naming_where():
    with pytest.raises(km.DecodeError, match="without a value"):
        decode_metadata_record(None)
    with pytest.raises(km.DecodeError, match="ends inside the frame's apiKey") as info:
        decode_metadata_record(b"\x01\x8c")
    assert info.value.offset == 1
    with pytest.raises(km.DecodeError, match="longer than 5 bytes"):
        read_frame(b"\x01" + b"\x80" * 5 + b"\x01\x00")
    with pytest.raises(km.DecodeError, match="unsupported version 0"):  # Kafka 2.8's preview frame
        decode_metadata_record(b"\x00" + MV21[1:])
    with pytest.raises(km.DecodeError, match="int16"):  # an apiKey beyond int16 is no unknown record
        decode_metadata_record(bytes.fromhex("01808004" "00") + MV21[3:])
    with pytest.raises(km.DecodeError, match="Kafka refuses them"):
        decode_metadata_record(MV21 + b"\xff")
    assert read_frame(TOPIC) == Frame(1, 2, 0)


def test_kafka_meta_log_decodes_a_metadata_partition(tmp_path, capsys):
    partition = tmp_path / "__cluster_metadata-0"
    partition.mkdir()
    (partition / "00000000000000000000.log").write_bytes(kafka_python_batch(0, [(None, MV21), (None, TOPIC)]))
    code = main(["log", "--decode", str(partition)])
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [(r["topic"], r["offset"], r.get("recordType"), r.get("unknown")) for r in rows] == [
        ("__cluster_metadata", 0, "FeatureLevelRecord", None), ("__cluster_metadata", 1, None, True)]
    assert rows[0]["record"] == {"name": "metadata.version", "featureLevel": 21}
    assert err.strip().splitlines()[-1] == "metadata records 2 (FeatureLevelRecord 1); unknown apiKey 1; errors 0"

    code = main(["log", "--decode", "--strict", str(partition)])
    out, err = capsys.readouterr()
    assert code == 1 and "unknown metadata record apiKey 2" in json.loads(out.splitlines()[1])["error"]
    assert main(["log", "--group", "g", str(partition)]) == 0 and capsys.readouterr().out == ""  # no groups here
