"""A known tagged field whose declared size does not fit its type: kept as unknown when reading leniently.

KIP-915 lets ``__consumer_offsets`` values gain tagged fields without a version bump, so a tag number can mean
different things to different writers: ``OffsetCommitValue`` v4 gained tag 0 = ``topicId`` (16-byte uuid)
in 2025, and a writer whose spec had no tag 0 (or gave it another type) may have put something else there.
Read leniently, such a field is kept as an unknown tagged field with its raw bytes, so the record still reads
and re-encodes byte for byte; read strictly, it is a DecodeError naming the tag and the byte offset. Both
readers (the interpreted reference and the generated fast path), the typed and plain values, the
``__consumer_offsets`` record reader and the Spark batch decoder must do the same.
"""

from __future__ import annotations

import struct

import pyarrow as pa
import pytest

import kafka_meta as km
from kafka_meta.offsets import decode_record, encode_record
from kafka_meta.spark.batch import BatchDecoder
from kafka_meta.spark.columns import arrow_text
from kafka_meta.testing.agreement import read_both, write_both

TOPIC_ID = bytes(range(1, 17))
ZERO_UUID = bytes(16)


def offset_commit_value(tagged: bytes) -> bytes:
    """``OffsetCommitValue`` v4, laid out by hand as Kafka's coordinator writes it (docs/wire-formats.md):

    int16 version 4 | int64 offset 42 | int32 leaderEpoch 5 | compact string metadata "md" (uvarint length+1
    = 3, then the UTF-8 bytes) | int64 commitTimestamp | tagged-field section ``tagged`` (uvarint count, then
    per field uvarint tag, uvarint size, payload). The tagged section starts at byte 25.
    """
    return struct.pack(">hqi", 4, 42, 5) + b"\x03md" + struct.pack(">q", 1_700_000_000_000) + tagged


GOOD = offset_commit_value(b"\x01" + b"\x00\x10" + TOPIC_ID)  # tag 0, 16 bytes: the topic id
# tag 0 as other writers may have written it: empty (the entry starts at byte 26, its payload at 28),
# shorter than a uuid, and longer than one
MISFITS = {
    "empty": (offset_commit_value(b"\x01" + b"\x00\x00"), b""),
    "shorter": (offset_commit_value(b"\x01" + b"\x00\x08" + TOPIC_ID[:8]), TOPIC_ID[:8]),
    "longer": (offset_commit_value(b"\x01" + b"\x00\x14" + TOPIC_ID + b"\xca\xfe\xba\xbe"),
               TOPIC_ID + b"\xca\xfe\xba\xbe"),
}
KEY = struct.pack(">hh", 1, 1) + b"g" + struct.pack(">h", 1) + b"t" + struct.pack(">i", 3)  # OffsetCommitKey v1


def test_the_hand_laid_bytes_are_what_the_codec_writes_when_the_tag_fits():
    message = km.decode("OffsetCommitValue", GOOD, strict=True)
    assert (message.offset, message.leader_epoch, message.metadata) == (42, 5, "md")
    assert message.topic_id.bytes == TOPIC_ID and message.unknown_tagged_fields == []
    assert km.encode(message) == GOOD


@pytest.mark.parametrize("case", sorted(MISFITS))
def test_lenient_reading_keeps_the_misfit_as_an_unknown_field_and_writes_it_back(case):
    data, payload = MISFITS[case]
    message = km.decode("OffsetCommitValue", data)
    assert message.topic_id.bytes == ZERO_UUID  # the known field stays at its default
    assert [(u.tag, u.data) for u in message.unknown_tagged_fields] == [(0, payload)]
    assert (message.offset, message.commit_timestamp) == (42, 1_700_000_000_000)
    assert km.encode(message) == data
    plain, version = km.decode_plain("OffsetCommitValue", data)
    assert version == 4 and plain["topic_id"] == ZERO_UUID and plain["_unknown_tagged_fields"] == [(0, payload)]
    assert km.get_format("OffsetCommitValue").encode(plain, 4) == data


