"""kafka_meta.log on segments real clients wrote: every record agrees with kafka-python's own reader."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from kafka.record import MemoryRecords
from log_support import LOGS, SAMPLE, SEGMENTS, sample_pairs

from kafka_meta.log import Batch, LogError, LogSummary, Record, SegmentDamage, find_segments, read_events, read_log
from kafka_meta.log.compression import lz4_frame
from kafka_meta.log.segment import read_segment
from kafka_meta.offsets import decode_record
from kafka_meta.offsets.records import ControlRecord, CoordinatorRecord, UnknownRecord


def kafka_python_view(data: bytes) -> tuple[list[tuple], list[int]]:
    """kafka-python's records of a segment (those of batches whose CRC holds) and the offsets it rejects."""
    records, rejected = [], []
    batches = MemoryRecords(data)
    while (batch := batches.next_batch()) is not None:
        if not batch.validate_crc():
            rejected.append(batch.base_offset)
            continue
        for r in batch:
            ts_type = -1 if r.timestamp_type is None else r.timestamp_type
            headers = [(k, v) for k, v in (r.headers or [])]
            timestamp = -1 if r.timestamp is None else r.timestamp
            records.append((r.offset, timestamp, ts_type, r.key, r.value, headers))
    return records, rejected


@pytest.mark.parametrize("path", SEGMENTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_record_agrees_with_kafka_python(path):
    data = path.read_bytes()
    expected, rejected = kafka_python_view(data)
    events = list(read_segment(data))
    ours = [(r.offset, r.timestamp, r.timestamp_type, r.key, r.value, r.headers)
            for r in events if isinstance(r, Record)]
    assert ours == expected and len(ours) > 0
    damage = [d for d in events if isinstance(d, SegmentDamage)]
    assert [d.first_offset for d in damage] == rejected
    assert all(d.kind == "crc" for d in damage)


def test_every_payload_is_a_real_offsets_record():
    pairs = sample_pairs()
    for row in read_log(LOGS):
        if row["_error"] is None and not row["control"]:
            assert (row["key"], row["value"]) in pairs
            record = decode_record(row["key"], row["value"])
            assert isinstance(record, (CoordinatorRecord, UnknownRecord))


def test_every_magic_and_codec():
    by_partition: dict[int, LogSummary] = {}
    for segment, event in read_events(LOGS):
        by_partition.setdefault(segment.partition, LogSummary()).add(event)
    assert set(by_partition[0].codecs) == {"none", "gzip", "snappy", "lz4", "zstd"}
    assert set(by_partition[3].codecs) == {"none", "gzip", "snappy", "lz4", "zstd"}  # librdkafka's
    assert set(by_partition[1].codecs) == {"none", "gzip", "snappy", "lz4"} == set(by_partition[2].codecs)
    assert [set(by_partition[p].magics) for p in range(4)] == [{2}, {1}, {0}, {2}]
    assert by_partition[0].markers == Counter({"commit": 1, "abort": 1})
    payloads = sum(1 for line in SAMPLE.read_text().splitlines() if '"control": true' not in line)
    assert [by_partition[p].records for p in range(4)] == [payloads, payloads, payloads, 36]
    assert by_partition[3].damage == 2  # the mock broker's markers, whose CRC it leaves at zero


def test_snappy_framings_and_old_lz4_checksum():
    """kafka-python frames snappy as Java's xerial stream, librdkafka writes raw snappy; magic 0 lz4 frames
    carry the wrong header checksum Kafka's first writer computed, which a standard reader refuses."""
    import cramjam

    framings = {}
    for path in (LOGS / "__consumer_offsets-0" / "00000000000000000000.log",
                 LOGS / "__consumer_offsets-3" / "00000000000000000000.log"):
        data = path.read_bytes()
        batches = MemoryRecords(data)
        while (batch := batches.next_batch()) is not None:
            if batch.compression_type == 2:
                framings[path.parent.name] = bytes(batch._buffer[61:69])
    assert framings["__consumer_offsets-0"] == b"\x82SNAPPY\x00"
    assert framings["__consumer_offsets-3"] != b"\x82SNAPPY\x00"
    old = (LOGS / "__consumer_offsets-2" / "00000000000000000000.log").read_bytes()
    lz4 = [e for e in read_segment(old) if isinstance(e, Batch) and e.codec_name == "lz4"]
    assert lz4 and all(b.count == 4 for b in lz4)
    start = lz4[0].position + 26  # offset, size, crc, magic, attributes, key length (-1), value length
    frame = old[start:lz4[0].position + lz4[0].size]
    with pytest.raises(cramjam.DecompressionError):
        cramjam.lz4.decompress(frame)
    assert len(bytes(cramjam.lz4.decompress(lz4_frame(frame, 0)))) > 0


def test_control_batches_are_markers_not_records():
    events = [(s, e) for s, e in read_events(LOGS / "__consumer_offsets-0")]
    markers = [e for _, e in events if isinstance(e, Record) and e.control]
    assert [m.offset for m in markers] == [24, 29]
    kinds = [decode_record(m.key, m.value, control=True) for m in markers]
    assert all(isinstance(k, ControlRecord) for k in kinds)
    assert [k.marker for k in kinds] == ["COMMIT", "ABORT"]
    control_batches = [e for _, e in events if isinstance(e, Batch) and e.control]
    assert all(b.transactional and b.producer_id == 4000 and b.producer_epoch == 3 for b in control_batches)
    transactional = [e for _, e in events if isinstance(e, Batch) and e.transactional and not e.control]
    assert [(b.base_offset, b.base_sequence) for b in transactional] == [(20, 0), (25, 4)]


def test_rows_shaped_like_the_kafka_source():
    rows = list(read_log(LOGS / "__consumer_offsets-0"))
    assert set(rows[0]) == {"topic", "partition", "offset", "timestamp", "timestampType", "key", "value",
                            "headers", "control", "producerId", "transaction", "_error"}
    assert {(r["topic"], r["partition"]) for r in rows} == {("__consumer_offsets", 0)}
    offsets = [r["offset"] for r in rows]
    assert offsets == list(range(len(rows)))  # two segments, read in offset order, no gap
    with_headers = [r for r in rows if r["headers"]]
    assert with_headers and with_headers[0]["headers"][0] == {"key": "source", "value": b"fixture"}


def test_legacy_offsets_and_timestamps():
    rows = list(read_log(LOGS / "__consumer_offsets-1"))
    assert [r["offset"] for r in rows] == list(range(len(rows)))  # magic 1 inner relative offsets made absolute
    assert all(r["timestampType"] == 0 and r["timestamp"] > 0 for r in rows)
    rows = list(read_log(LOGS / "__consumer_offsets-2"))
    assert [r["offset"] for r in rows] == list(range(len(rows)))
    assert all(r["timestampType"] == -1 and r["timestamp"] == -1 for r in rows)


def test_from_offset_and_segment_order():
    segments = find_segments(LOGS)
    assert [(s.partition, s.base_offset) for s in segments] == [(0, 0), (0, 20), (1, 0), (2, 0), (3, 0)]
    rows = list(read_log(LOGS / "__consumer_offsets-0", from_offset=22))
    assert rows[0]["offset"] == 22 and len(rows) == 39 - 22


def test_a_directory_without_segments(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here")
    with pytest.raises(LogError, match="no log segments"):
        list(read_log(tmp_path))
    with pytest.raises(LogError, match="no such file"):
        list(read_log(tmp_path / "missing"))


def test_log_append_time_as_a_broker_stamps_it():
    """A broker on LogAppendTime sets the timestamp-type attribute and its own time (the batch's max
    timestamp; a magic 1 wrapper's timestamp) and recomputes the CRC; consumers then see that time on every
    record. Done here to kafka-python's batches, and checked against kafka-python's reader."""
    import struct
    import zlib

    from log_support import entries, recrc

    stamp = 1800000000123
    v2 = bytearray((LOGS / "__consumer_offsets-0" / "00000000000000000000.log").read_bytes())
    for pos, _ in entries(bytes(v2)):
        struct.pack_into(">h", v2, pos + 21, struct.unpack_from(">h", v2, pos + 21)[0] | 0x08)
        struct.pack_into(">q", v2, pos + 35, stamp)
        recrc(v2, pos)
    v1 = bytearray((LOGS / "__consumer_offsets-1" / "00000000000000000000.log").read_bytes())
    for pos, size in entries(bytes(v1)):
        if v1[pos + 17] & 0x07:  # compressed wrappers only: inner messages keep their own attributes
            v1[pos + 17] |= 0x08
            struct.pack_into(">q", v1, pos + 18, stamp)
            struct.pack_into(">I", v1, pos + 12, zlib.crc32(bytes(v1[pos + 16:pos + size])))
    for data in (bytes(v2), bytes(v1)):
        expected, rejected = kafka_python_view(data)
        ours = [(r.offset, r.timestamp, r.timestamp_type, r.key, r.value, r.headers)
                for r in read_segment(data) if isinstance(r, Record)]
        assert ours == expected and not rejected
        stamped = [r for r in ours if r[2] == 1]
        assert stamped and all(r[1] == stamp for r in stamped)


def test_segment_bytes_in_memory_give_read_logs_rows():
    from kafka_meta.log import PartitionScan, SegmentReader, segment_rows

    segments = find_segments(LOGS)
    assert len(segments) > 1
    for segment in segments:
        data = Path(segment.path).read_bytes()
        scan = PartitionScan(segment.topic, segment.partition)
        scan.add_segment(data)  # the markers, from the same bytes
        rows = list(segment_rows(segment, SegmentReader().batches(data), scan.outcomes))
        assert rows == list(read_log(segment.path))
