"""A ClientQuotaRecord's ``value`` (a float64, the one of Kafka 4.4's records) that is no number: ``kafka-meta log
--decode`` prints it as Kafka's DumpLogSegments does, the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"``
(Jackson writes non-finite doubles quoted), not ``null`` (what a JSON dump of the model gives) nor JSON's missing
bare ``NaN``; finite values stay numbers. The lab's test runs DumpLogSegments itself on the same segment."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest
from cli_support import run
from log_support import kafka_python_batch

from kafka_meta.metadata_log import decode_metadata_record, metadata_record_json

# a ClientQuotaRecord v0 (frame 1, apiKey 14): user alice's producer_byte_rate, its value's 8 bytes at FLOAT_AT
QUOTA = bytes.fromhex("010e0002057573657206616c696365001370726f64756365725f627974655f72617465"
                      "7ff8000000000000" "0000")
FLOAT_AT = len(QUOTA) - 10
VALUES = [bytes.fromhex("7ff8000000000000"),  # Java's canonical NaN
          bytes.fromhex("fff0000000000001"), bytes.fromhex("7ff0000000000001"),  # other NaN bit patterns
          struct.pack(">d", math.inf), struct.pack(">d", -math.inf), struct.pack(">d", 100.0), struct.pack(">d", -0.0)]
# what DumpLogSegments (Kafka 4.4.0, --cluster-metadata-decoder) printed for each, as its JSON parses
KAFKA = ["NaN", "NaN", "NaN", "Infinity", "-Infinity", 100.0, -0.0]


def quota(value: bytes) -> bytes:
    return QUOTA[:FLOAT_AT] + value + QUOTA[FLOAT_AT + 8:]


def segment(tmp_path: Path) -> Path:
    partition = tmp_path / "__cluster_metadata-0"
    partition.mkdir()
    path = partition / "00000000000000000000.log"
    path.write_bytes(kafka_python_batch(0, [(None, quota(v)) for v in VALUES]))
    return path


def test_a_non_finite_quota_prints_as_kafkas_json_writes_it(tmp_path, capsys):
    code, lines, _ = run(capsys, ["log", "--decode", str(segment(tmp_path))])
    assert code == 0
    values = [line["record"]["value"] for line in lines]
    assert values == KAFKA and all(type(v) is type(k) for v, k in zip(values, KAFKA, strict=True))
    assert math.copysign(1.0, values[-1]) == -1.0  # -0.0 stays itself


def test_the_record_keeps_its_bits_and_writes_them_back():
    from kafka_meta.api import encode

    for value in VALUES:
        record = decode_metadata_record(quota(value))
        assert record.record.value != record.record.value or record.record.value == struct.unpack(">d", value)[0]
        assert bytes([1, 14, 0]) + encode(record.record, 0) == quota(value)
        assert metadata_record_json(record)["record"]["entity"] == [{"entityType": "user", "entityName": "alice"}]


@pytest.mark.kafka
def test_dump_log_segments_prints_the_same(lab, tmp_path, capsys):
    import labkit.dumplog

    dumped = labkit.dumplog.records([segment(tmp_path)], "cluster-metadata")
    assert [r.payload["data"]["value"] for r in dumped] == KAFKA
    code, lines, _ = run(capsys, ["log", "--decode", str(tmp_path / "__cluster_metadata-0")])
    assert code == 0 and [line["record"] for line in lines] == [r.payload["data"] for r in dumped]
