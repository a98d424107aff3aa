"""The one conformance command, as CI runs it, and proof that it can fail.

``python -m kafka_meta.testing.conformance --cases 200`` puts 200 cases of every type (every codec, assignor and
negotiation type) to the project and to Kafka 4.4's own classes through the Java peer, and must find no difference
that docs/conformance.md does not explain. The long run is recorded there. The other tests show that the command
is not vacuous: a project-side reader that is wrong on purpose (Kafka's side untouched) is reported, with its
example, as an unexplained difference and a failing exit status; ``--type`` selects what runs; and every deliberate
difference points to documentation that exists. All but the last run Kafka's code (marked ``kafka``).
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kafka_meta.testing.conformance import __main__ as command
from kafka_meta.testing.conformance import deliberate, messages
from kafka_meta.testing.conformance.engine import Drawn, Read, Runner
from kafka_meta.testing.conformance.peer import Peer
from kafka_meta.testing.conformance.results import Result

ROOT = Path(__file__).resolve().parents[1]
LAST_LINE = re.compile(r"^conformance: ([\d,]+)/([\d,]+) identical \(([\d,]+) both refuse alike, ([\d,]+) unfinished, "
                       r"([\d,]+) deliberate differences, ([\d,]+) unexplained\)$")
UNEXPLAINED = 5  # the table's column of unexplained differences, after the type's name
TYPE = "HeartbeatRequest"  # a small message every version of which Kafka 4.4's HeartbeatRequestData reads


def number(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.mark.kafka
def test_the_command_finds_no_unexplained_difference(lab):
    done = subprocess.run([sys.executable, "-m", "kafka_meta.testing.conformance", "--cases", "200"],
                          capture_output=True, text=True, timeout=600)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    match = LAST_LINE.match(lines[-1])
    assert match, lines[-1]
    identical, cases, both, unfinished, deliberate, unexplained = map(number, match.groups())
    # every case is in exactly one column
    assert unexplained == 0 and identical + both + unfinished + deliberate == cases
    # every family ran, 200 cases a type, none with an unexplained difference; the line before says how fast
    rows = table_rows(done.stdout)
    assert len(rows) * 200 == cases and len(rows) >= 100
    assert all(cells[0] == "200" and cells[UNEXPLAINED] == "0" for cells in rows.values())
    # each row's columns add up to its cases
    assert all(sum(number(c) for c in cells[1:6]) == 200 for cells in rows.values())
    # the retired record types are listed apart, out of the last line's count
    assert "Listed apart, not in the last line:" in done.stdout
    assert not {"ShareGroupPartitionMetadata record (GroupCoordinatorRecordSerde)",
                "StreamsGroupPartitionMetadata record (GroupCoordinatorRecordSerde)"} & set(rows)
    assert {"assignor sticky", "assignor legacy-sticky (streams)", "streams leader 4.4", "ConsumerProtocolSubscription",
            "SubscriptionInfo (Streams' SubscriptionInfo)",
            "OffsetCommit record (GroupCoordinatorRecordSerde)"} <= set(rows)
    assert re.match(r"^[\d,]+ cases in [\d.]+ s \([\d,]+ cases/s\)$", lines[-2]), lines[-2]


def misread(read: Read) -> Read:
    json, rewritten = read.view
    return Read(({**json, "generationId": json["generationId"] + 1}, rewritten), read.refused, read.unread, read.facts)


class MisreadGeneration(messages.MessageSubject):
    """The project's HeartbeatRequest reader, wrong on purpose: it reads every generation id one too high (every
    way the harness reads with it: as the project does, and the construct tree's readings with either rule)."""

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        return misread(super().our_read(data, drawn, explain))

    def tree_read(self, data: bytes, drawn: Drawn, kafka_tags: bool = False, older_release: bool = False) -> Read:
        read = super().tree_read(data, drawn, kafka_tags, older_release)
        return read if read.refused is not None else misread(read)


def heartbeat_subject(peer: Peer, kind: type[messages.MessageSubject]) -> messages.MessageSubject:
    fmt = messages.REGISTRY.get(TYPE)
    return kind(TYPE, TYPE + "Data", messages.coverage(peer, TYPE + "Data", list(fmt.versions)))


def table_rows(out: str) -> dict[str, list[str]]:
    """The report's table: type -> its cells (cases, identical, differences, deliberate, refusals)."""
    lines = out.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("---")) + 1
    rows = {}
    for line in lines[start:]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells[1:]
    return rows


