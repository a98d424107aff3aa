"""A bad line is said in one form wherever a verb reads lines, ``FILE line N: what`` (standard input is
``<stdin>``), and the messages come in the order of the input: the JSON Lines reader says each bad line where
it is met, between the rows around it, and the verbs say the lines they find bad themselves (a record that does
not decode, a blob that is not hex) in the same stream."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from kafka_meta.cli.main import main
from kafka_meta.inputs import Damage, Row
from kafka_meta.inputs.jsonl import LISTED, read_lines

ROOT = Path(__file__).resolve().parents[1]
GOOD = [json.loads(line) for line in (ROOT / "fixtures" / "offsets" / "sample.jsonl").read_text().splitlines()]
V1 = "0001000000010003666f6fffffffff00000000"  # a ConsumerProtocolSubscription v1


def run(capsys, argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    real = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        code = main(argv)
    finally:
        sys.stdin = real
    out, err = capsys.readouterr()
    return code, out, err


def bad_line_numbers(err: str, name: str) -> list[int]:
    """The line numbers of the messages about ``name``'s lines, each checked to be in the one form."""
    numbers = []
    for line in err.splitlines():
        if line.startswith(f"{name} line "):
            found = re.match(rf"{re.escape(name)} line (\d+)(?: \(offset \d+\))?: \S", line)
            assert found, f"not FILE line N: what: {line!r}"
            numbers.append(int(found.group(1)))
    return numbers


def mixed_lines() -> str:
    """Bad lines of every kind among good records: 2 not JSON, 3 JSON but no row, 4 a record whose key is no
    record's, 6 a record whose value does not decode, 7 a JSON value that is no object."""
    truncated = dict(GOOD[1], value=GOOD[1]["value"][:10])
    lines = [json.dumps(GOOD[0]), "{not json", json.dumps({"foo": 1}), json.dumps(dict(GOOD[0], key="00")),
             json.dumps(GOOD[2]), json.dumps(truncated), "[1, 2]", json.dumps(GOOD[3])]
    return "\n".join(lines) + "\n"


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    path = tmp_path / "mixed.jsonl"
    path.write_text(mixed_lines())
    return path


def test_offsets_says_every_bad_line_in_order(capsys, mixed):
    code, out, err = run(capsys, ["offsets", str(mixed)])
    assert code == 1
    assert bad_line_numbers(err, str(mixed)) == [2, 3, 4, 6, 7]
    assert f"{mixed} line 3: neither an exchange, a __consumer_offsets record, a payload nor a member" in err
    assert f"{mixed} line 7: neither an exchange" in err  # said where it is, not summed up at the end
    errors = [json.loads(line) for line in out.splitlines() if "_error" in line]  # stdout says them in order too
    assert [e.get("line") or bad_line_numbers(e["_error"], str(mixed))[0] for e in errors] == [2, 3, 4, 6, 7]


def test_standard_input_is_named_stdin(capsys):
    code, _, err = run(capsys, ["offsets", "-"], mixed_lines().encode())
    assert code == 1 and bad_line_numbers(err, "<stdin>") == [2, 3, 4, 6, 7]
    code, _, err = run(capsys, ["decode", "ConsumerProtocolSubscription", "--input", "-"], f'"{V1}"\n"zz"\n'.encode())
    assert code == 1 and bad_line_numbers(err, "<stdin>") == [2]


def test_explain_says_the_readers_and_its_own_bad_lines_in_order(capsys, tmp_path):
    members = tmp_path / "members.jsonl"
    members.write_text("\n".join([
        json.dumps({"member": "a", "subscription": V1, "group": "g"}),
        "{not json",
        json.dumps({"member": "b"}),  # no subscription: JSON, but no row the project knows
        json.dumps({"key": "zz!", "value": None}),  # a record whose key is neither hex nor base64
        "also not json",
        json.dumps({"member": "c", "subscription": V1, "group": "g"})]) + "\n")
    code, _, err = run(capsys, ["explain", str(members)])
    assert code == 1
    assert bad_line_numbers(err, str(members)) == [2, 3, 4, 5]


def test_decode_input_names_the_file(capsys, tmp_path):
    blobs = tmp_path / "blobs.jsonl"
    blobs.write_text(f'"{V1}"\n"zz!"\n[1]\n{{"hex": "{V1}"}}\n"0001"\n')
    code, out, err = run(capsys, ["decode", "ConsumerProtocolSubscription", "--input", str(blobs)])
    assert code == 1 and bad_line_numbers(err, str(blobs)) == [2, 3, 5]
    assert err.splitlines()[-1] == "decoded 2, failed 3" and len(out.splitlines()) == 5


def test_report_lists_bad_lines_in_the_one_form(capsys, mixed):
    code, out, _ = run(capsys, ["report", str(mixed), "--format", "json"])
    assert code == 1
    problems = json.loads(out)["problems"]
    assert bad_line_numbers("\n".join(problems), str(mixed)) and all(
        re.match(rf"{re.escape(str(mixed))} line \d+(?: \(offset \d+\))?: \S", p) for p in problems), problems
    assert {2, 3, 7} <= set(bad_line_numbers("\n".join(problems), str(mixed)))


def test_the_reader_yields_each_bad_line_at_its_place():
    items = list(read_lines(io.StringIO(mixed_lines()), "dump.jsonl"))
    kinds = ["row" if isinstance(i, Row) else f"bad {i.text.split(':')[0]}" for i in items]
    assert kinds == ["row", "bad dump.jsonl line 2", "bad dump.jsonl line 3", "row", "row", "row",
                     "bad dump.jsonl line 7", "row"]  # lines 4 and 6 are records: their decoders judge them


def test_many_bad_lines_are_listed_up_to_a_cap_then_counted(capsys, tmp_path):
    many = tmp_path / "many.jsonl"
    many.write_text(json.dumps(GOOD[0]) + "\n" + "\n".join(f"junk {n}" for n in range(LISTED + 7)) + "\n")
    items = list(read_lines(many.open(), str(many)))
    damage = [i.text for i in items if isinstance(i, Damage)]
    assert len(damage) == LISTED + 1
    assert damage[-1] == (f"{many} line {LISTED + 2}: and 7 more bad lines not listed (after the first {LISTED}), "
                          f"the last at line {LISTED + 8}")
    code, _, err = run(capsys, ["offsets", str(many)])
    assert code == 1 and bad_line_numbers(err, str(many)) == [*range(2, LISTED + 2), LISTED + 2]
