"""The offset commits a report counts are read by the plain readers (kafka_meta.offsets.commit_view), and by
the counting lane straight from their bytes (commit_key, commit_value): what either reads is what the typed
record says, for every version of the value, and anything they are not sure of (damage, a newer version,
bytes left over) goes back to the typed reader, which reads it or says where it breaks. A bug planted in the
lane is caught by the same property."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

import kafka_meta as km
from kafka_meta.offsets import decode_record, encode_record, new_record
from kafka_meta.offsets.catalog import catalog
from kafka_meta.offsets.commit_view import CommitView, commit_key, commit_value, read_commit
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


# The counting lane (commit_key, commit_value): a report counts commits from their bytes without a view. What it
# reads must be what the typed record says; what it is not sure of it leaves (None) to the readers above.

def lane_disagrees(key: bytes, value: bytes | None, read_key=commit_key, read_value=commit_value) -> str | None:
    """Why the lane's reading of ``key`` and ``value`` is not the typed reader's, or None when it agrees or
    leaves the record to the typed reader."""
    fields = read_key(key)
    read = None if value is None or fields is None else read_value(value)
    if fields is None or (value is not None and read is None):
        return None
    typed = typed_or_error(key, value)
    if isinstance(typed, Exception):
        return f"read {key.hex()} {value and value.hex()} where the typed reader refuses: {typed}"
    k = typed.key
    if fields != (typed.record_name, k.group, k.topic, k.partition, f"{k.topic}-{k.partition}"):
        return f"key read as {fields}, typed {typed.record_name} {k.group!r} {k.topic!r} {k.partition}"
    if value is None:
        return None if typed.value is None else "a tombstone the typed reader reads a value in"
    version, offset, raw_id = read
    if typed.read_forward or (version, offset) != (typed.value_version, typed.value.offset):
        return f"value read as v{version} offset {offset}, typed v{typed.value_version} {typed.value.offset}"
    if uuid.UUID(bytes=raw_id) != typed.value.topic_id:
        return f"topic id {raw_id.hex()}, typed {typed.value.topic_id}"
    return None


@st.composite
def commits(draw, version: int, damage: bool) -> tuple[bytes, bytes | None]:
    key = (1).to_bytes(2, "big") + KEY.encode(draw(values_for(KEY.construct(0))), 0)[2:]
    value = VALUE.encode(draw(values_for(VALUE.construct(version))), version)
    if damage:
        if draw(st.booleans()):
            key = draw(damaged(key))
        else:
            value = draw(damaged(value))
    return key, None if draw(st.integers(0, 9)) == 0 else value


@pytest.mark.parametrize("damage", [False, True], ids=["intact", "damaged"])
@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_the_counting_lane_reads_what_the_typed_reader_reads(version, damage, data):
    key, value = data.draw(commits(version, damage))
    assert lane_disagrees(key, value) is None


@pytest.mark.parametrize("version", VERSIONS)
def test_the_counting_lane_reads_what_brokers_write(version):
    """Not only refusals: the lane reads every version's commit as written, and its topic id."""
    for fields in ({"offset": 7}, {"offset": 2**40, "metadata": "é-meta"}):
        record = new_record("OffsetCommit", {"group": "g", "topic": "t", "partition": 3}, fields)
        key, value = encode_record(record)
        plain = decode_record(key, value).value.model_dump()
        plain["topic_id"] = plain["topic_id"].bytes  # the plain form's uuid is its bytes
        value = VALUE.encode(plain, version)
        read = commit_value(value)
        assert commit_key(key) == ("OffsetCommit", "g", "t", 3, "t-3")
        assert read is not None and read[:2] == (version, fields["offset"]), (version, value.hex())
        assert lane_disagrees(key, value) is None
    with_id = value[:-1] + b"\x01\x00\x10" + bytes(range(16)) if version == 4 else None
    if with_id is not None:
        assert commit_value(with_id) == (4, 2**40, bytes(range(16))) and lane_disagrees(key, with_id) is None


def test_the_lane_leaves_what_it_is_not_sure_of():
    key, value = encode_record(new_record("OffsetCommit", {"group": "g", "topic": "t", "partition": 0},
                                          {"offset": 7}))
    assert commit_value((VALUE.versions.high + 1).to_bytes(2, "big") + value[2:]) is None  # newer than known
    assert commit_value(value + b"\x00") is None and commit_value(value[:-1]) is None
    assert commit_value(value[:-1] + b"\x01\x01\x00") is None  # a tagged field that is not the topic id
    assert commit_key((0).to_bytes(2, "big") + key[2:]) is None  # LegacyOffsetCommit: the typed reader chooses
    assert commit_key((2).to_bytes(2, "big") + key[2:]) is None and commit_key(key + b"\x00") is None


@pytest.mark.parametrize("plant", ["offset", "utf-8", "topic id"])
def test_a_bug_planted_in_the_lane_is_caught(plant):
    """The property above fails on a lane that misreads: each planted bug is found by the same search."""
    def planted(value: bytes):
        read = commit_value(value)
        if plant == "offset" and read is not None and read[1] > 1000:
            return read[0], read[1] - 1, read[2]
        if plant == "utf-8" and read is None and len(value) >= 20:  # metadata not checked: read it all the same
            version = int.from_bytes(value[:2], "big")
            return (version, int.from_bytes(value[2:10], "big", signed=True), bytes(16)) if version <= 4 else None
        if plant == "topic id" and read is not None:  # the tagged topic id dropped
            return read[0], read[1], bytes(16)
        return read

    strategy = st.tuples(st.sampled_from(VERSIONS), st.booleans()).flatmap(lambda vd: commits(*vd))
    found = find(strategy, lambda kv: lane_disagrees(*kv, read_value=planted) is not None,
                 settings=settings(max_examples=3000, deadline=None, database=None,
                                   suppress_health_check=list(HealthCheck)))
    assert lane_disagrees(*found, read_value=planted) is not None
