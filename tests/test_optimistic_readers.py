"""decode and decode_plain first try an optimistic reader (one generated call that refuses more than lenient
reading does, through cheaper code), then the careful path. The optimistic reader may fail where the careful path
reads, never the converse, and what it reads is exactly what the careful path reads: same values, same classes,
same private state. Errors stay the careful path's."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from formats import ids, registered_formats, upstream_formats, versioned
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kafka_meta as km
from kafka_meta.codec.format import MessageFormat, SpecFormat
from kafka_meta.codec.framing import Unframed
from kafka_meta.spec import load_spec_text
from kafka_meta.testing.agreement import damaged
from kafka_meta.testing.strategies import values_for
from kafka_meta.wire import runtime

SUB = "ConsumerProtocolSubscription"

# a flexible spec of our own: a tagged string inside an array of structs, read on trial when read leniently
NOTES = SpecFormat(load_spec_text("""{
  "type": "data", "name": "Notes", "validVersions": "0-1", "flexibleVersions": "1+",
  "fields": [
    { "name": "Name", "type": "string", "versions": "0+" },
    { "name": "Items", "type": "[]Item", "versions": "0+", "fields": [
        { "name": "Id", "type": "int32", "versions": "0+" },
        { "name": "Note", "type": "string", "versions": "1+", "nullableVersions": "1+", "default": "null",
          "taggedVersions": "1+", "tag": 0 } ]},
    { "name": "Counts", "type": "[]int32", "versions": "0+" }
  ]
}"""), Unframed(), name="Notes")

FAILED = object()


def careful(fmt: MessageFormat, data: bytes, version: int | None, typed: bool) -> Any:
    """What the careful path alone gives: (plain value, wire version, trailing count), a typed message with its
    version and trailing bytes, None for a version probe, or FAILED."""
    try:
        header = fmt.header(data, version, False)
        if header.layout_version is None:
            return None
        value, end = fmt.decode_body(data, header, typed, False)
    except km.DecodeError:
        return FAILED
    if end != len(data) and fmt.refuses_trailing(False):
        return FAILED
    if not typed:
        return value, header.wire_version, len(data) - end
    value.version = header.wire_version
    value.__pydantic_private__["_trailing"] = data[end:]
    return value


def optimistic(fmt: MessageFormat, data: bytes, version: int | None, typed: bool) -> Any:
    try:
        return fmt._reader(typed, version)(data)
    except Exception:  # noqa: BLE001 - it may refuse anything: the careful path reads it then
        return FAILED


def same(fast: Any, slow: Any, typed: bool) -> bool:
    """Equal, down to float signs and NaNs (repr), classes and private state."""
    if typed:
        return (type(fast) is type(slow) and repr(fast) == repr(slow)
                and repr(fast.__pydantic_private__) == repr(slow.__pydantic_private__))
    return repr(fast) == repr(slow)


def agree(fmt: MessageFormat, data: bytes, version: int | None) -> None:
    for typed in (False, True):
        fast, slow = optimistic(fmt, data, version, typed), careful(fmt, data, version, typed)
        if fast is not FAILED:
            assert slow is not FAILED, f"the optimistic reader read what the careful path refuses: {fast!r}"
            assert same(fast, slow, typed), f"optimistic {fast!r}, careful {slow!r}"


FORMATS = versioned(registered_formats()) + versioned([NOTES]) + versioned(upstream_formats())[1::3]


@pytest.mark.parametrize("pair", FORMATS, ids=ids)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_the_optimistic_readers_read_what_the_careful_path_reads_or_refuse(pair, data):
    fmt, version = pair
    good = fmt.encode(data.draw(values_for(fmt.construct(version))), version)
    asked = version if fmt.framing.owns_body_field or isinstance(fmt.framing, Unframed) else None
    agree(fmt, good, asked)
    assert optimistic(fmt, good, asked, True) is not FAILED or careful(fmt, good, asked, True) is FAILED
    agree(fmt, data.draw(damaged(good)), asked)


def subscription(topics: list[bytes], partitions: int = 3, tail: bytes = b"") -> bytes:
    """A ConsumerProtocolSubscription v1 whose topic names are the given bytes (valid UTF-8 or not)."""
    out = bytearray(b"\x00\x01") + struct.pack(">i", len(topics))
    for name in topics:
        out += struct.pack(">h", len(name)) + name
    out += struct.pack(">i", 2) + b"ud" + struct.pack(">i", len(topics))
    for name in topics:
        out += struct.pack(">h", len(name)) + name + struct.pack(">i", partitions)
        out += b"".join(struct.pack(">i", p) for p in range(max(partitions, 0)))
    return bytes(out) + tail


def test_invalid_utf8_reads_as_kafka_reads_it_though_the_optimistic_reader_refuses_it():
    data = subscription([b"ok", b"\xc3(", b"\xed\xa0\x80a\xed"])
    fmt = km.get_format(SUB)
    assert optimistic(fmt, data, None, True) is FAILED
    message = km.decode(SUB, data)
    assert message.topics == ["ok", "\ufffd(", "\ufffda\ufffd"]
    assert [g.topic for g in message.owned_partitions] == message.topics
    assert same(message, careful(fmt, data, None, True), typed=True)
    assert km.decode_plain(SUB, data)[0]["topics"] == message.topics
    assert km.encode(message) == subscription([b"ok", "\ufffd(".encode(), "\ufffda\ufffd".encode()])


def test_a_tagged_string_read_on_trial_is_read_as_the_careful_path_reads_it():
    """A known tagged field is read on trial (a misfit is kept as unknown bytes): there invalid UTF-8 must read as
    Java reads it, not count as a misfit."""
    data = bytes.fromhex("026e" + "02" + "00000001" + "01" + "0002" + "02ff" + "01" + "00")
    message = NOTES.decode(data, version=1)
    item = message.items[0]
    assert (item.note, item.unknown_tagged_fields) == ("\ufffd", [])
    assert NOTES.decode_plain(data, version=1)[0]["items"][0]["note"] == "\ufffd"
    agree(NOTES, data, 1)


@pytest.mark.parametrize(("cut", "path"), [(19, "ownedPartitions[2].topic"), (4, "ownedPartitions[2].partitions")])
def test_a_value_running_past_the_end_is_the_careful_paths_error(cut, path):
    data = subscription([b"alpha", b"beta", b"gamma"])[:-cut]  # the last topic name, or partition, cut short
    fmt = km.get_format(SUB)
    with pytest.raises(km.DecodeError) as reference:
        fmt.decode_body(data, fmt.header(data), True, False)
    for decode in (km.decode, km.decode_plain):
        with pytest.raises(km.DecodeError) as info:
            decode(SUB, data)
        assert (info.value.path, info.value.offset, info.value.reason) == (
            reference.value.path, reference.value.offset, reference.value.reason)
    assert reference.value.path == path


def test_a_last_string_past_the_end_is_refused():
    """The optimistic reader checks strings against the end once, before it returns."""
    sub = km.model(SUB)(topics=["t"], rack_id="rack")
    data = km.encode(sub, 3)[:-2]
    assert optimistic(km.get_format(SUB), data, None, False) is FAILED
    with pytest.raises(km.DecodeError) as info:
        km.decode(SUB, data)
    assert info.value.path == "rackId" and "exceeds the 2 bytes left" in info.value.reason


@pytest.mark.parametrize("count", [-1, -2, 2**31 - 1, 3])
def test_a_lying_count_of_numbers_is_the_careful_paths_error(count):
    """The optimistic reader leaves a number array's count to the unpacker; the error is the careful path's."""
    data = subscription([b"t"], partitions=0)[:-4] + struct.pack(">3i", count, 7, 8)  # two numbers follow
    for decode in (km.decode, km.decode_plain):
        with pytest.raises(km.DecodeError) as info:
            decode(SUB, data)
        assert info.value.path == "ownedPartitions[0].partitions" and info.value.offset == len(data) - 12
    assert optimistic(km.get_format(SUB), data, None, True) is FAILED


def test_trailing_bytes_are_kept_with_the_message():
    data = subscription([b"t"], tail=b"\x01\x02")
    message = km.decode(SUB, data)
    assert (message.version, message.unknown_trailing) == (1, b"\x01\x02")
    assert km.decode_plain(SUB, data) == (careful(km.get_format(SUB), data, None, False)[0], 1)
    assert km.encode(message) == data


def test_the_unpackers_kept_for_number_arrays_are_bounded():
    for count in range(0, 3 * runtime.CACHED_ARRAY_COUNTS, 7):
        message = km.decode(SUB, subscription([b"t"], partitions=count))
        assert message.owned_partitions[0].partitions == list(range(count))
    kept = runtime.fixed_array_readers("i")
    assert kept and all(0 <= n < runtime.CACHED_ARRAY_COUNTS for n in kept)


def test_versions_asked_for_outside_the_known_ones_compile_no_reader():
    fmt = NOTES
    data = NOTES.encode({"name": "n", "items": [], "counts": [1]}, 0)
    before = dict(fmt._typed_readers)
    for version in (2, 3, 40_000, -1, True, "1"):
        with pytest.raises(km.DecodeError):
            fmt.decode(data, version=version)
    assert fmt._typed_readers.keys() == before.keys()
    assert fmt.decode(data, version=0).counts == [1]
