"""The public Python API: types, decode, encode, models and version handling."""

from __future__ import annotations

import pytest
from conftest import SPEC_DIR, need_shared

import kafka_meta as km

SUB, ASG = "ConsumerProtocolSubscription", "ConsumerProtocolAssignment"


def test_types_lists_the_consumer_protocol():
    assert {SUB, ASG} <= set(km.types())


def test_unknown_type_suggests_names():
    with pytest.raises(km.UnknownTypeError, match="did you mean ConsumerProtocolSubscription"):
        km.decode("ConsumerProtocolSubscriptin", b"\x00\x00")


def test_snake_case_attributes_and_kafka_aliases():
    message = km.decode(SUB, bytes.fromhex("0002000000010001610000000201020000000000000007"))
    assert message.generation_id == 7 and message.user_data == b"\x01\x02" and message.version == 2
    dumped = message.model_dump(by_alias=True)
    assert list(dumped) == ["topics", "userData", "ownedPartitions", "generationId", "rackId", "clientView"]
    assert "generation_id" in message.model_dump()
    # Kafka's JSON converters write the wire fields of the version only (rackId is v3+); the client view is what
    # Kafka's consumer reads
    assert list(message.to_json_dict()) == ["topics", "userData", "ownedPartitions", "generationId"]
    assert list(message.to_json_dict(every_field=True)) == [
        "topics", "userData", "ownedPartitions", "generationId", "rackId"]
    assert dumped["clientView"]["generationId"] == 7


@pytest.mark.parametrize("name", [None, 3, b"ConsumerProtocolSubscription"])
def test_a_type_name_that_is_no_string_is_an_unknown_type(name):
    with pytest.raises(km.UnknownTypeError, match=r"a type is named by a string.*`kafka-meta types`"):
        km.decode(name, b"")


def test_models_accept_kafka_names_spec_names_and_python_names():
    cls = km.model(SUB)
    a = cls(topics=["t"], generationId=3)
    b = cls(Topics=["t"], GenerationId=3)
    c = cls(topics=["t"], generation_id=3)
    assert a == b == c


def test_encode_defaults_to_newest_then_own_version():
    message = km.model(SUB)(topics=["t"])
    assert message.version is None
    assert km.encode(message)[:2] == b"\x00\x03"  # Java writers emit the newest version
    decoded = km.decode(SUB, km.encode(message, 1))
    assert decoded.version == 1 and km.encode(decoded)[:2] == b"\x00\x01"


def test_ignorable_fields_are_dropped_at_older_versions():
    message = km.model(SUB)(topics=["t"], owned_partitions=[{"topic": "t", "partitions": [0]}], generation_id=4,
                            rack_id="r")
    v0 = km.decode(SUB, km.encode(message, 0))
    assert v0.owned_partitions == [] and v0.generation_id == -1 and v0.rack_id is None


def test_versions_outside_the_range_cannot_be_written():
    with pytest.raises(km.EncodeError, match="outside the known versions"):
        km.encode(km.model(SUB)(topics=[]), 4)


def test_plain_values_need_a_type():
    with pytest.raises(km.EncodeError, match="type_name"):
        km.encode({"topics": []})
    assert km.encode({"assigned_partitions": [], "user_data": None}, 0, type_name=ASG) == bytes.fromhex(
        "000000000000ffffffff")


def test_validation_refuses_bad_values():
    cls = km.model(SUB)
    with pytest.raises(ValueError):
        cls(topics=["t"], generation_id=2**31)
    with pytest.raises(ValueError):
        cls(topics=["t"], nonsense=1)


def test_bulk_path_returns_plain_values():
    value, version = km.decode_plain(ASG, bytes.fromhex("0001000000010001740000000100000005ffffffff"))
    assert version == 1
    assert value == {"assigned_partitions": [{"topic": "t", "partitions": [5]}], "user_data": None}


def test_a_model_of_another_type_is_refused():
    message = km.model(ASG)()
    with pytest.raises(km.EncodeError, match="cannot be encoded as"):
        km.encode(message, type_name=SUB)


def test_loading_kafkas_own_specs():
    need_shared()
    names = km.load_specs(SPEC_DIR / "clients" / "JoinGroupRequest.json", replace=True)
    assert names == ["JoinGroupRequest"]
    message = km.model("JoinGroupRequest")(group_id="g", session_timeout_ms=10, member_id="m",
                                           protocol_type="consumer", protocols=[{"name": "range", "metadata": b""}])
    data = km.encode(message, 6)
    back = km.decode("JoinGroupRequest", data, version=6)
    assert back.protocols[0].name == "range" and back.version == 6
    with pytest.raises(km.DecodeError, match="pass one of 0-9"):
        km.decode("JoinGroupRequest", data)


def test_a_version_probe_cannot_be_encoded_as_a_type_without_probing():
    probe = km.decode("SubscriptionInfo", bytes.fromhex("0000000c" "0000000c"))
    assert probe.version == 12
    with pytest.raises(km.EncodeError, match="cannot be encoded as"):
        km.encode(probe, type_name=SUB)


@pytest.mark.parametrize("decode", [km.decode, km.decode_plain], ids=["typed", "plain"])
def test_defaults_of_absent_struct_fields_are_fresh_per_record(decode):
    """A tagged struct with a non-null default, absent from the bytes: each record gets its own copy."""
    model = km.model("ConsumerGroupMemberMetadataValue")
    data = km.encode(model(), 0)
    first, second = (decode("ConsumerGroupMemberMetadataValue", data) for _ in range(2))
    pick = (lambda m: m.classic_member_metadata) if decode is km.decode else (
        lambda m: m[0]["classic_member_metadata"])
    assert pick(first) == pick(second) and pick(first) is not pick(second)
    assert pick(first) is not None
