"""``kafka-meta offsets``: JSON Lines in, one decoded object per record out, a summary on stderr."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from cli_support import run

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "offsets" / "sample.jsonl"


def test_whole_sample(capsys):
    code, rows, err = run(capsys, ["offsets", str(SAMPLE)])
    assert code == 0 and len(rows) == len(SAMPLE.read_text().splitlines())
    names = {r.get("record") for r in rows}
    assert {"OffsetCommit", "GroupMetadata", "ConsumerGroupMemberMetadata", "StreamsGroupTopology",
            "ShareGroupStatePartitionMetadata", "ShareGroupPartitionMetadata"} <= names
    assert rows[0]["partition"] == 7 and rows[0]["offset"] == 0 and "timestamp" in rows[0]
    assert any(r.get("unknown") for r in rows) and any(r.get("control") for r in rows)
    assert any(r.get("readForward") for r in rows) and any(r.get("retired") for r in rows)
    assert "unknown 1" in err and "control 1" in err and "read-forward 1" in err and "errors 0" in err


def test_nested_members_and_raw(capsys):
    _, rows, _ = run(capsys, ["offsets", str(SAMPLE), "--group", "ledger", "--type", "GroupMetadata", "--raw"])
    assert len(rows) == 1
    member = rows[0]["value"]["members"][0]
    assert member["subscription"]["userData"]["type"] == "StickyAssignorUserData"
    assert member["subscription"]["userData"]["generation"] == 3
    raw = base64.b64decode(member["subscriptionRaw"])
    assert raw[:2] == b"\x00\x00" and member["assignment"]["assignedPartitions"][0]["topic"] == "ledger"


def test_filters(capsys):
    _, rows, _ = run(capsys, ["offsets", str(SAMPLE), "--type", "1,unknown"])
    assert {r.get("record", "unknown") for r in rows} == {"OffsetCommit", "unknown"}
    _, rows, _ = run(capsys, ["offsets", str(SAMPLE), "--group", "checkout"])
    assert rows and all(r["key"]["groupId"] == "checkout" for r in rows)
    code, _, err = run(capsys, ["offsets", str(SAMPLE), "--type", "Nope"])
    assert code == 2 and "unknown record type 'Nope'" in err


def test_strict_makes_unknown_and_newer_records_errors(capsys):
    code, rows, err = run(capsys, ["offsets", str(SAMPLE), "--strict"])
    errors = [r for r in rows if "_error" in r]
    assert code == 1 and len(errors) == 2
    assert any("unknown record type 99" in e["_error"] for e in errors)
    assert any("newer than the newest known" in e["_error"] for e in errors)
    assert "errors 2" in err


def test_bad_lines_are_reported_and_reading_goes_on(capsys, tmp_path):
    dump = tmp_path / "dump.jsonl"
    dump.write_text("\n".join([
        json.dumps({"key": "00020005ab", "value": None}),
        "not json",
        json.dumps({"key": "0002", "value": "00"}),
        json.dumps({"key": "AAIAAWc=", "value": None, "offset": 9}),
    ]))
    code, rows, err = run(capsys, ["offsets", str(dump), "--encoding", "auto"])
    assert code == 1 and [("_error" in r) for r in rows] == [True, True, True, False]
    assert rows[3]["offset"] == 9 and rows[3]["key"] == {"group": "g"}
    assert "errors 3" in err and "line 2:" in err


def test_every_kind_of_input(capsys, monkeypatch):
    """offsets reads what every verb reads: the README's mixed sample (its payloads skipped and counted, not
    errors), a broker's log directory, and the sample again from stdin."""
    import io

    root = SAMPLE.parents[1]
    code, rows, err = run(capsys, ["offsets", str(root / "captures" / "capture.jsonl")])
    assert code == 0 and len(rows) == 22 and not any("_error" in r for r in rows)
    assert "skipped, not __consumer_offsets records: 7 payloads" in err
    code, rows, err = run(capsys, ["offsets", str(root / "log" / "kafka-logs")])
    damaged = [r for r in rows if "_error" in r]
    assert code == 1 and len(damaged) == 2 and all("CRC-32C mismatch" in r["_error"] for r in damaged)
    assert {r["partition"] for r in rows if "record" in r} and "errors 2" in err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(SAMPLE.read_bytes())))
    code, rows, _ = run(capsys, ["offsets", "-"])
    assert code == 0 and len(rows) == len(SAMPLE.read_text().splitlines())
