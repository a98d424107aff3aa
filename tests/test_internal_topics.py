"""Kafka's other internal topics read record by record (kafka_meta.internal_topics): ``__transaction_state``
and ``__share_group_state`` through the one catalogue reader the offsets topic uses, ``__remote_log_metadata`` in
the metadata log's frame; every record type and version round-trips, the reading policy is offsets' (lenient keeps,
strict refuses), damage is a DecodeError naming the field and the byte, and Kafka's own bytes read as Kafka wrote
them."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_meta.errors import DecodeError
from kafka_meta.internal_topics import DECODERS, decoder_for, remote_log_metadata, share_state, transaction_log
from kafka_meta.log import read_log
from kafka_meta.models.factory import to_plain
from kafka_meta.offsets import UnknownRecord
from kafka_meta.offsets.catalog import catalog
from kafka_meta.testing.strategies import values_for

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "lab"
TXN = LAB / "transactions" / "kafka-logs" / "__transaction_state-2"
SHARE = LAB / "share" / "kafka-logs" / "__share_group_state-0"
TIERED = LAB.parent / "tiered" / "kafka-logs" / "__remote_log_metadata-0"  # a broker with tiered storage on
MODULES = {"transaction": transaction_log, "share": share_state}
LAYOUTS = [(name, rt.number, version) for name, module in MODULES.items() for rt in catalog(module.LOG).values()
           for version in rt.values.versions]
REMOTE = sorted(remote_log_metadata.REGISTRY.names())
PROPERTY = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def rows(partition: Path) -> list[dict]:
    return [row for row in read_log(partition) if not row.get("control")]


@pytest.mark.parametrize("name, number, version", LAYOUTS, ids=[f"{n}-{t}-v{v}" for n, t, v in LAYOUTS])
@PROPERTY
@given(data=st.data())
def test_every_record_type_and_version_round_trips(name, number, version, data):
    module = MODULES[name]
    rt = catalog(module.LOG)[number]
    key = data.draw(values_for(rt.key.construct(0)))
    value = data.draw(values_for(rt.values.primary.format.construct(version)))
    key_bytes, value_bytes = rt.key.encode(key), rt.values.primary.format.encode(value, version)
    record = module.decode_record(key_bytes, value_bytes)
    assert (record.record_type, record.record_name, record.value_version) == (number, rt.name, version)
    assert to_plain(record.key) == key and to_plain(record.value) == value
    assert module.encode_record(record) == (key_bytes, value_bytes)
    tombstone = module.decode_record(key_bytes, None, strict=True)
    assert tombstone.tombstone and module.encode_record(tombstone) == (key_bytes, None)
    assert module.record_json(tombstone)["value"] is None


@pytest.mark.parametrize("name", REMOTE)
@PROPERTY
@given(data=st.data())
def test_every_remote_log_metadata_record_round_trips(name, data):
    body_fmt = remote_log_metadata.body_format(name)
    body = data.draw(values_for(body_fmt.construct(0)))
    value = remote_log_metadata.frame_format().encode(
        {"frame_version": 1, "api_key": body_fmt.spec.api_key, "record_version": 0, "record": body}, 1)
    record = remote_log_metadata.decode_record(None, value)  # unknown tagged fields kept (strict refuses them)
    assert (record.api_key, record.record_name, record.record_version) == (body_fmt.spec.api_key, name, 0)
    assert to_plain(record.record) == body
    assert remote_log_metadata.encode_record(record) == value
    assert remote_log_metadata.record_json(record)["record"] == name


def test_the_recordings_read_as_kafka_wrote_them():
    """Real broker segments: every record reads, and writes back to its own bytes."""
    for partition, module, names in ((TXN, transaction_log, {"TransactionLog"}),
                                     (SHARE, share_state, {"ShareSnapshot", "ShareUpdate"})):
        found = set()
        for row in rows(partition):
            record = module.decode_record(row["key"], row["value"], strict=True)
            assert module.encode_record(record) == (row["key"], row["value"])
            found.add(record.record_name)
        assert found == names
    states = [transaction_log.decode_record(r["key"], r["value"]).value.transaction_state for r in rows(TXN)]
    assert {"Empty", "Ongoing", "PrepareCommit", "CompleteCommit"} <= set(states)


def test_a_tiered_storage_brokers_metadata_topic_reads_as_it_wrote_it():
    found = set()
    for row in rows(TIERED):
        assert row["key"] is None
        record = remote_log_metadata.decode_record(row["key"], row["value"], strict=True)
        assert remote_log_metadata.encode_record(record) == row["value"]
        found.add((record.record_name, record.record.remote_log_segment_state))
    assert found == {("RemoteLogSegmentMetadataRecord", 0), ("RemoteLogSegmentMetadataUpdateRecord", 1),
                     ("RemoteLogSegmentMetadataUpdateRecord", 2), ("RemoteLogSegmentMetadataUpdateRecord", 3)}


def test_a_transaction_status_is_named_as_kafka_names_it():
    row = rows(TXN)[1]
    record = transaction_log.decode_record(row["key"], row["value"])
    assert record.value.transaction_status == 1 and record.value.transaction_state == "Ongoing"
    out = transaction_log.record_json(record)
    assert out["record"] == "TransactionLog" and out["valueVersion"] == 1
    assert out["value"]["transactionState"] == "Ongoing" and out["key"] == {"transactionalId": "lab-txn-producer"}
    assert [transaction_log.state_name(i) for i in range(9)] == [
        "Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead",
        "PrepareEpochFence", None]
    assert record.value.with_version(1).transaction_state == "Ongoing"  # a view, not a field: not written


def test_unknown_record_types_and_newer_versions_are_read_leniently_and_refused_strictly():
    row = rows(SHARE)[0]
    key, value = row["key"], row["value"]
    unknown = b"\x00\x07" + key[2:]
    record = share_state.decode_record(unknown, value)
    assert isinstance(record, UnknownRecord) and record.record_type == 7 and share_state.encode_record(record) == (
        unknown, value)
    assert share_state.record_json(record)["unknown"] is True
    with pytest.raises(DecodeError, match="unknown record type 7") as refused:
        share_state.decode_record(unknown, value, strict=True)
    assert refused.value.path == "key" and refused.value.offset == 0
    newer = b"\x00\x05" + value[2:]  # a version newer than Kafka 4.4 knows: read KIP-915 style
    forward = share_state.decode_record(key, newer)
    assert forward.read_forward and forward.value_version == 5 and share_state.encode_record(forward) == (key, newer)
    with pytest.raises(DecodeError, match="newer than the newest known"):
        share_state.decode_record(key, newer, strict=True)


@pytest.mark.parametrize("module, partition", [(transaction_log, TXN), (share_state, SHARE)])
def test_damage_names_the_field_and_the_byte(module, partition):
    row = rows(partition)[1]
    with pytest.raises(DecodeError) as cut:
        module.decode_record(row["key"], row["value"][:-3])
    assert cut.value.offset is not None and cut.value.path
    with pytest.raises(DecodeError, match="without a key"):
        module.decode_record(None, row["value"])
    with pytest.raises(DecodeError, match="the key has 1 bytes"):
        module.decode_record(b"\x00", row["value"])
    with pytest.raises(DecodeError, match="must be bytes"):
        module.decode_record("text", row["value"])  # type: ignore[arg-type]


def remote_value(api_key: int = 2, state: int = 0) -> bytes:
    body = {"topic_id_partition": {"name": "orders", "id": uuid.UUID(int=1).bytes, "partition": 3},
            "broker_id": 1, "event_timestamp_ms": 1700000000000, "remote_partition_delete_state": state}
    return remote_log_metadata.frame_format().encode(
        {"frame_version": 1, "api_key": api_key, "record_version": 0, "record": body}, 1)


def test_remote_log_metadata_frame_and_its_refusals():
    value = remote_value()
    assert value[:3] == b"\x01\x02\x00"  # uvarint frame version 1, apiKey 2, version 0
    record = remote_log_metadata.decode_record(None, value)
    assert record.record_name == "RemotePartitionDeleteMetadataRecord"
    out = remote_log_metadata.record_json(record)
    assert out["key"] is None and out["recordType"] == 2 and out["frameVersion"] == 1
    assert out["value"]["topicIdPartition"]["name"] == "orders"
    unknown = b"\x01\x09\x00" + value[3:]
    kept = remote_log_metadata.decode_record(None, unknown)
    assert isinstance(kept, remote_log_metadata.UnknownRemoteLogMetadataRecord) and kept.api_key == 9
    assert remote_log_metadata.encode_record(kept) == unknown
    with pytest.raises(DecodeError, match="unknown remote log metadata record apiKey 9"):
        remote_log_metadata.decode_record(None, unknown, strict=True)
    for damaged, why in ((b"\x00" + value[1:], "unsupported version 0"), (value + b"\x00", "follow the last field"),
                         (b"\x01\x02\x01" + value[3:], "newer than the newest known"), (value[:-4], "byte")):
        with pytest.raises(DecodeError, match=why):
            remote_log_metadata.decode_record(None, damaged)
    with pytest.raises(DecodeError, match="must be bytes, not null"):
        remote_log_metadata.decode_record(None, None)


def test_the_decoder_table_names_each_topic_once():
    assert sorted(DECODERS) == ["__remote_log_metadata", "__share_group_state", "__transaction_state"]
    assert decoder_for("__consumer_offsets") is None and decoder_for(None) is None
    row = rows(TXN)[0]
    assert decoder_for("__transaction_state").decode_json(row["key"], row["value"])["record"] == "TransactionLog"


def test_log_decode_prints_the_other_internal_topics_decoded(tmp_path, capsys):
    import json

    from kafka_meta.cli.main import main

    shutil.copytree(TXN, tmp_path / TXN.name)
    shutil.copytree(SHARE, tmp_path / SHARE.name)
    assert main(["log", "--decode", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and {line["record"] for line in lines} == {"TransactionLog", "ShareSnapshot", "ShareUpdate"}
    assert "not decoded" not in err
    assert main(["log", "--group", "lab-share", str(tmp_path)]) == 0  # no group's records: none selected
    assert capsys.readouterr().out == ""
    assert main(["offsets", str(tmp_path)]) == 1  # no __consumer_offsets record there, and it says so
    assert "skipped, other topics than __consumer_offsets: 18 records of __share_group_state, 29 records of " \
           "__transaction_state" in capsys.readouterr().err


@pytest.mark.kafka
def test_kafkas_remote_log_metadata_serde_and_ours_agree(lab):
    """Bytes Kafka's serde writes read as Kafka wrote them, and RemoteLogMetadataSerde reads ours."""
    from kafka_meta.testing.conformance.peer import Peer

    body = {"topicIdPartition": {"name": "orders", "id": "AAAAAAAAAAAAAAAAAAAAAQ", "partition": 3},
            "brokerId": 1, "eventTimestampMs": 1700000000000, "remotePartitionDeleteState": 1}
    with Peer() as peer:
        written = peer.call("records.remote.serialize", apiKey=2, version=0, json=body)
        assert written.ok, written.error
        kafka_bytes = bytes.fromhex(written.result["hex"])
        assert kafka_bytes == remote_value(state=1)  # byte for byte what the project writes
        record = remote_log_metadata.decode_record(None, kafka_bytes, strict=True)
        assert record.record.to_json_dict() == body
        read = peer.call("records.remote.deserialize", hex=remote_log_metadata.encode_record(record).hex())
        assert read.ok and read.result["json"] == body and "serdeError" not in read.result
        assert read.result["serde"].startswith("RemotePartitionDeleteMetadata{")
