"""Bad input: a clear DecodeError (type, version, field path, byte offset), never another exception, a hang
or a large allocation; and the fast reader agrees with the reference (interpreted) reader on every input."""

from __future__ import annotations

import tracemalloc

import pytest
from conftest import SHARED_REASON, golden_cases
from formats import ids, registered_formats, upstream_formats, versioned
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kafka_meta as km
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import Unframed
from kafka_meta.spec import load_spec_text
from kafka_meta.testing.agreement import damaged, read_both, same
from kafka_meta.testing.strategies import values_for
from kafka_meta.wire.runtime import uvarint_bytes

SUB = "ConsumerProtocolSubscription"


def fails(type_name, hex_text, **kw) -> km.DecodeError:
    with pytest.raises(km.DecodeError) as info:
        km.decode(type_name, bytes.fromhex(hex_text), **kw)
    return info.value


# ---------------------------------------------------------------- what each kind of damage reports
def test_truncated_length():
    e = fails(SUB, "00010000")
    assert (e.type_name, e.version, e.path, e.offset) == (SUB, 1, "topics", 2)
    assert "needs 4 bytes" in e.reason


def test_negative_length():
    e = fails(SUB, "0000fffffffe")
    assert e.path == "topics" and "negative length -2" in e.reason


def test_null_where_not_nullable():
    e = fails(SUB, "0000ffffffff")
    assert e.path == "topics" and "not nullable" in e.reason


def test_oversized_string_length():
    e = fails(SUB, "00000000000100ff6162")
    assert e.path == "topics[0]" and e.offset == 6 and "exceeds the 2 bytes left" in e.reason


def test_invalid_utf8_reads_as_kafka_reads_it_and_strict_reading_refuses_it():
    # Kafka's readers build strings with new String(bytes, UTF_8): each malformed sequence becomes U+FFFD, cut
    # as Java's decoder cuts them (an encoded surrogate ED A0 80 is one sequence to Java, three to Python)
    assert km.decode(SUB, bytes.fromhex("0000000000010002c328ffffffff")).topics == ["\ufffd("]
    assert km.decode(SUB, bytes.fromhex("0000000000010005eda08061edffffffff")).topics == ["\ufffda\ufffd"]
    assert km.decode_plain(SUB, bytes.fromhex("0000000000010005eda08061edffffffff"))[0]["topics"] == ["\ufffda\ufffd"]
    e = fails(SUB, "0000000000010002c328ffffffff", strict=True)
    assert e.path == "topics[0]" and "invalid UTF-8" in e.reason


HEARTBEAT = "ConsumerGroupHeartbeatResponse"  # v0: throttle, error code, errorMessage (nullable compact string), ...


def heartbeat(error_message: str, marker: str = "ff", assignment: str = "") -> bytes:
    """A ConsumerGroupHeartbeatResponse v0 body: its errorMessage varint and its assignment's null marker given."""
    return bytes.fromhex("00000000" "0000" + error_message + "00" "00000001" "00000000" + marker + assignment + "00")


def test_any_negative_length_of_a_nullable_field_reads_as_null_as_in_kafka():
    # Kafka reads a classic length below -1 as null where the field is nullable ...
    assert km.decode(SUB, bytes.fromhex("000000000000fffffffe")).user_data is None
    e = fails(SUB, "000000000000fffffffe", strict=True)
    assert e.path == "userData" and "negative length -2" in e.reason
    # ... and a compact length whose varint is above 2^31 (a negative int once Java has read it)
    above = uvarint_bytes(2**31 + 5).hex()
    assert km.decode(HEARTBEAT, heartbeat(above), version=0).error_message is None
    with pytest.raises(km.DecodeError, match="signed 32-bit") as info:
        km.decode(HEARTBEAT, heartbeat(above), version=0, strict=True)
    assert info.value.path == "errorMessage"


def test_a_varint_beyond_32_bits_is_cut_as_java_cuts_it():
    # readUnsignedVarint keeps the low 32 bits of a 5-byte varint: 81 80 80 80 70 reads as 1 (an empty string)
    assert km.decode(HEARTBEAT, heartbeat("8180808070"), version=0).error_message == ""
    with pytest.raises(km.DecodeError, match="does not fit in 32 bits"):
        km.decode(HEARTBEAT, heartbeat("8180808070"), version=0, strict=True)


