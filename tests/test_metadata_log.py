"""Records of the KRaft metadata log read as a broker's segments hold them: kafka_meta.metadata_log, and
`kafka-meta log --decode` on `__cluster_metadata` partitions. (Against Kafka's own DumpLogSegments on a real
broker's metadata log: tests/test_lab_dumplog.py.)"""

from __future__ import annotations

import base64
import json
import uuid
from pathlib import Path

import pytest
from log_support import kafka_python_batch

import kafka_meta as km
from kafka_meta import metadata_log
from kafka_meta.cli.main import main
from kafka_meta.log import read_log
from kafka_meta.metadata_log import decode_metadata_record, metadata_record_json, read_frame, topic_names
from kafka_meta.offsets import decode_record

MV21 = bytes.fromhex("010c00" "116d657461646174612e76657273696f6e" "0015" "00")  # metadata.version = 21
# a NoOpRecord (apiKey 20, v0: nothing but its tagged fields), as a controller writes one every few hundred ms
NOOP = bytes.fromhex("011400" "00")
# a record of apiKey 6, a number no type of Kafka 4.4's has (as a newer Kafka's new type would be)
UNDECLARED = bytes.fromhex("010600" "00")
# a TopicRecord (apiKey 2, v0) of Kafka 4.4's controller (fixtures/lab/transactions, offset 30): a name, an id
TOPIC = bytes.fromhex("010200" "0b6c61622d74786e2d696e" "70305a98b91e4bdd89d6f0373f456994" "00")
LAB = Path(__file__).resolve().parents[1] / "fixtures" / "lab"


def test_a_feature_level_record_is_decoded():
    record = decode_metadata_record(MV21)
    assert (record.record_type, record.record.name, record.record.feature_level) == (
        "FeatureLevelRecord", "metadata.version", 21)
    assert metadata_record_json(record) == {"frameVersion": 1, "apiKey": 12, "recordVersion": 0,
                                            "recordType": "FeatureLevelRecord",
                                            "record": {"name": "metadata.version", "featureLevel": 21}}


def test_a_topic_record_is_decoded():
    record = decode_metadata_record(TOPIC)
    assert (record.record_type, record.record.name) == ("TopicRecord", "lab-txn-in")
    assert record.record.topic_id == uuid.UUID("70305a98-b91e-4bdd-89d6-f0373f456994")
    assert metadata_record_json(record) == {"frameVersion": 1, "apiKey": 2, "recordVersion": 0,
                                            "recordType": "TopicRecord",
                                            "record": {"name": "lab-txn-in", "topicId": "cDBamLkeS92J1vA3P0VplA"}}
    assert km.encode(record) == TOPIC


def test_every_record_type_of_kafka_4_4_is_declared():
    """Kafka 4.4's MetadataRecordType has 29 apiKeys: 0-5, 7-12, 14, 15 and 17-29 (6, 13 and 16 were retired
    before it); each is registered, under Kafka's name, with its versions."""
    formats = km.model("MetadataRecord").record_formats()
    kafkas = {*range(0, 6), *range(7, 13), 14, 15, *range(17, 30)}
    assert kafkas <= set(formats) and not {6, 13, 16} & set(formats)  # other tests may load specs of their own
    assert {formats[k].name for k in (0, 5, 17, 20, 21, 28)} == {
        "RegisterBrokerRecord", "PartitionChangeRecord", "BrokerRegistrationChangeRecord", "NoOpRecord",
        "ZkMigrationStateRecord", "ClearElrRecord"}
    assert {k: str(formats[k].versions) for k in (0, 3, 5, 17)} == {0: "0-4", 3: "0-2", 5: "0-2", 17: "0-3"}
    noop = decode_metadata_record(NOOP)
    assert noop.record_type == "NoOpRecord" and km.encode(noop) == NOOP


def test_a_record_of_an_undeclared_type_is_kept_whole():
    record = decode_metadata_record(UNDECLARED)
    assert isinstance(record, metadata_log.UnknownMetadataRecord)
    assert (record.frame_version, record.api_key, record.record_version, record.value) == (1, 6, 0, UNDECLARED)
    assert metadata_record_json(record) == {"frameVersion": 1, "apiKey": 6, "recordVersion": 0, "unknown": True,
                                            "reason": "unknown metadata record apiKey 6",
                                            "value": base64.b64encode(UNDECLARED).decode()}
    with pytest.raises(km.DecodeError, match="unknown metadata record apiKey 6") as info:
        decode_metadata_record(UNDECLARED, strict=True)
    assert (info.value.path, info.value.offset) == ("apiKey", 1)


