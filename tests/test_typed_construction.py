"""Typed decoding builds its models without validating them (the bytes already fixed every type), yet they are
the same models users build: equal to what validating the same plain values gives, and validating whatever is
assigned to them later."""

from __future__ import annotations

import copy
import uuid

import pytest
from pydantic import ConfigDict, PrivateAttr, ValidationError

import kafka_meta as km
from kafka_meta.models.base import KafkaModel, Message
from kafka_meta.models.factory import fast_maker, from_plain


def i32(value: int) -> str:
    return (value & 0xFFFFFFFF).to_bytes(4, "big").hex()


def samples() -> list[tuple[str, bytes, int | None]]:
    """(type, bytes, version to pass): nested structs in arrays, uuids and unknown tagged fields, a struct
    default, a version that is not on the wire, and a hand-declared format."""
    sub = km.model("ConsumerProtocolSubscription")(
        topics=["a", "b"], user_data=b"\x01\x02", owned_partitions=[{"topic": "a", "partitions": [1, 2]},
                                                                    {"topic": "b", "partitions": []}],
        generation_id=3, rack_id="r")
    topic = km.model("TopicRecord")(name="t", topic_id=uuid.UUID(int=42),
                                    unknown_tagged_fields=[{"tag": 7, "data": b"\xaa"}])
    join = km.model("JoinGroupRequest")(group_id="g", protocols=[{"name": "range", "metadata": b"x"}])
    assignment = (i32(10) + i32(11) + i32(1) + i32(0) + i32(1) + i32(2) + "d83cdf89" + i32(0) * 5
                  + "7fffffffffffffff")
    return [
        ("ConsumerProtocolSubscription", km.encode(sub, 1), None),
        ("ConsumerProtocolSubscription", km.encode(sub, 3), None),
        ("TopicRecord", km.encode(topic), None),
        ("ConsumerGroupMemberMetadataValue", km.encode(km.model("ConsumerGroupMemberMetadataValue")(), 0), None),
        ("JoinGroupRequest", km.encode(join, 6), 6),
        ("AssignmentInfo", bytes.fromhex(assignment), None),
    ]


def models_in(value: object) -> list[KafkaModel]:
    """Every model in a message, the message first."""
    if isinstance(value, KafkaModel):
        return [value, *(m for item in value.__dict__.values() for m in models_in(item))]
    if isinstance(value, list):
        return [m for item in value for m in models_in(item)]
    return []