def test_a_null_marker_reads_as_kafka_reads_it():
    # an int8 null marker: Kafka takes any negative one as null, any other as present
    assert km.decode(HEARTBEAT, heartbeat("00", "80"), version=0).assignment is None
    present = km.decode(HEARTBEAT, heartbeat("00", "07", "0100"), version=0).assignment
    assert present is not None and present.topic_partitions == []
    for marker, assignment in (("80", ""), ("07", "0100")):
        with pytest.raises(km.DecodeError, match="null marker"):
            km.decode(HEARTBEAT, heartbeat("00", marker, assignment), version=0, strict=True)


MEMBER = "ConsumerGroupMemberMetadataValue"  # v0 ends with its tagged nullable struct ClassicMemberMetadata (tag 0)


def member_metadata(classic: str) -> bytes:
    """A ConsumerGroupMemberMetadataValue v0 whose one tagged field, tag 0, holds ``classic`` (marker and struct)."""
    return bytes.fromhex("0000" "01" "01" "0263" "0268" "01" "01" "00000005" "01" "01" "00"
                         + f"{len(classic) // 2:02x}" + classic)


def test_a_tagged_null_marker_reads_as_kafka_reads_it():
    # a tagged nullable struct's varint marker: Kafka takes 0, and any varint Java reads as a negative int, as null
    # and any other as present (5 here, with sessionTimeoutMs -499 after it)
    assert km.decode(MEMBER, member_metadata("01fffffe0d0100")).classic_member_metadata.session_timeout_ms == -499
    assert km.decode(MEMBER, member_metadata("05fffffe0d0100")).classic_member_metadata.session_timeout_ms == -499
    largest = uvarint_bytes(2**31 - 1).hex() + "fffffe0d0100"
    assert km.decode(MEMBER, member_metadata(largest)).classic_member_metadata.session_timeout_ms == -499
    assert km.decode(MEMBER, member_metadata("00")).classic_member_metadata is None
    assert km.decode(MEMBER, member_metadata(uvarint_bytes(2**31).hex())).classic_member_metadata is None
    for classic in ("05fffffe0d0100", uvarint_bytes(2**31).hex()):
        with pytest.raises(km.DecodeError, match="null marker"):
            km.decode(MEMBER, member_metadata(classic), strict=True)


def test_a_negative_named_topology_length_reads_as_kafka_streams_reads_it():
    # an AssignmentInfo v11 task id 55_127 whose named-topology char count is negative: Kafka Streams' reader loops
    # that many times (none), so the task has no named topology
    data = bytes.fromhex("0000000b0000000b00000001" "00000037" "0000007f" "fe000000" "00000000000000000000000000000000"
                         "7ffffffe7fffffffffffffff")
    info = km.decode("AssignmentInfo", data)
    assert info.streams_view.active_tasks == ["55_127"] and info.active_tasks[0].named_topology is None
    with pytest.raises(km.DecodeError, match="negative length") as e:
        km.decode("AssignmentInfo", data, strict=True)
    assert e.value.path == "activeTasks[0].namedTopology"


def test_bad_version_and_short_header():
    assert "unsupported version -1" in fails(SUB, "ffff").reason
    assert "2-byte version" in fails(SUB, "00").reason
    assert "newer than the newest" in fails(SUB, "0009" + "00000000ffffffff", strict=True).reason


def test_trailing_bytes_are_kept_or_refused():
    data = bytes.fromhex("000000000000ffffffff" + "abcd")
    message = km.decode(SUB, data)
    assert message.unknown_trailing == b"\xab\xcd" and km.encode(message) == data
    assert km.encode(message, 0) == data  # same version: the tail is written back
    assert km.encode(message.with_version(0)) == data[:-2]
    e = fails(SUB, data.hex(), strict=True)
    assert e.offset == 10 and "2 bytes follow" in e.reason


def test_not_bytes():
    with pytest.raises(km.DecodeError, match="expected bytes"):
        km.decode(SUB, "00000000")  # type: ignore[arg-type]
    assert km.decode(SUB, bytearray.fromhex("000000000000ffffffff")).topics == []
    assert km.decode(SUB, memoryview(bytes.fromhex("000000000000ffffffff"))).topics == []


@pytest.mark.parametrize("type_name", km.types())
@pytest.mark.parametrize("value", [None, "00", 5, [0]], ids=["none", "str", "int", "list"])
def test_anything_but_bytes_is_a_decode_error_for_every_type(type_name, value):
    for decode in (km.decode, km.decode_plain):
        with pytest.raises(km.DecodeError, match="expected bytes") as info:
            decode(type_name, value)  # type: ignore[arg-type]
        assert info.value.type_name == type_name