@pytest.mark.kafka
def test_a_wrong_reader_is_an_unexplained_difference_and_fails_the_run(lab, monkeypatch, capsys):
    def run(peer: Peer, cases: int, types: Any, seed: int) -> list[Result]:
        return [Runner(peer, heartbeat_subject(peer, MisreadGeneration), random.Random(seed)).run(cases)]

    # the command's only family is one whose project side misreads; Kafka's side is the peer as ever
    monkeypatch.setattr(command, "families", lambda: [("codecs", SimpleNamespace(run=run))])
    status = command.main(["--cases", "60", "--seed", "3"])
    out = capsys.readouterr().out
    assert status == 1
    match = LAST_LINE.match(out.strip().splitlines()[-1])
    assert match and number(match.group(6)) > 0 and number(match.group(5)) == 0
    # the report names the difference and shows an example, the generation ids Kafka read and the project misread
    assert f"{TYPE}: we read Kafka's bytes differently:" in out and "(unexplained), for example:" in out
    assert '"generationId"' in out


@pytest.mark.kafka
def test_the_same_reader_unbroken_agrees(lab):
    with Peer() as peer:
        result = Runner(peer, heartbeat_subject(peer, messages.MessageSubject), random.Random(3)).run(60)
    assert result.cases == 60 and result.unexplained == 0
    assert result.identical + result.both_refused + result.explained == 60


@pytest.mark.kafka
def test_type_selects_what_runs(lab, capsys):
    assert command.main(["--cases", "7", "--type", f"{TYPE},assignor range", "--type", "upgrade.from 4.4",
                         "--family", "codecs", "--family", "assignments", "--family", "negotiation"]) == 0
    out = capsys.readouterr().out
    rows = table_rows(out)
    assert list(rows) == [TYPE, "assignor range", "upgrade.from 4.4"]
    assert all(cells[0] == "7" and cells[UNEXPLAINED] == "0" for cells in rows.values())
    assert LAST_LINE.match(out.strip().splitlines()[-1]).group(2) == "21"  # type: ignore[union-attr]


@pytest.mark.kafka
def test_a_type_nothing_matches_is_an_error(lab, capsys):
    assert command.main(["--cases", "5", "--type", "NoSuchType"]) == 2
    assert "NoSuchType" in capsys.readouterr().err


def test_every_deliberate_difference_points_to_what_documents_it():
    # each reference is a file of the project, and a docs/ reference names a heading that file has
    for reason in deliberate.TABLE.values():
        references = list(re.finditer(r"(\S+?)(?: \(([^()]+)\))?(?:, |$)", reason.documented))
        assert "".join(m.group(0) for m in references) == reason.documented, reason.key
        for reference in references:
            path, section = reference.groups()
            assert (ROOT / path).is_file(), (reason.key, path)
            if section is not None:
                headings = [line.lstrip("#").strip() for line in (ROOT / path).read_text().splitlines()
                            if line.startswith("#")]
                assert any(h == section or h.startswith(section + " (") for h in headings), (reason.key, section)


def test_where_a_refusal_happened_reaches_into_nullable_structs():
    """Kafka's reader may stop deeper in the field the project stopped at, inside a nullable struct: a
    StreamsGroupDescribeResponse whose groups array claims more than the bytes hold is refused by the project at
    ``groups`` and by Kafka inside ``DescribedGroup.Topology`` (a nullable struct). The two places lie in one line
    of structs; a struct outside the field (the response's own tagged fields' place) does not."""
    import kafka_meta
    from kafka_meta.testing.conformance import refusals

    tree = kafka_meta.get_format("StreamsGroupDescribeResponse").construct(1)
    kafka = ("RuntimeException: Error reading byte array of 4 byte(s): only 2 byte(s) available [thrown in "
             "ByteBufferAccessor, Readable, StreamsGroupDescribeResponseData.Topology, "
             "StreamsGroupDescribeResponseData.DescribedGroup, StreamsGroupDescribeResponseData]")
    agree, said = refusals.places_agree(kafka, "StreamsGroupDescribeResponseData", tree, "groups")
    assert agree, said
    elsewhere = kafka.replace("StreamsGroupDescribeResponseData.Topology, ", "")
    assert refusals.places_agree(elsewhere, "StreamsGroupDescribeResponseData", tree, "groups")[0]
    assert not refusals.places_agree(kafka, "StreamsGroupDescribeResponseData", tree, "throttleTimeMs")[0]
