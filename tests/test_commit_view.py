"""The offset commits a report counts are read by the plain readers (kafka_meta.offsets.commit_view): what they
read is what the typed record says, for every version of the value, and anything they are not sure of
(damage, a newer version, bytes left over) goes back to the typed reader, which reads it or says where it
breaks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kafka_meta as km
from kafka_meta.offsets import decode_record, encode_record, new_record
from kafka_meta.offsets.catalog import catalog
from kafka_meta.offsets.commit_view import CommitView, read_commit
from kafka_meta.testing.agreement import damaged
from kafka_meta.testing.strategies import values_for

COMMIT = catalog()[1]
KEY, VALUE = COMMIT.key, COMMIT.values.variants[0].format
VERSIONS = list(range(VALUE.versions.low, VALUE.versions.high + 1))


def same_as_typed(view: CommitView, record: Any) -> bool:
    """Whether ``view`` says what the typed ``record`` says."""
    if view.record_type != record.record_type or view.record_name != record.record_name:
        return False
    key = record.key
    if (view.key.group, view.key.topic, view.key.partition) != (key.group, key.topic, key.partition):
        return False
    if record.value is None or view.value is None:
        return record.value is None and view.value is None
    return (view.value.offset == record.value.offset and view.value.topic_id == record.value.topic_id
            and view.value.version == record.value_version and not record.read_forward)


def typed_or_error(key: bytes, value: bytes | None):
    try:
        return decode_record(key, value)
    except (km.DecodeError, ValueError) as e:
        return e


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_commit_reads_as_its_typed_record_says(version, data):
    key = KEY.encode(data.draw(values_for(KEY.construct(0))), 0)
    key = (1).to_bytes(2, "big") + key[2:]  # the record type, as the coordinator frames the key
    value = VALUE.encode(data.draw(values_for(VALUE.construct(version))), version)
    view, typed = read_commit(key, value), typed_or_error(key, value)
    assert not isinstance(typed, Exception)
    if view is not None:  # unknown tagged fields, say, are the typed reader's to keep
        assert isinstance(view, CommitView) and same_as_typed(view, typed)
    tombstone = read_commit(key, None)
    assert tombstone is not None and tombstone.tombstone and same_as_typed(tombstone, decode_record(key, None))


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_damage_is_never_read_as_a_commit(version, data):
    key = (1).to_bytes(2, "big") + KEY.encode(data.draw(values_for(KEY.construct(0))), 0)[2:]
    value = VALUE.encode(data.draw(values_for(VALUE.construct(version))), version)
    if data.draw(st.booleans()):
        key = data.draw(damaged(key))
    else:
        value = data.draw(damaged(value))
    view, typed = read_commit(key, value), typed_or_error(key, value)
    if view is not None:
        assert not isinstance(typed, Exception), f"read {key.hex()} {value.hex()} where the typed reader refuses"
        assert same_as_typed(view, typed)


def test_what_the_plain_readers_leave_to_the_typed_one():
    key, value = encode_record(new_record("OffsetCommit", {"group": "g", "topic": "t", "partition": 0},
                                          {"offset": 7}))
    assert value[:2] == VALUE.versions.high.to_bytes(2, "big") and read_commit(key, value) is not None
    newer = (VALUE.versions.high + 1).to_bytes(2, "big") + value[2:]  # a version newer than known
    assert read_commit(key, newer) is None and decode_record(key, newer).read_forward
    assert read_commit(key, value + b"\x00") is None  # bytes left over
    assert read_commit(key[:-1], value) is None and read_commit(key, value[:-1]) is None
    legacy = (0).to_bytes(2, "big") + key[2:]  # LegacyOffsetCommit: two layouts, the typed reader chooses
    assert read_commit(legacy, value) is None
    assert read_commit((2).to_bytes(2, "big") + key[2:], value) is None  # not a commit