@pytest.mark.parametrize("version", ["1", 1.0, True, 2**70])
def test_a_version_argument_that_no_framing_can_carry_is_refused(version):
    with pytest.raises(km.DecodeError, match=r"integer|cannot be carried"):
        km.decode("FeatureLevelRecord", bytes.fromhex("0000"), version=version)
    message = km.decode(SUB, bytes.fromhex("000000000000ffffffff"))
    with pytest.raises(km.EncodeError, match=r"integer|outside the known versions"):
        km.encode(message, version)


def test_a_forward_version_beyond_int16_cannot_be_written():
    message = km.decode(SUB, bytes.fromhex("000000000000ffffffff"))
    message.__pydantic_private__["_version"] = 99_999  # e.g. a hand-edited golden document
    with pytest.raises(km.EncodeError, match="outside the known versions"):
        km.encode(message)


def test_version_probe_errors_name_the_wire_version():
    e = fails("AssignmentInfo", "0000000c" "000000")  # v12: a probe, its commonlySupportedVersion cut short
    assert e.version == 12 and e.path == "commonlySupportedVersion" and e.offset == 4


@pytest.mark.parametrize("count_hex", ["7fffffff", "00100000"])
def test_lying_array_count_fails_before_allocating(count_hex):
    tracemalloc.start()
    try:
        e = fails(SUB, "0001" + count_hex + "0001")
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert "cannot fit" in e.reason and e.path == "topics"
    assert peak < 2_000_000


def test_lying_bytes_length_fails_before_allocating():
    tracemalloc.start()
    try:
        e = fails(SUB, "000000000000" + "7ffffff0" + "00")
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert e.path == "userData" and "exceeds the 1 bytes left" in e.reason
    assert peak < 2_000_000


# ---------------------------------------------------------------- flexible versions (a spec of our own)
PROBE = load_spec_text("""{
  "type": "data", "name": "Probe", "validVersions": "0-1", "flexibleVersions": "1+",
  "fields": [
    { "name": "Name", "type": "string", "versions": "0+" },
    { "name": "Items", "type": "[]Item", "versions": "0+", "fields": [
        { "name": "Id", "type": "int32", "versions": "0+" },
        { "name": "Note", "type": "string", "versions": "1+", "nullableVersions": "1+", "default": "null",
          "taggedVersions": "1+", "tag": 0 } ]},
    { "name": "Extra", "type": "int64", "versions": "1+", "taggedVersions": "1+", "tag": 3, "default": -1 }
  ]
}""")
PROBE_FMT = SpecFormat(PROBE, Unframed(), name="Probe")


def probe_fails(hex_text: str, strict: bool = False) -> km.DecodeError:
    with pytest.raises(km.DecodeError) as info:
        PROBE_FMT.decode(bytes.fromhex(hex_text), version=1, strict=strict)
    return info.value


def test_flexible_encoding_and_tags():
    value = {"name": "n", "items": [{"id": 1, "note": "x", "_unknown_tagged_fields": []}], "extra": 5,
             "_unknown_tagged_fields": [(9, b"\x01")]}
    data = PROBE_FMT.encode(value, 1)
    # compact name | 1 item: id, tags{0:"x"} | tags{3: 5, 9: 01}
    assert data.hex() == "026e" + "02" + "00000001" + "01" + "00" + "02" + "0278" + "02" + "0308" + \
        "0000000000000005" + "0901" + "01"
    assert PROBE_FMT.decode_plain(data, 1)[0] == value


def test_bad_varint():
    e = probe_fails("ffffffffff7f")
    assert e.path == "name" and e.offset == 0 and "varint" in e.reason


def test_unknown_tag_strict_and_lenient():
    data = "026e" + "01" + "01" + "0501aa"  # one unknown tag 5 at the top level
    message = PROBE_FMT.decode(bytes.fromhex(data), version=1)
    assert [(u.tag, u.data) for u in message.unknown_tagged_fields] == [(5, b"\xaa")]
    assert PROBE_FMT.encode(message).hex() == data
    e = probe_fails(data, strict=True)
    assert "unknown tagged field 5" in e.reason and e.offset == 4