@pytest.mark.parametrize(("type_name", "data", "version"), samples(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_decoded_message_is_what_validating_its_plain_values_gives(type_name, data, version):
    message = km.decode(type_name, data, version=version)
    plain, wire = km.decode_plain(type_name, data, version=version)
    validated = from_plain(type(message), plain)
    validated.version = wire
    assert message == validated and repr(message) == repr(validated)
    assert message.model_dump() == validated.model_dump()
    assert message.model_dump(mode="json", by_alias=True) == validated.model_dump(mode="json", by_alias=True)
    assert message.to_json_dict() == validated.to_json_dict()
    assert (message.version, message.read_forward, message.unknown_trailing) == (wire, False, b"")
    built, checked = models_in(message), models_in(validated)
    assert [type(m) for m in built] == [type(m) for m in checked]
    for got, want in zip(built, checked, strict=True):
        assert got.model_fields_set == want.model_fields_set == set(type(got).model_fields)
        assert got.__pydantic_extra__ is None
        assert (got.__pydantic_private__ is None) == (not type(got).__private_attributes__)
    assert km.encode(message) == data


def test_a_decoded_message_validates_what_is_assigned_to_it():
    data = km.encode(km.model("ConsumerProtocolSubscription")(
        topics=["a"], owned_partitions=[{"topic": "a", "partitions": [0]}]), 3)
    message = km.decode("ConsumerProtocolSubscription", data)
    with pytest.raises(ValidationError):
        message.generation_id = "seven"
    with pytest.raises(ValidationError):
        message.generation_id = 2**31  # beyond an int32
    with pytest.raises(ValidationError):
        message.owned_partitions[0].partitions = ["x"]
    with pytest.raises(ValidationError):
        message.topics = None
    assert message.generation_id == -1 and message.owned_partitions[0].partitions == [0]
    message.generation_id = 5
    message.owned_partitions[0].topic = "b"
    assert message.generation_id == 5 and message.owned_partitions[0].topic == "b"
    assert km.decode("ConsumerProtocolSubscription", km.encode(message)) == message

    record = km.decode("TopicRecord", km.encode(km.model("TopicRecord")(name="t", topic_id=uuid.UUID(int=1))))
    with pytest.raises(ValidationError):
        record.topic_id = "not a uuid"
    record.topic_id = str(uuid.UUID(int=2))  # converted as when a model is built
    assert record.topic_id == uuid.UUID(int=2)


class _Holder(Message):
    """A message with private state made by a factory."""

    _seen: list[int] = PrivateAttr(default_factory=list)
    count: int = 0


def test_private_defaults_that_are_no_literals():
    make = fast_maker(_Holder)
    first, second = make({"count": 1}), make({"count": 2})
    assert first._seen == [] and first.version is None and first.unknown_trailing == b""
    assert first._seen is not second._seen  # made per instance, as pydantic makes them
    assert first.model_fields_set == {"count"} and first == _Holder(count=1)


def _two_decoded_partitions() -> tuple[KafkaModel, KafkaModel]:
    data = km.encode(km.model("ConsumerProtocolSubscription")(
        topics=["a"], owned_partitions=[{"topic": "a", "partitions": [0]}, {"topic": "b", "partitions": [1]}]), 3)
    first, second = km.decode("ConsumerProtocolSubscription", data).owned_partitions
    return first, second


def test_each_decoded_instance_has_a_fields_set_of_its_own():
    first, second = _two_decoded_partitions()
    assert type(first.model_fields_set) is set and first.model_fields_set == {"topic", "partitions"}
    assert first.model_fields_set is not second.model_fields_set
    first.model_fields_set.discard("topic")
    assert second.model_fields_set == {"topic", "partitions"}


def test_copies_of_a_decoded_model_have_fields_sets_of_their_own():
    first, _ = _two_decoded_partitions()
    for copied in (copy.copy(first), copy.deepcopy(first), first.model_copy(), first.model_copy(update={"topic": "x"})):
        own = copied.model_fields_set
        assert type(own) is set and own == {"topic", "partitions"}
        own.discard("topic")
        assert first.model_fields_set == {"topic", "partitions"}


def test_a_decoded_model_is_what_model_construct_makes_of_its_fields():
    first, _ = _two_decoded_partitions()
    message = km.decode("ConsumerProtocolSubscription", km.encode(km.model("ConsumerProtocolSubscription")(), 3))
    constructed = type(first).model_construct(**first.__dict__)
    for attribute in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"):
        assert getattr(first, attribute) == getattr(constructed, attribute), attribute
    assert message.__pydantic_extra__ is None and message.version == 3
    # what pydantic does with it, building, comparing, showing, copying and dumping, is as for any model
    built = type(first)(topic=first.topic, partitions=first.partitions)
    assert first == built and repr(first) == repr(built) and first.model_dump() == built.model_dump()
    for copied in (copy.copy(first), copy.deepcopy(first), first.model_copy(update={"topic": "x"})):
        assert copied.__pydantic_extra__ is None and copied.__pydantic_private__ is None
    assert type(first).model_validate_json(first.model_dump_json()) == first
    with pytest.raises(ValidationError):
        type(first)(topic="t", partitions=[], other=1)  # extra fields are still forbidden
    with pytest.raises(ValidationError):
        first.other = 1


class _WithExtra(KafkaModel):
    """A user's model that keeps extra fields."""

    model_config = ConfigDict(extra="allow")
    count: int = 0


class _PartitionWithNote(KafkaModel):
    """A user's model with private state below a base that has none."""

    _note: str = PrivateAttr(default="n")
    topic: str = ""


def test_models_that_keep_extra_or_private_state_store_it():
    kept = _WithExtra(count=1, colour="red")
    assert kept.__pydantic_extra__ == {"colour": "red"} and kept.colour == "red"
    made_extra = fast_maker(_WithExtra)({"count": 2}).__pydantic_extra__
    assert made_extra == {} == _WithExtra.model_construct().__pydantic_extra__
    noted = _PartitionWithNote(topic="t")
    noted._note = "m"
    assert noted._note == "m" and noted.__pydantic_private__ == {"_note": "m"}
    made = fast_maker(_PartitionWithNote)({"topic": "t"})
    assert made._note == "n" and made.__pydantic_private__ == {"_note": "n"}
