"""No input decides how much work is cached: every version newer than known shares one generated codec,
and what is kept per input value is bounded. Measured by counts and by tracemalloc, never by time."""

from __future__ import annotations

import tracemalloc

import kafka_meta as km
from kafka_meta.codec import dispatch
from kafka_meta.wire.runtime import uvarint_bytes

VERSIONS = 10_000
TOPOLOGY = "StreamsGroupTopologyValue"  # an __consumer_offsets value: read KIP-915 style, any newer version


def compiled(fmt) -> int:
    return sum(len(table) for table in fmt._codecs.values())


def growth(read, first: range, rest: range) -> tuple[int, int]:
    """Bytes still allocated after reading ``first`` (the warm-up: codecs compiled once), then after ``rest``."""
    for v in first:
        read(v)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for v in rest:
            read(v)
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return before, after


def test_ten_thousand_newer_versions_share_one_decoder_and_leave_memory_flat():
    fmt = km.get_format(TOPOLOGY)
    newest = fmt.versions.high
    body = km.encode(km.model(TOPOLOGY)(), newest)[2:]

    def read(version: int) -> None:
        data = version.to_bytes(2, "big") + body
        message = km.decode(TOPOLOGY, data)
        assert message.version == version and message.read_forward
        assert km.decode_plain(TOPOLOGY, data)[1] == version
        assert km.encode(message) == data

    known = compiled(fmt)
    start = newest + 1
    before, after = growth(read, range(start, start + 100), range(start + 100, start + VERSIONS))
    assert after - before < 256 * 1024, f"{(after - before) // 1024} KiB kept by {VERSIONS - 100} new versions"
    # one codec per (direction, mode) for all of them, beside those of the known versions
    assert compiled(fmt) - known <= len(fmt._codecs)
    assert len(fmt.builder._built) <= fmt.versions.high - fmt.versions.low + 2
    for typed in (False, True):
        assert fmt.decoder(start, typed) is fmt.decoder(start + VERSIONS - 1, typed)
        assert fmt.encoder(start, typed) is fmt.encoder(start + VERSIONS - 1, typed)


def test_metadata_records_of_ten_thousand_versions_keep_a_bounded_table():
    """The metadata-log frame chooses its body by apiKey and version read from the input: the dispatch keeps
    a bounded number of them at hand, and the bodies' format shares one decoder for the newer versions."""
    frame = bytes.fromhex("010c00116d657461646174612e76657273696f6e001500")
    body = frame[3:]
    feature = km.get_format("FeatureLevelRecord")

    def read(version: int) -> None:
        record = km.decode("MetadataRecord", frame[:2] + uvarint_bytes(version) + body)
        assert record.record_version == version and record.record.feature_level == 21

    before, after = growth(read, range(1, 101), range(101, VERSIONS))
    assert after - before < 512 * 1024, f"{(after - before) // 1024} KiB kept by {VERSIONS - 100} new versions"
    assert compiled(feature) <= 2 * len(feature._codecs)  # v0 and the shared newer one, per table
    dispatch_construct = km.get_format("MetadataRecord").construct(1).members[-1].con
    assert isinstance(dispatch_construct, dispatch.Dispatch) and dispatch_construct.remembered
    assert all(len(table) <= dispatch.MAX_REMEMBERED for table in dispatch_construct.remembered)
