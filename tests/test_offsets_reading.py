"""Reading policy (KIP-915), tombstones, unknown types, newer versions, variants and control records."""

from __future__ import annotations

import pytest

import kafka_meta as km
from kafka_meta.offsets import (
    ControlRecord,
    CoordinatorRecord,
    UnknownRecord,
    catalog,
    decode_record,
    encode_record,
    new_record,
    record_type,
)

OFFSET_KEY = km.encode(km.model("OffsetCommitKey")(group="g", topic="t", partition=3))


def offset_value(version: int, **fields) -> bytes:
    message = km.model("OffsetCommitValue")(offset=42, metadata="m", commit_timestamp=1, **fields)
    return km.encode(message, version)


def stamped(data: bytes, version: int) -> bytes:
    return version.to_bytes(2, "big") + data[2:]


def test_catalog_knows_every_record_type():
    assert sorted(catalog()) == list(range(24))
    assert {n for n, rt in catalog().items() if rt.retired} == {9, 18}
    assert record_type("GroupMetadata").number == 2 and record_type(16).name == "ConsumerGroupRegularExpression"


def test_tombstone_is_a_typed_delete():
    record = decode_record(OFFSET_KEY, None)
    assert isinstance(record, CoordinatorRecord) and record.tombstone and record.value is None
    assert record.key.topic == "t" and record.group_id == "g"
    assert encode_record(record) == (OFFSET_KEY, None)


def test_unknown_record_type_lenient_and_strict():
    key = b"\x00\x63" + b"\x00\x01g"
    record = decode_record(key, b"\x00\x00\x01")
    assert isinstance(record, UnknownRecord) and record.record_type == 99
    assert encode_record(record) == (key, b"\x00\x00\x01")
    with pytest.raises(km.DecodeError, match="unknown record type 99"):
        decode_record(key, b"\x00\x00", strict=True)


def test_newer_flexible_value_is_read_forward_with_unknown_tags_kept():
    v4 = offset_value(4, leader_epoch=2, unknown_tagged_fields=[{"tag": 3, "data": b"\xaa\xbb"}])
    v9 = stamped(v4, 9)
    record = decode_record(OFFSET_KEY, v9)
    assert record.read_forward and record.value_version == 9 and record.value.offset == 42
    assert [(u.tag, u.data) for u in record.value.unknown_tagged_fields] == [(3, b"\xaa\xbb")]
    assert encode_record(record) == (OFFSET_KEY, v9)
    with pytest.raises(km.DecodeError, match="newer than the newest known"):
        decode_record(OFFSET_KEY, v9, strict=True)


def test_newer_version_of_a_never_flexible_layout_is_refused_then_older_layouts_tried():
    """LegacyOffsetCommitValue has only the non-flexible v0: a type-0 key with a v3 value is the 2024
    convention (OffsetCommitValue layout); v6 is read forward through that flexible layout."""
    key = b"\x00\x00" + OFFSET_KEY[2:]
    v3 = decode_record(key, offset_value(3, leader_epoch=5))
    assert v3.value_variant == "2024-10" and v3.value.leader_epoch == 5 and not v3.read_forward
    v6 = decode_record(key, stamped(offset_value(4), 6))
    assert v6.value_variant == "2024-10" and v6.read_forward
    with pytest.raises(km.DecodeError):
        decode_record(key, offset_value(3), variant="2026-08")


def test_forcing_a_variant():
    key = km.encode(km.model("ShareGroupMetadataKey")(group_id="s"))
    current = km.encode(km.model("ShareGroupMetadataValue")(epoch=3, metadata_hash=0))
    assert decode_record(key, current).value_variant == "2026-08"
    with pytest.raises(km.DecodeError):
        decode_record(key, current, variant="2024-10", strict=True)
    with pytest.raises(km.DecodeError, match="no variant"):
        decode_record(key, current, variant="1999")


def test_strict_refuses_unknown_tags_lenient_keeps_them():
    value = km.encode(km.model("ConsumerGroupMetadataValue")(epoch=1, unknown_tagged_fields=[
        {"tag": 7, "data": b"\x01"}]))
    key = km.encode(km.model("ConsumerGroupMetadataKey")(group_id="c"))
    assert decode_record(key, value).value.unknown_tagged_fields[0].tag == 7
    with pytest.raises(km.DecodeError, match="unknown tagged field 7"):
        decode_record(key, value, strict=True)


def test_control_records_are_never_read_as_offsets():
    key, value = b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x07"
    record = decode_record(key, value, control=True)
    assert isinstance(record, ControlRecord) and record.marker == "COMMIT"
    assert record.value.coordinator_epoch == 7
    assert encode_record(record) == (key, value)
    # the same key read as a data record is a (truncated) type-0 offset commit key: an error, not offsets
    with pytest.raises(km.DecodeError):
        decode_record(key, value)
    assert decode_record(b"\x00\x00\x00\x00", value, control=True).marker == "ABORT"


@pytest.mark.parametrize("key, reason", [(b"", "could not read the record type"), (b"\x00", "record type")])
def test_empty_or_short_keys(key, reason):
    with pytest.raises(km.DecodeError, match=reason):
        decode_record(key, None)


def test_key_that_does_not_match_its_body():
    with pytest.raises(km.DecodeError) as info:
        decode_record(b"\x00\x01\x00\x05ab", None)
    assert info.value.path == "group" and info.value.offset == 2


def test_value_errors_say_where():
    value = offset_value(3)[:12]  # version, offset, then half of the leader epoch
    with pytest.raises(km.DecodeError) as info:
        decode_record(OFFSET_KEY, value)
    assert info.value.type_name == "OffsetCommitValue" and info.value.path == "leaderEpoch"
    assert info.value.offset == 10


def test_new_record_builds_from_kafka_names():
    record = new_record("OffsetCommit", {"group": "g", "topic": "t", "partition": 1},
                        {"offset": 5, "metadata": "", "commitTimestamp": 9, "leaderEpoch": 2})
    key, value = encode_record(record)
    back = decode_record(key, value)
    assert back.value.offset == 5 and back.value_version == 4  # newest version by default
    assert encode_record(new_record(2, {"group": "g"})) == (key[:2].replace(b"\x00\x01", b"\x00\x02") +
                                                            km.encode(km.model("GroupMetadataKey")(group="g"))[2:],
                                                            None)