@pytest.mark.parametrize(("case", "reason", "offset"), [
    ("empty", "tagged field 0 at byte 26 declares 0 bytes, which do not hold its value", 28),
    ("shorter", "tagged field 0 at byte 26 declares 8 bytes, which do not hold its value", 28),
    ("longer", "tagged field 0 declares 20 bytes but its value takes 16", 26),
])
def test_strict_reading_refuses_the_misfit_naming_the_tag_and_offset(case, reason, offset):
    data, _ = MISFITS[case]
    for decode in (km.decode, km.decode_plain):
        with pytest.raises(km.DecodeError) as info:
            decode("OffsetCommitValue", data, strict=True)
        assert reason in info.value.reason
        assert info.value.path == "topicId" and info.value.offset == offset


@pytest.mark.parametrize("case", sorted(MISFITS))
def test_the_fast_path_and_the_reference_agree(case):
    data, _ = MISFITS[case]
    fmt = km.get_format("OffsetCommitValue")
    for strict in (False, True):
        assert read_both(fmt, data, None, strict) == []
    assert write_both(fmt, km.decode_plain("OffsetCommitValue", data)[0], 4) == []


def test_an_unknown_field_still_may_not_share_the_tag_of_a_written_known_field():
    message = km.decode("OffsetCommitValue", MISFITS["empty"][0])
    message.topic_id = km.decode("OffsetCommitValue", GOOD).topic_id
    with pytest.raises(km.EncodeError, match="unknown tagged field 0 collides with known field topicId"):
        km.encode(message)


@pytest.mark.parametrize("case", sorted(MISFITS))
def test_consumer_offsets_records(case):
    data, payload = MISFITS[case]
    record = decode_record(KEY, data)
    assert record.record_name == "OffsetCommit" and record.key.group == "g" and record.key.partition == 3
    assert [(u.tag, u.data) for u in record.value.unknown_tagged_fields] == [(0, payload)]
    assert encode_record(record) == (KEY, data)
    with pytest.raises(km.DecodeError, match="tagged field 0"):
        decode_record(KEY, data, strict=True)


# ---------------------------------------------------------------- a tagged struct: ClassicMemberMetadata
def member_metadata(classic: dict | None) -> bytes:
    return km.encode(km.model("ConsumerGroupMemberMetadataValue")(
        client_id="c", client_host="/10.0.0.1", subscribed_topic_names=["t"], classic_member_metadata=classic), 0)


NULL_CLASSIC = member_metadata(None)  # ends with its tagged section: 1 field, tag 0, size 1, null marker 0
INLINE = NULL_CLASSIC[:-4]  # the inline fields, the same in every record below
CLASSIC = member_metadata({"session_timeout_ms": 45000,
                           "supported_protocols": [{"name": "range", "metadata": b"\x00\x01"}]})
CLASSIC_PAYLOAD = CLASSIC[len(INLINE) + 3:]  # after: count 1, tag 0, size (one byte)


def with_tag0(payload: bytes) -> bytes:
    assert len(payload) < 128
    return INLINE + b"\x01\x00" + bytes([len(payload)]) + payload


def test_the_classic_member_metadata_layout():
    assert with_tag0(b"\x00") == NULL_CLASSIC
    assert with_tag0(CLASSIC_PAYLOAD) == CLASSIC and CLASSIC_PAYLOAD[0] == 1  # present marker, then the struct


@pytest.mark.parametrize("payload", [CLASSIC_PAYLOAD + b"\x07", CLASSIC_PAYLOAD[:-1], b"\x01\x00"],
                         ids=["longer", "shorter", "cut-inside"])
