"""encode -> decode -> encode is the identity for every type and version, plain and typed."""

from __future__ import annotations

from io import BytesIO

import pytest
from construct import Container
from formats import ids, registered_formats, upstream_formats, versioned
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kafka_meta as km
from kafka_meta.models.factory import from_plain, to_plain
from kafka_meta.testing.strategies import values_for

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check_roundtrip(fmt, version, value):
    data = fmt.encode(value, version)
    header = fmt.header(data, version)
    back, wire_version = fmt.decode_plain(data, version)
    assert back == value and wire_version == version
    assert fmt.encode(back, version) == data
    # the interpreted construct (the reference) reads the same value and consumes every byte
    stream = BytesIO(data)
    stream.seek(header.body_offset)
    assert fmt.construct(version)._parse(stream, Container(), "") == value
    assert stream.tell() == len(data)
    # typed: the model reads the same, re-encodes the same bytes, and equals a validated copy
    message = fmt.decode(data, version)
    assert to_plain(message) == value
    assert fmt.encode(message) == data
    rebuilt = from_plain(fmt.model, value)
    rebuilt.version = version
    assert rebuilt == message
    assert fmt.encode(rebuilt) == data


@pytest.mark.parametrize("pair", versioned(registered_formats()), ids=ids)
@SETTINGS
@given(data=st.data())
def test_registered_types_roundtrip(pair, data):
    fmt, version = pair
    check_roundtrip(fmt, version, data.draw(values_for(fmt.construct(version))))


@pytest.mark.parametrize("pair", versioned(upstream_formats()), ids=ids)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_kafka_specs_roundtrip(pair, data):
    fmt, version = pair
    check_roundtrip(fmt, version, data.draw(values_for(fmt.construct(version))))


def test_json_rendering_roundtrips():
    cls = km.model("ConsumerProtocolSubscription")
    message = cls(topics=["a", "b"], user_data=b"\x00\xff", owned_partitions=[{"topic": "a", "partitions": [1]}],
                  generation_id=7, rack_id="r1")
    message.version = 3
    rendered = message.to_json_dict(views=True)
    assert rendered["userData"] == "AP8="  # standard base64, as Kafka's JSON converters write it
    assert rendered["clientView"]["ownedPartitions"] == [{"topic": "a", "partition": 1}]
    again = cls.model_validate_json(message.model_dump_json(by_alias=True))
    again.version = 3
    assert again == message and km.encode(again) == km.encode(message)
