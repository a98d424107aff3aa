"""Every metadata record type and version, the KRaft control records and snapshots: round trips, and a real
broker's log and snapshots (fixtures/kraft, written by the lab's Kafka 4.4 broker after
lab/.../metadata/MetadataChanges.java) against what Kafka's DumpLogSegments --cluster-metadata-decoder printed for
them (fixtures/kraft/dump-log-segments.txt). The same comparison against a fresh broker, with Kafka's own specs
from its jars: tests/test_lab_metadata_records.py."""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka_json import kafka_view

import kafka_meta as km
from kafka_meta.cli.main import main
from kafka_meta.kraft.control import CONTROL_TYPES, DUMP_NAMES, KRAFT_VALUE_VERSION, KRAFT_VALUES
from kafka_meta.log import read_log
from kafka_meta.log.files import find_segments
from kafka_meta.metadata_log import (
    ControlRecord,
    control_record_json,
    decode_control_record,
    decode_metadata_record,
    encode_control_record,
)
from kafka_meta.models.factory import from_plain
from kafka_meta.testing.strategies import values_for

ROOT = Path(__file__).resolve().parents[1]
PARTITION = ROOT / "fixtures" / "kraft" / "kafka-logs" / "__cluster_metadata-0"
FIXTURE = PARTITION.parents[1]
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FRAME = km.get_format("MetadataRecord")
RECORD_TYPES = sorted(km.model("MetadataRecord").record_formats().items())
FRAMED = [(key, fmt.name, v) for key, fmt in RECORD_TYPES if fmt.family == "metadata" for v in fmt.versions]


def dumplog() -> Any:
    """labkit.dumplog (standard library only): the parser of DumpLogSegments' output."""
    if str(ROOT / "lab") not in sys.path:
        sys.path.insert(0, str(ROOT / "lab"))
    import labkit.dumplog

    return labkit.dumplog


# --- round trips: encode -> decode -> encode, every type and version -------------------------------------

@pytest.mark.parametrize(("api_key", "name", "version"), FRAMED, ids=[f"{n}-v{v}" for _, n, v in FRAMED])
@SETTINGS
@given(data=st.data())
def test_every_record_type_and_version_round_trips_in_its_frame(api_key, name, version, data):
    body_fmt = km.get_format(name)
    body = data.draw(values_for(body_fmt.construct(version)))
    framed = FRAME.encode({"frame_version": 1, "api_key": api_key, "record_version": version, "record": body}, 1)
    record = decode_metadata_record(framed)
    assert (record.api_key, record.record_version, record.record_type) == (api_key, version, name)
    assert km.encode(record) == framed
    assert body_fmt.encode(record.record, version) == framed[len(framed) - len(body_fmt.encode(body, version)):]
    again = from_plain(body_fmt.model, body)
    again.version = version
    assert again == record.record


CONTROL = [(n, t.value_type) for n, t in sorted(CONTROL_TYPES.items())]


@pytest.mark.parametrize(("number", "value_type"), CONTROL, ids=[t for _, t in CONTROL])
@SETTINGS
@given(data=st.data())
def test_every_control_record_type_round_trips_chosen_by_its_key(number, value_type, data):
    fmt = km.get_format(value_type)
    version = KRAFT_VALUE_VERSION if value_type in KRAFT_VALUES else data.draw(st.sampled_from(list(fmt.versions)))
    value = fmt.encode(data.draw(values_for(fmt.construct(version))), version)
    key_version = data.draw(st.integers(0, 5))  # newer key versions are read with the newest layout, as Kafka does
    key = key_version.to_bytes(2, "big") + number.to_bytes(2, "big")
    record = decode_control_record(key, value)
    assert (record.type_number, record.kind, type(record.value).kafka_type) == (number, CONTROL_TYPES[number],
                                                                                 value_type)
    assert encode_control_record(record)[1] == value
    assert control_record_json(record)["marker"] == CONTROL_TYPES[number].name


@pytest.mark.parametrize("version", [0, 1])
@SETTINGS
@given(data=st.data())
def test_leader_change_message_round_trips_bare_at_both_versions(version, data):
    """LeaderChangeMessage v1 (VoterDirectoryId, KIP-853) exists in the spec though Kafka reads and writes v0."""
    fmt = km.get_format("LeaderChangeMessage")
    value = data.draw(values_for(fmt.construct(version)))
    encoded = fmt.encode(value, version)
    assert fmt.encode(fmt.decode(encoded, version=version), version) == encoded


def test_a_control_value_is_read_at_version_0_whatever_its_version_field_says():
    """Kafka's ControlRecordUtils reads a KRaft control value at version 0; the Version field is data."""
    fmt = km.get_format("SnapshotHeaderRecord")
    value = fmt.encode(km.model("SnapshotHeaderRecord")(version_=7, last_contained_log_timestamp=5), 0)
    record = decode_control_record(bytes.fromhex("00000003"), value)
    assert record.value.version_ == 7 and record.value.version == 0
    assert control_record_json(record)["value"] == {"version": 7, "lastContainedLogTimestamp": 5}


