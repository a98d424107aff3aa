"""The kafka-meta command: types, decode (one blob or JSON Lines), encode."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest

from kafka_meta.cli.main import main

V3 = "0003000000010003666f6f00000002cafe00000001000366" + "6f6f00000001000000020000000700027231"


def run(capsys, monkeypatch, argv, stdin=None):
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_types(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, ["types"])
    assert code == 0 and "ConsumerProtocolSubscription\tconsumer\t0-3" in out


def test_decode_hex_prints_kafka_json(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, ["decode", "ConsumerProtocolSubscription", "--hex", V3])
    doc = json.loads(out)
    assert code == 0 and doc["version"] == 3
    assert doc["data"] == {"topics": ["foo"], "userData": "yv4=", "ownedPartitions": [
        {"topic": "foo", "partitions": [2]}], "generationId": 7, "rackId": "r1"}


def test_decode_base64_file_and_stdin(capsys, monkeypatch, tmp_path):
    raw = bytes.fromhex(V3)
    code, out, _ = run(capsys, monkeypatch, ["decode", "ConsumerProtocolSubscription", "--base64",
                                             base64.b64encode(raw).decode()])
    assert code == 0 and json.loads(out)["data"]["generationId"] == 7
    blob = tmp_path / "blob.bin"
    blob.write_bytes(raw)
    code, out, _ = run(capsys, monkeypatch, ["decode", "ConsumerProtocolSubscription", "--file", str(blob)])
    assert code == 0 and json.loads(out)["data"]["rackId"] == "r1"
    code, out, _ = run(capsys, monkeypatch, ["decode", "ConsumerProtocolSubscription"], stdin=V3.encode())
    assert code == 0 and json.loads(out)["version"] == 3


def test_decode_views(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, ["decode", "ConsumerProtocolSubscription", "--hex", V3, "--views"])
    assert json.loads(out)["data"]["clientView"]["ownedPartitions"] == [{"topic": "foo", "partition": 2}]


def test_decode_error_is_one_clear_line(capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, ["decode", "ConsumerProtocolSubscription", "--hex", "00010000"])
    assert code == 1
    assert err.strip() == ("kafka-meta: ConsumerProtocolSubscription v1, field topics, byte 2: input ends inside "
                           "the length of array: needs 4 bytes, 2 left")


def test_decode_jsonl_reports_bad_lines_and_goes_on(capsys, monkeypatch, tmp_path):
    lines = tmp_path / "blobs.jsonl"
    lines.write_text("\n".join([
        V3,
        json.dumps({"hex": "zz", "id": "a"}),
        json.dumps({"base64": base64.b64encode(bytes.fromhex(V3)).decode(), "id": "b"}),
        "# a comment",
        json.dumps("0000000000010003666f6fffffffff"),
        "00",
    ]))
    code, out, err = run(capsys, monkeypatch, ["decode", "ConsumerProtocolSubscription", "--input", str(lines)])
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 1
    assert [r["line"] for r in rows] == [1, 2, 3, 5, 6]
    assert rows[0]["version"] == 3 and rows[2]["id"] == "b" and rows[3]["data"]["topics"] == ["foo"]
    assert rows[1] == {"line": 2, "id": "a", "_error": "not valid hex in 'hex' (a character that is not a hex digit)"}
    assert "2-byte version" in rows[4]["_error"]
    assert "decoded 3, failed 2" in err


def test_encode_reads_decode_output(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, ["decode", "ConsumerProtocolSubscription", "--hex", V3])
    code, hex_out, _ = run(capsys, monkeypatch, ["encode", "ConsumerProtocolSubscription"], stdin=out.encode())
    assert code == 0 and hex_out.strip() == V3
    bare = json.dumps({"topics": ["foo"], "userData": "yv4="}).encode()
    code, hex_out, _ = run(capsys, monkeypatch, ["encode", "ConsumerProtocolSubscription", "--version", "0"],
                           stdin=bare)
    assert hex_out.strip() == "0000000000010003666f6f00000002cafe"


def test_decode_prints_kafkas_json_and_every_field_keeps_what_reencoding_needs(capsys, monkeypatch):
    """A v0 ConsumerGroupMemberMetadataValue holding an unknown tagged field (tag 7): Kafka's converter writes
    neither it nor the tagged field at its default; --every-field prints both, and encode gives the bytes back."""
    blob = "000001010263010101ffffffff010107020102"
    _, out, _ = run(capsys, monkeypatch, ["decode", "ConsumerGroupMemberMetadataValue", "--hex", blob])
    data = json.loads(out)["data"]
    assert "_unknownTaggedFields" not in data and "classicMemberMetadata" not in data and data["clientId"] == "c"
    _, out, _ = run(capsys, monkeypatch, ["decode", "ConsumerGroupMemberMetadataValue", "--hex", blob,
                                          "--every-field"])
    assert json.loads(out)["data"]["_unknownTaggedFields"] == [{"tag": 7, "data": "AQI="}]
    code, hex_out, _ = run(capsys, monkeypatch, ["encode", "ConsumerGroupMemberMetadataValue"], stdin=out.encode())
    assert code == 0 and hex_out.strip() == blob


def test_encode_refuses_json_that_does_not_fit(capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, ["encode", "ConsumerProtocolSubscription"],
                       stdin=json.dumps({"topics": "nope"}).encode())
    assert code == 1 and "does not fit" in err  # the message on stdin is the input: it could not be read


def test_unknown_type(capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, ["decode", "Nope", "--hex", "00"])
    assert code == 2 and "unknown type 'Nope'" in err  # the command line names no type: a usage error


def test_console_script_is_installed():
    result = subprocess.run([sys.executable, "-m", "kafka_meta.cli.main", "decode", "ConsumerProtocolAssignment",
                             "--hex", "000000000000ffffffff"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["data"] == {"assignedPartitions": [], "userData": None}


@pytest.mark.parametrize("argv", [["--help"], ["decode", "--help"]])
def test_help(capsys, monkeypatch, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
