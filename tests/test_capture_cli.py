"""kafka-meta capture: JSON Lines with Kafka's names and base64 bytes, filters, summaries, bad files."""

from __future__ import annotations

import base64
import json

from capture_support import FIXTURES, as_json, exchanges, read_packets
from cli_support import run

import kafka_meta as km

STORM = FIXTURES / "cfk_storm.pcap"
HEARTBEATS = FIXTURES / "cfk_consumer_protocol.pcapng"


def test_every_exchange_as_json(capsys):
    code, lines, err = run(capsys, ["capture", str(STORM)])
    want = exchanges(STORM)
    assert code == 0 and len(lines) == len(want)
    assert lines == [as_json(e) for e in want]
    packets = len(read_packets(STORM))
    assert err.count("\n") == 1 and f"{STORM}: {packets} packets" in err and f"{len(want)} exchanges, 0 problems" in err


def test_filters_and_nested_bytes_as_base64(capsys):
    code, lines, _ = run(capsys, ["capture", str(STORM), "--api", "JoinGroup,14", "--group", "g-cfk-storm"])
    assert code == 0 and lines and {e["apiName"] for e in lines} == {"JoinGroup", "SyncGroup"}
    assert {e["groupId"] for e in lines} == {"g-cfk-storm"}
    sync = next(e for e in lines if e["apiName"] == "SyncGroup" and e["errorCode"] == 0)
    assignment = sync["response"]["assignment"]
    assert assignment["_type"] == "ConsumerProtocolAssignment" and assignment["userData"] == ""
    raw = next(e for e in exchanges(STORM) if e["apiName"] == "SyncGroup" and e["correlationId"] ==
               sync["correlationId"] and e["client"] == sync["client"])
    assert raw["response"]["assignment"]["assignedPartitions"] == assignment["assignedPartitions"]


def test_uuids_in_kafka_text(capsys):
    _, lines, _ = run(capsys, ["capture", str(HEARTBEATS), "--api", "ConsumerGroupHeartbeat"])
    ids = [t["topicId"] for e in lines if e["response"]["assignment"] for t in e["response"]["assignment"]
           ["topicPartitions"]]
    assert ids and all(len(base64.urlsafe_b64decode(i + "==")) == 16 for i in ids)
    assert km.decode  # the same text form kafka-meta decode prints for uuids


def test_ports(capsys):
    _, everything, _ = run(capsys, ["capture", str(STORM)])
    port = everything[0]["broker"].rsplit(":", 1)[1]
    _, lines, _ = run(capsys, ["capture", str(STORM), "--port", port])
    assert lines == everything
    _, lines, err = run(capsys, ["capture", str(STORM), "--port", "1"])
    assert lines == []  # and the user is told where Kafka is
    assert f"no Kafka on port 1; its brokers answer on port {port} (--port {port}" in err


def test_bad_files_and_damage(capsys, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a capture")
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(STORM.read_bytes()[:-100])
    code, lines, err = run(capsys, ["capture", str(text), str(cut)])
    assert code == 1
    assert f"{text}: not a pcap or pcapng capture" in err
    assert f"{cut}: container: packet {record_at(cut.read_bytes())}, byte" in err
    assert "file ends inside a packet record" in err
    assert len(lines) == len(exchanges(STORM)) and "Traceback" not in err


def record_at(data: bytes) -> int:
    """The number of the pcap record a (little-endian) pcap file ends inside."""
    import struct

    at, number = 24, 0
    while at + 16 <= len(data):
        number += 1
        at += 16 + struct.unpack_from("<I", data, at + 8)[0]
    return number


def test_unknown_api(capsys):
    code, lines, err = run(capsys, ["capture", str(STORM), "--api", "Rebalance"])
    assert code == 2 and not lines and "unknown api 'Rebalance'" in err


def test_progress_on_big_files(capsys, monkeypatch):
    from kafka_meta.cli.commands import capture

    monkeypatch.setattr(capture, "PROGRESS_FROM", 0)
    monkeypatch.setattr(capture, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr("kafka_meta.capture.files.CHUNK", 16384)
    code, lines, err = run(capsys, ["capture", str(STORM)])
    progress = [line for line in err.splitlines() if "% (" in line]
    assert code == 0 and lines and len(progress) >= 3
    assert progress[-1].startswith(f"{STORM}: 100% (")


def test_api_filter_decodes_only_what_it_prints(capsys):
    from kafka_meta.capture import Summary, iter_capture

    summary = Summary()
    only = [e.to_dict() for e in iter_capture(STORM, apis={14}, summary=summary)]
    assert {e["apiName"] for e in only} == {"SyncGroup", "JoinGroup"}  # JoinGroup: the protocol of the syncs
    assert summary.requests == len(exchanges(STORM)) and summary.exchanges == len(only)
    full = [e for e in exchanges(STORM) if e["apiName"] in ("SyncGroup", "JoinGroup")]
    assert only == full
    _, lines, _ = run(capsys, ["capture", str(STORM), "--api", "SyncGroup"])
    assert lines == [as_json(e) for e in full if e["apiName"] == "SyncGroup"]


def test_capture_piped_to_stdin():
    """``tcpdump -w - | kafka-meta capture -``: a pipe cannot seek back, gzip or not."""
    import gzip
    import os
    import subprocess
    import sys

    from capture_support import ROOT

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    want = [as_json(e) for e in exchanges(HEARTBEATS)]
    for data in (HEARTBEATS.read_bytes(), gzip.compress(HEARTBEATS.read_bytes())):
        result = subprocess.run([sys.executable, "-m", "kafka_meta.cli.main", "capture", "-"], input=data,
                                capture_output=True, env=env, timeout=120, check=True)
        got = [json.loads(line) for line in result.stdout.splitlines()]
        assert [{k: v for k, v in e.items() if k != "source"} for e in got] == \
            [{k: v for k, v in e.items() if k != "source"} for e in want]
        assert {e["source"]["file"] for e in got} == {"<stdin>"}