def test_a_tagged_struct_that_does_not_fit(payload):
    data = with_tag0(payload)
    fmt = km.get_format("ConsumerGroupMemberMetadataValue")
    message = km.decode("ConsumerGroupMemberMetadataValue", data)
    untagged = km.decode("ConsumerGroupMemberMetadataValue", INLINE + b"\x00")  # no tagged fields at all
    assert message.classic_member_metadata == untagged.classic_member_metadata  # left at its default
    assert message.client_id == "c"
    assert [(u.tag, u.data) for u in message.unknown_tagged_fields] == [(0, payload)]
    assert km.encode(message) == data
    with pytest.raises(km.DecodeError, match="tagged field 0") as info:
        km.decode("ConsumerGroupMemberMetadataValue", data, strict=True)
    assert info.value.path.startswith("classicMemberMetadata")
    for strict in (False, True):
        assert read_both(fmt, data, None, strict) == []


# ---------------------------------------------------------------- Spark's batch decoder (no Spark needed)
def test_spark_batches_keep_the_misfit_in_its_row():
    blobs = [GOOD, *(data for data, _ in MISFITS.values()), None]
    decoder = BatchDecoder("OffsetCommitValue")
    columns = decoder(pa.array(blobs, pa.binary()))
    assert columns.equals(pa.array(arrow_text(decoder.rows(blobs)), type=decoder.row_type))
    out = columns.to_pylist()
    assert len(out) == len(blobs) and out[-1] is None
    assert out[0]["_unknownTaggedFields"] == [] and out[0]["_error"] is None
    for row, (_, payload) in zip(out[1:-1], MISFITS.values(), strict=True):
        assert row["_error"] is None and row["offset"] == 42
        assert row["_unknownTaggedFields"] == [{"tag": 0, "data": payload}]
    strict = BatchDecoder("OffsetCommitValue", strict=True)(pa.array(blobs, pa.binary())).to_pylist()
    assert strict[0]["_error"] is None
    assert all("tagged field 0" in row["_error"] for row in strict[1:-1])


def test_spark_batches_with_a_tagged_struct_that_does_not_fit():
    """Columns are appended as they are read: a tagged struct is checked to fit before it is read, so a misfit
    leaves no partial appends behind and the rows around it stay whole."""
    misfit = with_tag0(CLASSIC_PAYLOAD + b"\x07")
    blobs = [CLASSIC, misfit, CLASSIC, with_tag0(CLASSIC_PAYLOAD[:-1])]
    decoder = BatchDecoder("ConsumerGroupMemberMetadataValue")
    columns = decoder(pa.array(blobs, pa.binary()))
    assert columns.equals(pa.array(arrow_text(decoder.rows(blobs)), type=decoder.row_type))
    out = columns.to_pylist()
    assert out[0] == out[2] and out[0]["classicMemberMetadata"]["supportedProtocols"][0]["name"] == "range"
    untagged = decoder(pa.array([INLINE + b"\x00"], pa.binary())).to_pylist()[0]
    assert out[1]["classicMemberMetadata"] == untagged["classicMemberMetadata"] and out[1]["_error"] is None
    assert out[1]["_unknownTaggedFields"] == [{"tag": 0, "data": CLASSIC_PAYLOAD + b"\x07"}]
    assert out[3]["_unknownTaggedFields"] == [{"tag": 0, "data": CLASSIC_PAYLOAD[:-1]}]


def test_from_kafka_meta_in_spark(spark):
    """The same through a real (local) Spark: rows in = rows out, the misfit kept leniently, refused strictly."""
    from kafka_meta.spark import from_kafka_meta

    blobs = [GOOD, *(data for data, _ in MISFITS.values())]
    df = spark.createDataFrame([(b,) for b in blobs], "b binary")
    lenient = df.select(from_kafka_meta("b", "OffsetCommitValue").alias("m")).collect()
    assert [[(u.tag, bytes(u.data)) for u in row.m._unknownTaggedFields] for row in lenient] == [
        [], *([(0, payload)] for _, payload in MISFITS.values())]
    assert all(row.m._error is None and row.m.offset == 42 for row in lenient)
    strict = df.select(from_kafka_meta("b", "OffsetCommitValue", {"strict": "true"}).alias("m")).collect()
    assert strict[0].m._error is None
    assert all("tagged field 0" in row.m._error for row in strict[1:])
