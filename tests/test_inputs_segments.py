"""The one way every face finds log segments among the paths it is given (kafka_meta.inputs.segments_of): told
by content, what is refused said with its kind."""

from __future__ import annotations

from pathlib import Path

from kafka_meta.inputs import CAPTURE, EMPTY, NO_SUCH, segments_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LOGS = FIXTURES / "log" / "kafka-logs"
CAPTURE_FILE = FIXTURES / "captures" / "pcap" / "cfk_coop.pcapng"


def test_a_log_directory_gives_every_partitions_segments_in_order():
    segments, refused = segments_of([str(LOGS)])
    assert segments and not refused
    assert {s.topic for s in segments} >= {"__consumer_offsets"}
    keys = [(s.topic or "", s.partition or 0, s.base_offset or -1) for s in segments]
    assert keys == sorted(keys)


def test_what_is_no_segment_is_refused_saying_what_it_is(tmp_path):
    empty = tmp_path / "00000000000000000000.log"
    empty.touch()
    damaged = tmp_path / "damaged.log"
    damaged.write_bytes(b"\x07" * 100)  # no kind claims it: named outright, it is a segment damaged from byte 0
    segments, refused = segments_of([str(CAPTURE_FILE), str(empty), str(tmp_path / "missing"), str(damaged)])
    assert [s.path for s in segments] == [str(damaged)]
    assert (refused[0].path, refused[0].kind) == (str(CAPTURE_FILE), CAPTURE)
    assert "not log segments" in refused[0].reason
    assert [r.reason for r in refused[1:]] == [EMPTY, NO_SUCH]
