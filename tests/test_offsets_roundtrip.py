"""Whole records round-trip: for every record type and value layout, encode_record(decode_record(k, v))
gives back k and v, and the decoded values are the ones encoded."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_meta.models.factory import to_plain
from kafka_meta.offsets import catalog, decode_record, encode_record
from kafka_meta.testing.strategies import values_for

LAYOUTS = [(rt.number, variant.label, variant.format, version)
           for rt in catalog().values() for variant in rt.values.variants for version in variant.format.versions]


@pytest.mark.parametrize("number, label, fmt, version", LAYOUTS,
                         ids=[f"{n}-{label}-v{v}" for n, label, _, v in LAYOUTS])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_record_roundtrip(number, label, fmt, version, data):
    rt = catalog()[number]
    key_value = data.draw(values_for(rt.key.construct(0)))
    value = data.draw(values_for(fmt.construct(version)))
    key_bytes = rt.key.encode(key_value)
    value_bytes = fmt.encode(value, version)
    record = decode_record(key_bytes, value_bytes, variant=label)
    assert record.record_type == number and record.value_version == version and record.value_variant == label
    assert to_plain(record.key) == key_value and to_plain(record.value) == value
    assert encode_record(record) == (key_bytes, value_bytes)
    tombstone = decode_record(key_bytes, None)
    assert tombstone.tombstone and encode_record(tombstone) == (key_bytes, None)
