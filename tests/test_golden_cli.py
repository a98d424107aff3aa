"""kafka-meta golden add / verify, and the store behind them."""

from __future__ import annotations

import json

import pytest
from test_cli import run
from test_golden_corpus import CORPUS

from kafka_meta.golden import GoldenError, add_from_bytes, add_from_json, subject_for
from kafka_meta.golden.subjects import CaseBytes

V1 = "0001000000010003666f6fffffffff00000000"


def test_add_from_json_on_stdin_then_verify(capsys, monkeypatch, tmp_path):
    code, out, _ = run(capsys, monkeypatch, ["golden", "add", "ConsumerProtocolSubscription", "--version", "3",
                                             "--name", "rack", "--dir", str(tmp_path), "--note", "a rack id"],
                       stdin=json.dumps({"topics": ["a"], "rackId": "r1"}).encode())
    assert code == 0
    case_dir = tmp_path / "ConsumerProtocolSubscription" / "v3"
    assert out.split() == [str(case_dir / "rack.json"), str(case_dir / "rack.bin")]
    doc = json.loads((case_dir / "rack.json").read_text())
    assert doc["data"]["generationId"] == -1 and doc["note"] == "a rack id"  # defaults written out
    assert (case_dir / "rack.bin").read_bytes().hex() == "0003" "00000001" "000161" "ffffffff" "00000000" "ffffffff" \
                                                         "00027231"
    code, out, _ = run(capsys, monkeypatch, ["golden", "verify", str(tmp_path)])
    assert code == 0 and out.splitlines()[-1] == "1 cases, 0 failed"


def test_add_from_bytes_infers_the_version(capsys, monkeypatch, tmp_path):
    code, _, _ = run(capsys, monkeypatch, ["golden", "add", "ConsumerProtocolSubscription", "--name", "b",
                                           "--dir", str(tmp_path), "--hex", V1])
    assert code == 0 and (tmp_path / "ConsumerProtocolSubscription" / "v1" / "b.bin").read_bytes().hex() == V1
    code, _, err = run(capsys, monkeypatch, ["golden", "add", "ConsumerProtocolSubscription", "--name", "c",
                                             "--version", "2", "--dir", str(tmp_path), "--hex", V1])
    assert code == 1 and "the bytes carry version 1, not 2" in err


def test_bytes_that_do_not_round_trip_need_decode_only(tmp_path):
    subject = subject_for("ConsumerProtocolSubscription")
    # a newer version: the v3 layout, then bytes the reader keeps as unknown trailing ones; round-trips
    future = bytes.fromhex("0009" "00000001" "000161" "ffffffff" "00000000" "ffffffff" "00027231" "0102")
    assert add_from_bytes(tmp_path, subject, "future", CaseBytes(future)).version == 9
    empty = bytes.fromhex("0000" "00000001" "0003666f6f" "00000000")  # v0, empty (not null) user data
    assert add_from_bytes(tmp_path, subject, "empty", CaseBytes(empty)).version == 0
    with pytest.raises(ValueError, match="case name"):
        add_from_bytes(tmp_path, subject, "bad/name", CaseBytes(empty))
    with pytest.raises(GoldenError, match="say which version"):
        add_from_json(tmp_path, subject, "x", {"topics": []})


def test_verify_json_output_and_exit_status(capsys, monkeypatch, tmp_path):
    code, out, _ = run(capsys, monkeypatch, ["golden", "verify", str(CORPUS), "--format", "json"])
    doc = json.loads(out)
    assert code == 0 and doc["ok"] and doc["failed"] == [] and doc["cases"] > 100
    subject = subject_for("ConsumerProtocolAssignment")
    case = add_from_bytes(tmp_path, subject, "x", CaseBytes(bytes.fromhex("0000" "00000000" "ffffffff")))
    case.body_path.write_bytes(bytes.fromhex("0000" "00000000" "00000000"))
    code, out, _ = run(capsys, monkeypatch, ["golden", "verify", str(tmp_path), "-q"])
    assert code == 1
    assert out.splitlines() == [
        "ConsumerProtocolAssignment/v0/x: FAILED",
        '  decoded bytes differ from the .json: data.userData: expected None, got ""',
        "  encoding the .json gives other message bytes: first difference at byte 6; lengths 10 (expected) vs 10 "
        "(got); expected ...00 00 00 00 00 00 00 00..., got ...00 00 00 00 ff ff ff ff... (from byte 2)",
        '    field that differs: data.userData: expected "", got None',
        "1 cases, 1 failed",
    ]
    code, out, err = run(capsys, monkeypatch, ["golden", "verify", str(tmp_path / "nothing")])
    assert code == 2 and out == "" and err.endswith("nothing: no such directory\n")


def test_add_a_record_and_its_tombstone_from_bytes(capsys, monkeypatch, tmp_path):
    key = "0001" "000167" "000174" "00000003"  # OffsetCommit key: record type 1, group g, topic t, partition 3
    value = "0003" "000000000000002a" "00000005" "0000" "0000018bcfe56800"
    code, out, _ = run(capsys, monkeypatch, ["golden", "add", "OffsetCommit", "--name", "c", "--dir", str(tmp_path),
                                             "--key-hex", key, "--hex", value])
    assert code == 0 and len(out.split()) == 3
    doc = json.loads((tmp_path / "OffsetCommit" / "v3" / "c.json").read_text())
    assert doc["key"] == {"group": "g", "topic": "t", "partition": 3} and doc["value"]["leaderEpoch"] == 5
    code, out, _ = run(capsys, monkeypatch, ["golden", "add", "OffsetCommit", "--name", "gone", "--dir",
                                             str(tmp_path), "--key-hex", key])
    assert code == 0 and [p.split("/")[-2:] for p in out.split()] == [["tombstone", "gone.json"],
                                                                      ["tombstone", "gone.key.bin"]]
    code, out, _ = run(capsys, monkeypatch, ["golden", "verify", str(tmp_path), "-q"])
    assert code == 0 and out.strip() == "2 cases, 0 failed"
