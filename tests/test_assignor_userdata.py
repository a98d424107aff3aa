"""StickyAssignor and CooperativeStickyAssignor user data: Java's vectors, kafka-python's, and Kafka's
fallback for bytes no reader understands."""

from __future__ import annotations

import pytest
from conftest import SHARED_REASON, case_id, golden_cases
from support import mismatches, plain

import kafka_meta as km
from kafka_meta.models.factory import to_plain

JAVA = [c for c in golden_cases("java/sticky-userdata.jsonl") if c["hex"] is not None]
KAFKA_PYTHON = [c for c in golden_cases("clients/kafka-python.jsonl") if c["kind"].startswith("sticky-userdata")]


@pytest.mark.skipif(not JAVA, reason=SHARED_REASON)
@pytest.mark.parametrize("case", JAVA, ids=case_id)
def test_java_vector(case):
    data = bytes.fromhex(case["hex"])
    message = km.decode(case["type"], data)
    assert km.encode(message) == data  # also for unreadable bytes: written back as they were
    if case.get("decodeOnly"):
        assert message.variant == "unreadable" and message.decode_problem
        assert mismatches({"generation": case["decoded"]["generation"]}, plain(message)) == []
        assert plain(message).get("previousassignment", []) == []
    else:
        assert message.variant == "java" and message.version == case["version"]
        assert mismatches(case["fields"], plain(message)) == []


@pytest.mark.skipif(not KAFKA_PYTHON, reason=SHARED_REASON)
@pytest.mark.parametrize("case", KAFKA_PYTHON, ids=lambda c: f"{c['kind']}-v{c['version']}-{c['hex'][:16]}")
def test_kafka_python_vector(case):
    data = bytes.fromhex(case["hex"])
    message = km.decode("StickyAssignorUserData", data)
    prefixed = case["kind"].endswith("version-prefixed")
    assert message.variant == ("kafka-python" if prefixed else "java")  # flagged, and read either way
    assert message.version == case["version"]
    expected = {k: v for k, v in case["fields"].items() if k != "version_prefix"}
    assert mismatches(expected, plain(message)) == []
    assert km.encode(message) == data


def test_new_messages_are_written_as_java_writes_them():
    cls = km.model("StickyAssignorUserData")
    message = cls.model_validate({"previous_assignment": [{"topic": "t", "partitions": [2]}], "generation": 9})
    data = km.encode(message)
    assert data.hex() == "00000001" "000174" "00000001" "00000002" "00000009"  # v1, no version prefix
    with pytest.raises(km.EncodeError, match="version 0 has no field generation"):
        km.encode(message, 0)  # not ignorable: Java's v0 cannot carry a generation
    message.generation = -1
    assert km.encode(message, 0) == data[:-4]
    message.generation = 9
    back = km.decode("StickyAssignorUserData", data)
    assert back.version == 1 and back.variant == "java" and back.generation == 9


def test_strict_reading_refuses_what_kafka_would_default():
    with pytest.raises(km.DecodeError):
        km.decode("StickyAssignorUserData", b"\xde\xad", strict=True)
    with pytest.raises(km.DecodeError):
        km.decode("CooperativeStickyAssignorUserData", b"\x01", strict=True)


def test_cooperative_generation_and_fallback():
    assert km.decode("CooperativeStickyAssignorUserData", b"\x00\x00\x00\x07").generation == 7
    unreadable = km.decode("CooperativeStickyAssignorUserData", b"\x01")
    assert unreadable.generation == -1 and unreadable.variant == "unreadable"
    assert km.encode(unreadable) == b"\x01"
    assert km.encode(unreadable.with_version(0)) == b"\xff\xff\xff\xff"


@pytest.mark.skipif(not JAVA + KAFKA_PYTHON, reason=SHARED_REASON)
@pytest.mark.parametrize("case", JAVA + KAFKA_PYTHON, ids=lambda c: f"{case_id(c)}-{c['hex'][:16]}")
def test_bulk_path_reads_the_same_variant_as_the_typed_path(case):
    type_name = case.get("type", "StickyAssignorUserData")
    data = bytes.fromhex(case["hex"])
    message = km.decode(type_name, data)
    assert km.decode_plain(type_name, data) == (to_plain(message), message.version)


def test_bytes_no_variant_reads_report_the_first_variants_error():
    with pytest.raises(km.DecodeError) as info:
        km.decode("StickyAssignorUserData", bytes.fromhex("00000002" "0001"), strict=True)
    e = info.value
    assert e.offset is not None and e.path  # explained by the reference reader, not just "does not fit"
    assert "do not fit" not in e.reason
    with pytest.raises(km.DecodeError) as plain_info:
        km.decode_plain("StickyAssignorUserData", bytes.fromhex("00000002" "0001"), strict=True)
    assert str(plain_info.value) == str(e)