def test_an_unknown_control_type_keeps_its_bytes_and_damage_names_where():
    record = decode_control_record(bytes.fromhex("00000009"), b"\x01\x02")
    assert isinstance(record, ControlRecord) and record.kind is None and record.type_name == "UNKNOWN"
    assert control_record_json(record) == {"control": True, "controlType": 9, "marker": "UNKNOWN",
                                           "key": {"type": 9}, "value": None, "rawValue": "AQI="}
    assert encode_control_record(record) == (bytes.fromhex("00000009"), b"\x01\x02")
    with pytest.raises(km.DecodeError, match="without a key"):
        decode_control_record(None, b"")
    with pytest.raises(km.DecodeError) as info:
        decode_control_record(bytes.fromhex("00000005"), bytes.fromhex("0000"))  # KRaftVersionRecord cut short
    assert info.value.type_name == "KRaftVersionRecord" and info.value.offset == 2


# --- snapshots: read as segments of their partition, by end offset ---------------------------------------

def test_snapshots_are_segments_of_their_partition_placed_by_end_offset(tmp_path):
    partition = tmp_path / "__cluster_metadata-0"
    partition.mkdir()
    for name in ("00000000000000000000.log", "00000000000000000040.log", "00000000000000000040-0000000002.checkpoint",
                 "00000000000000000013-0000000001.checkpoint", "00000000000000000000-0000000000.checkpoint",
                 "00000000000000000050-0000000002.checkpoint.part", "00000000000000000009-0000000001.checkpoint"
                 ".deleted", "leader-epoch-checkpoint", "00000000000000000040.index", "quorum-state"):
        (partition / name).write_bytes(b"")
    assert [Path(s.path).name for s in find_segments(tmp_path)] == [
        "00000000000000000000-0000000000.checkpoint", "00000000000000000000.log",
        "00000000000000000013-0000000001.checkpoint", "00000000000000000040-0000000002.checkpoint",
        "00000000000000000040.log"]
    [snapshot] = [s for s in find_segments(partition) if s.snapshot_id == (13, 1)]
    assert (snapshot.topic, snapshot.partition, snapshot.base_offset) == ("__cluster_metadata", 0, None)


# --- a real broker's log and snapshots against DumpLogSegments ----------------------------------------------

def kafka_meta_rows(path: Path) -> list[dict[str, Any]]:
    """`kafka-meta log --decode PATH`'s lines, run in this process (a non-zero exit fails)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["log", "--decode", str(path)])
    assert code == 0, err.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def our_spec_by_kafka_name() -> dict[str, Any]:
    """Our specs by the name DumpLogSegments prints (FEATURE_LEVEL_RECORD), and the control values' by theirs."""
    from kafka_json import upper_snake

    specs = {upper_snake(fmt.name): fmt.spec for _, fmt in RECORD_TYPES}
    specs.update({DUMP_NAMES[n]: km.get_format(t.value_type).spec for n, t in CONTROL_TYPES.items() if n in DUMP_NAMES})
    return specs


def test_a_real_brokers_log_and_snapshots_read_as_dump_log_segments_printed_them():
    """Field by field, with the version view of our own specs (their wire facts are Kafka's; the lab test uses
    Kafka's own specs from its jars)."""
    dumped = dumplog().parse((FIXTURE / "dump-log-segments.txt").read_text())
    specs = our_spec_by_kafka_name()
    checked, kinds = 0, set()
    for file in dumped:
        rows = kafka_meta_rows(ROOT / file.file)
        assert [r.offset for r in file.records] == [row["offset"] for row in rows], file.file
        for kafka, row in zip(file.records, rows, strict=True):
            assert row["timestamp"] == kafka.timestamp
            if kafka.control is not None:
                kinds.add(kafka.control["type"])
                assert DUMP_NAMES[row["controlType"]] == kafka.control["type"]
                spec = specs[kafka.control["type"]]
                assert kafka_view(row["value"], spec.fields, row["value"]["version"]) == kafka.control["data"]
            else:
                kinds.add(kafka.payload["type"])
                spec = specs[kafka.payload["type"]]
                assert (row["apiKey"], row["recordVersion"]) == (spec.api_key, kafka.payload["version"])
                assert kafka_view(row["record"], spec.fields, row["recordVersion"]) == kafka.payload["data"]
            checked += 1
    assert checked > 100 and {"LeaderChange", "SnapshotHeader", "SnapshotFooter", "KRaftVersion", "KRaftVoters",
                              "PARTITION_CHANGE_RECORD", "USER_SCRAM_CREDENTIAL_RECORD", "ACCESS_CONTROL_ENTRY_RECORD",
                              "CLIENT_QUOTA_RECORD", "REGISTER_BROKER_RECORD"} <= kinds


def test_a_real_brokers_records_write_back_byte_for_byte():
    """Every record and control record of the broker's log and snapshots, decoded and encoded again, gives the
    bytes Kafka wrote."""
    rows = [row for row in read_log(PARTITION) if row["_error"] is None]
    assert len(rows) > 100
    for row in rows:
        if row["control"]:
            assert encode_control_record(decode_control_record(row["key"], row["value"])) == (row["key"], row["value"])
        else:
            assert km.encode(decode_metadata_record(row["value"])) == row["value"]
