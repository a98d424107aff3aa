"""kafka-meta evolution: text, JSON, exit status, --transitive, --fail-on."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED_REASON, SPEC_DIR
from evolution_support import field
from test_cli import run


def write(path, fields, valid="0-1"):
    path.write_text(json.dumps({"type": "data", "name": "Widget", "validVersions": valid, "flexibleVersions": "none",
                                "fields": fields}))
    return str(path)


def test_exit_status_follows_breaking_changes(capsys, monkeypatch, tmp_path):
    old = write(tmp_path / "a.json", [field("GroupId", "string")])
    same = write(tmp_path / "b.json", [field("GroupId", "string")], "0-2")
    renamed = write(tmp_path / "c.json", [field("GroupName", "string")])
    code, out, _ = run(capsys, monkeypatch, ["evolution", old, same])
    assert code == 0 and out.splitlines()[-1] == "0 breaking, 0 risky, 1 info (1 info findings not shown; --info " \
                                                 "lists them)"
    code, out, _ = run(capsys, monkeypatch, ["evolution", old, renamed])
    assert code == 1
    assert out.splitlines()[1:3] == [
        "BREAKING json-names+python-api [field-renamed] Widget.GroupId",
        "    GroupId is renamed GroupName (same place, same type): JSON name groupId -> groupName, attribute "
        "group_id -> group_name"]
    code, _, _ = run(capsys, monkeypatch, ["evolution", old, renamed, "--fail-on", "wire"])
    assert code == 0  # a rename does not break the wire


def test_json_output(capsys, monkeypatch, tmp_path):
    old = write(tmp_path / "a.json", [field("A"), field("B")])
    new = write(tmp_path / "b.json", [field("A", "int64")])
    code, out, _ = run(capsys, monkeypatch, ["evolution", old, new, "--format", "json"])
    doc = json.loads(out)
    assert code == 1 and doc["summary"]["breaking"] == 3 and doc["summary"]["breakingBySeverity"]["wire"] == 3
    first = doc["findings"][0]
    assert set(first) == {"rule", "level", "severity", "affects", "subject", "path", "versions", "message"}
    assert {f["rule"] for f in doc["findings"]} == {"layout-changed", "field-type-changed", "field-removed"}


def test_argument_errors(capsys, monkeypatch, tmp_path):
    old = write(tmp_path / "a.json", [field("A")])
    code, _, err = run(capsys, monkeypatch, ["evolution", old])
    assert code == 2 and "give OLD and NEW" in err


@pytest.mark.skipif(not SPEC_DIR.is_dir(), reason=SHARED_REASON)
def test_real_snapshots_and_transitive(capsys, monkeypatch):
    newer = SPEC_DIR / "newer"
    code, out, _ = run(capsys, monkeypatch, ["evolution", str(SPEC_DIR), str(newer), "--partial"])
    assert code == 1
    assert "[layout-changed] record 11 value: ShareGroupMetadataValue (v0)" in out
    assert "[record-type-removed] record 18: record type 18" in out
    assert "message-removed" not in out  # --partial: files newer/ does not hold are unchanged
    code, out, _ = run(capsys, monkeypatch, ["evolution", "--transitive", "--format", "json", "--info",
                                             str(SPEC_DIR / "streams"), str(newer / "streams"),
                                             str(newer / "streams")])
    doc = json.loads(out)
    assert code == 0 and len(doc["comparisons"]) == 3
    assert all(c["summary"]["breaking"] == 0 for c in doc["comparisons"])