def test_what_kafka_refuses_is_an_error_naming_where():
    with pytest.raises(km.DecodeError, match="without a value"):
        decode_metadata_record(None)
    with pytest.raises(km.DecodeError, match="input ends inside apiKey") as info:
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
    assert read_frame(TOPIC) == metadata_log.Frame(1, 2, 0) and read_frame(NOOP) == metadata_log.Frame(1, 20, 0)


def test_kafka_meta_log_decodes_a_metadata_partition(tmp_path, capsys):
    partition = tmp_path / "__cluster_metadata-0"
    partition.mkdir()
    (partition / "00000000000000000000.log").write_bytes(kafka_python_batch(0, [(None, MV21), (None, UNDECLARED)]))
    code = main(["log", "--decode", str(partition)])
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [(r["topic"], r["offset"], r.get("recordType"), r.get("unknown")) for r in rows] == [
        ("__cluster_metadata", 0, "FeatureLevelRecord", None), ("__cluster_metadata", 1, None, True)]
    assert rows[0]["record"] == {"name": "metadata.version", "featureLevel": 21}
    assert err.strip().splitlines()[-1] == ("metadata records 2 (FeatureLevelRecord 1); control records 0; "
                                            "unknown apiKey 1; errors 0")

    code = main(["log", "--decode", "--strict", str(partition)])
    out, err = capsys.readouterr()
    assert code == 1 and "unknown metadata record apiKey 6" in json.loads(out.splitlines()[1])["_error"]
    assert main(["log", "--group", "g", str(partition)]) == 0 and capsys.readouterr().out == ""  # no groups here


def test_topic_names_come_from_the_topic_records_of_a_real_metadata_log():
    names = topic_names(read_log(LAB / "transactions" / "kafka-logs"))  # the whole log directory: other topics too
    assert names["70305a98-b91e-4bdd-89d6-f0373f456994"] == "lab-txn-in"
    assert set(names.values()) == {"lab-txn-in", "lab-txn-out", "__consumer_offsets", "__transaction_state"}
    assert all(str(uuid.UUID(key)) == key for key in names)  # str(uuid.UUID): the form the record models print


def test_topic_names_are_the_ids_kip_848_groups_commit_under():
    """The consumer recording's KIP-848 group commits offsets with the topic's name in the key and its id in
    the value (OffsetCommitValue v4): every such id names the same topic in the metadata log."""
    logs = LAB / "consumer" / "kafka-logs"
    names = topic_names(read_log(logs / "__cluster_metadata-0"))
    committed = {}
    for row in read_log(logs):
        if row["topic"] == "__consumer_offsets" and row["value"] is not None and not row["control"]:
            record = decode_record(row["key"], row["value"])
            if record.record_name == "OffsetCommit" and getattr(record.value, "topic_id", None) is not None:
                committed[str(record.value.topic_id)] = record.key.topic
    assert committed and all(names[topic_id] == topic for topic_id, topic in committed.items())


def test_topic_names_pass_over_what_names_no_topic():
    rows = [{"topic": "__cluster_metadata", "key": None, "value": NOOP},
            {"topic": "__cluster_metadata", "key": None, "value": b"\x01\x02"},  # cut inside the frame
            {"topic": "__cluster_metadata", "key": None, "value": TOPIC[:-3]},  # cut inside the record
            {"topic": "__cluster_metadata", "key": None, "value": None, "_error": "damage at byte 7"},
            {"topic": "__cluster_metadata", "key": b"\x00\x00", "value": TOPIC, "control": True},
            {"topic": "__consumer_offsets", "key": None, "value": TOPIC},
            {"topic": "__cluster_metadata", "key": None, "value": MV21},
            {"topic": "__cluster_metadata", "key": None, "value": TOPIC}]
    assert topic_names(rows) == {"70305a98-b91e-4bdd-89d6-f0373f456994": "lab-txn-in"}
    assert topic_names([]) == {}