def test_tag_size_lies():
    e = probe_fails("026e" + "01" + "01" + "0309" + "00")  # tag 3 claims 9 bytes, 1 left
    assert "size 9" in e.reason
    e = probe_fails("026e" + "01" + "01" + "0302" + "0000000000000005", strict=True)  # int64 in a 2-byte tag
    assert e.path == "extra" and "declares 2 bytes" in e.reason
    # read leniently, the 2 bytes that do not fit an int64 are kept as an unknown field (tests/test_tagged_mismatch.py)
    value, _ = PROBE_FMT.decode_plain(bytes.fromhex("026e" + "01" + "01" + "0302" + "0000"), 1)
    assert value["extra"] == -1 and value["_unknown_tagged_fields"] == [(3, b"\x00\x00")]


def test_null_in_tagged_nullable_and_compact_null():
    value = PROBE_FMT.decode_plain(bytes.fromhex("026e" + "02" + "00000007" + "00" + "00"), 1)[0]
    assert value["items"] == [{"id": 7, "note": None, "_unknown_tagged_fields": []}]
    e = probe_fails("00" + "01" + "00")
    assert e.path == "name" and "not nullable" in e.reason


def test_encode_errors_name_the_field():
    with pytest.raises(km.EncodeError) as info:
        PROBE_FMT.encode({"name": "n", "items": [{"id": 2**31, "note": None}], "extra": -1}, 1)
    assert info.value.path == "items[0].id" and "does not fit in int32" in info.value.reason
    with pytest.raises(km.EncodeError) as info:
        PROBE_FMT.encode({"name": "n", "items": [], "extra": 4}, 0)
    assert info.value.path == "extra" and "has no field extra" in info.value.reason
    with pytest.raises(km.EncodeError) as info:
        PROBE_FMT.encode({"name": "n", "items": [], "extra": 4, "_unknown_tagged_fields": [(3, b"")]}, 1)
    assert "collides with known field extra" in info.value.reason
    # while the known field is not written, an unknown field may carry its tag (bytes that did not fit it)
    unwritten = {"name": "n", "items": [], "extra": -1, "_unknown_tagged_fields": [(3, b"")]}
    assert PROBE_FMT.encode(unwritten, 1).hex() == "026e" + "01" + "01" + "0300"


# ---------------------------------------------------------------- every golden vector, cut short
JAVA = [c for c in golden_cases("java/consumer-protocol.jsonl") if not c.get("decodeOnly")]


@pytest.mark.skipif(not JAVA, reason=SHARED_REASON)
def test_every_prefix_of_every_vector_is_a_decode_error():
    for case in JAVA:
        data = bytes.fromhex(case["hex"])
        for cut in range(len(data)):
            with pytest.raises(km.DecodeError) as info:
                km.decode(case["type"], data[:cut])
            assert info.value.offset is not None and info.value.offset <= cut


# ---------------------------------------------------------------- the fast reader agrees with the reference
def mutate(data: bytes, draw) -> bytes:
    """``data`` with one kind of damage (for other tests' hypothesis draws)."""
    return draw(damaged(data))


AGREEMENT = versioned(registered_formats()) + versioned([PROBE_FMT]) + versioned(upstream_formats())[::3]


@pytest.mark.parametrize("pair", AGREEMENT, ids=ids)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_fast_reader_agrees_with_reference_on_damaged_input(pair, data):
    fmt, version = pair
    good = fmt.encode(data.draw(values_for(fmt.construct(version))), version)
    damaged_bytes = data.draw(damaged(good))
    for strict in (False, True):
        assert read_both(fmt, damaged_bytes, version, strict) == []
        try:
            fmt.header(damaged_bytes, version, strict)
        except km.DecodeError:
            continue
        try:
            fmt.decode(damaged_bytes, version=version, strict=strict)
        except km.DecodeError as e:
            assert e.type_name == fmt.name and e.offset is not None


def test_a_nan_read_by_both_paths_is_agreement():
    """A damaged float64 often reads as a NaN; both paths reading the same NaN is no disagreement."""
    fmt = next(f for f in registered_formats() if f.name == "ClientQuotaRecord")
    data = b"\x01\x01\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    for strict in (False, True):
        assert read_both(fmt, data, 0, strict) == []


def test_values_differing_in_a_float_bit_or_a_type_are_not_the_same():
    assert same({"v": [float("nan")]}, {"v": [float("nan")]})
    assert not same({"v": 0.0}, {"v": -0.0})
    assert not same({"v": 1}, {"v": True})
    assert not same({"v": [1]}, {"v": (1,)})
