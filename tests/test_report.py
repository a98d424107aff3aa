"""The report faces: the terminal report (plain when piped, coloured on a terminal), ``kafka-meta report``
and the HTML file (self-contained, escaped)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pcap_exchanges import CAPTURES, capture_exchanges

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.report.html import render_html
from kafka_meta.report.terminal import render_terminal, terminal_text

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "fixtures" / "captures" / "capture.jsonl"
LAB_STORM = ROOT / "fixtures" / "lab" / "storm" / "capture.pcapng"  # a real Java consumer outlasting its poll timer
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def timeline():
    rows = [r for r in map(json.loads, SAMPLE.read_text().splitlines()) if "key" in r]
    exchanges = [e for path in (*CAPTURES.values(), LAB_STORM) for e in capture_exchanges(path)]
    return build_timeline(exchanges, rows)


def test_terminal_report_reads_as_a_diagnosis(timeline):
    text = terminal_text(AnalysisReport(timeline=timeline))
    assert not ANSI.search(text)
    lines = text.splitlines()
    assert lines[0].startswith(f"Rebalance timeline: {len(timeline.groups)} group(s)")
    first_finding = next(i for i, line in enumerate(lines) if line.lstrip().startswith("CRITICAL"))
    first_table = next(i for i, line in enumerate(lines) if line.startswith("gen "))
    assert first_finding < first_table  # the diagnosis before the detail
    headings = [line.split("  [")[0] for line in lines if re.match(r"^\S.* {2}\[", line)]
    assert headings == [g.group for g in timeline.groups]
    # the same group id on two coordinators (two captures of two clusters) is two groups, said so
    assert {"g-cfk-coop @ 127.0.0.1:44251", "g-cfk-coop @ 127.0.0.1:46453"} <= set(headings)
    assert headings[0] == "g-upgrade"  # two critical findings: members vanishing mid-upgrade, left half-way
    assert "upgrade stuck half-way" in text and "cooperative follow-up" in text and "membership churn" in text
    storm = next(line for line in lines if "CRITICAL lab-storm: rebalance storm" in line)
    assert "member left: poll timeout x4" in storm
    assert "capture.pcapng packet" in lines[lines.index(storm) + 1]  # evidence: where the rounds are


def test_terminal_colour_only_on_a_terminal(timeline):
    coloured = io.StringIO()
    render_terminal(AnalysisReport(timeline=timeline), file=coloured, width=160, color=True)
    assert ANSI.search(coloured.getvalue())
    plain = terminal_text(AnalysisReport(timeline=timeline))
    assert ANSI.sub("", coloured.getvalue()).splitlines()[0] == plain.splitlines()[0]
    piped = io.StringIO()
    render_terminal(AnalysisReport(timeline=timeline), file=piped)  # rich decides: a StringIO is no terminal
    assert not ANSI.search(piped.getvalue())


def test_html_is_self_contained_and_escaped(timeline):
    for g in timeline.groups:
        for r in g.rounds:
            for m in r.members:
                if m.member_id == "orders-1":
                    m.client_id = "<script>alert(1)</script>"
    page = render_html(AnalysisReport(timeline=timeline))
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert not re.search(r"<script[^>]+src=", page) and "cdn.plot.ly" not in page.replace("cdn.plot.ly/", "")
    assert page.count("Plotly.newPlot") == sum(1 for g in timeline.groups if g.rounds or g.findings)
    assert page.count("<details class='members'>") == sum(len(g.rounds) for g in timeline.groups
                                                          if g.rounds or g.findings)
    assert page.count("<a href='#group-") == len(timeline.groups)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafka_meta.cli.main", *args], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)


def test_cli_json_and_html(tmp_path):
    out = tmp_path / "r.html"
    done = run("report", str(SAMPLE), "--format", "json", "-o", str(out))
    assert done.returncode == 1, done.stderr  # the sample's damaged payloads could not be read: listed, and 1
    doc = json.loads(done.stdout)
    assert next(iter(doc["groups"])) in ("audit", "word-count")
    assert [r["generation"] for r in doc["groups"]["orders"]["rounds"]] == [7]
    assert {f["kind"] for f in doc["findings"]} >= {"ownership-conflict", "stuck-upgrade"}
    assert out.stat().st_size > 1_000_000 and "plotly" in out.read_text()[:5_000_000]


def test_cli_reports_bad_input_and_carries_on(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "!!", "value": null}\nnot json\n' + SAMPLE.read_text().splitlines()[0] + "\n")
    damaged = run("report", str(bad))
    assert damaged.returncode == 1, damaged.stderr  # read around its bad lines, which are listed: 1
    assert f"{bad} line 2: not JSON" in damaged.stdout
    assert f"{bad} line 1: neither hex nor base64" in damaged.stdout
    assert "orders" in damaged.stdout  # the good line still makes its group
    done = run("report", str(bad), str(tmp_path / "missing.jsonl"))
    assert done.returncode == 2  # a path that does not exist: the command line's mistake, said before reading
    assert "missing.jsonl: no such file" in done.stderr and done.stdout == ""
    nothing = run("report", str(tmp_path / "missing.jsonl"))
    assert nothing.returncode == 2 and "every group rebalanced cleanly" not in nothing.stdout
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    said = run("report", str(empty))
    assert said.returncode == 1 and "empty.log: empty: nothing to read" in said.stdout
    assert run("report", str(SAMPLE), "--storm-rounds", "1").returncode == 2


def test_cli_reads_broker_log_segments():
    done = run("report", str(ROOT / "fixtures" / "log" / "kafka-logs"), "--format", "json")
    assert done.returncode == 1, done.stderr  # the fixture's damaged batches are read around, and listed
    doc = json.loads(done.stdout)
    # the fixture holds the same records in four partitions: each generation is still one round
    billing = doc["groups"]["billing"]
    assert [r["generation"] for r in billing["rounds"]] == [12] and billing["committedPartitions"] > 0
    assert doc["records"]["OffsetCommit"] > 0 and doc["errors"] == 0  # one document: what analyze writes
    assert [r["generation"] for r in doc["groups"]["checkout"]["rounds"]] == [5]
    stuck = next(f for f in doc["findings"] if f["kind"] == "stuck-upgrade")
    assert stuck["group"] == "billing" and stuck["member"] == "c2-bbb"
    assert "__consumer_offsets-" in stuck["evidence"][0]["file"]
    assert all(r["start"] is None or r["start"] > 1e9 for g in doc["groups"].values() for r in g["rounds"])


def test_the_python_example_in_docs_runs(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "timeline.md").read_text()
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S)):
        exec(compile(block, f"timeline.md example {i}", "exec"), {})
    out = capsys.readouterr().out
    assert "(3, 'revoke'" in out and "rebalance storm" in out and out.count("Rebalance timeline") == 1
    assert "(2, ['poll-timeout'])" in out


def test_cli_reports_damaged_captures_with_their_place(tmp_path):
    cut = tmp_path / "cut.pcap"
    cut.write_bytes((ROOT / "fixtures" / "captures" / "pcap" / "cfk_storm.pcap").read_bytes()[:3000])
    garbage = tmp_path / "garbage.pcapng"
    garbage.write_bytes(b"\x0a\x0d\x0d\x0a" + b"\xff" * 60)  # a pcapng magic, then nonsense
    done = run("report", str(cut), str(garbage), str(SAMPLE))
    assert done.returncode == 1, done.stderr
    unreadable = done.stdout.split("Unreadable input", 1)[1]
    assert "cut.pcap: container: packet 27, byte 2920: file ends inside a packet record" in unreadable
    assert "garbage.pcapng" in unreadable and "Traceback" not in done.stdout + done.stderr
    assert "orders" in done.stdout  # the good input still makes its groups


def test_exchanges_printed_by_kafka_meta_capture_tell_the_same_story(tmp_path):
    pcap = ROOT / "fixtures" / "captures" / "pcap" / "cfk_coop.pcapng"
    printed = run("capture", str(pcap))
    assert printed.returncode == 0, printed.stderr
    lines = tmp_path / "coop.jsonl"
    lines.write_text(printed.stdout)

    def story(source: Path) -> list:
        done = run("report", str(source), "--format", "json")
        assert done.returncode == 0, done.stderr
        doc = json.loads(done.stdout)
        return [[(r["generation"], r["triggers"], r["moved"], r["phase"], [m["memberId"] for m in r["members"]])
                 for r in g["rounds"]] for g in doc["groups"].values()] + [[f["summary"] for f in doc["findings"]]]

    assert story(lines) == story(pcap)  # JSON Lines (bytes in base64, uuids as text) read like the capture


def test_html_escapes_what_clients_send_everywhere_it_appears(timeline):
    """Autoescaping by the template engine: a hostile member id is inert in the tables, the findings, the
    per-member detail and inside plotly's chart data (where a raw ``</script>`` would end the script)."""
    hostile = "</script><img src=x onerror=alert(2)>"
    group = next(g for g in timeline.groups if g.rounds and g.rounds[0].members)
    member = group.rounds[0].members[0]
    original = member.member_id
    try:
        member.member_id = hostile
        page = render_html(AnalysisReport(timeline=timeline))
    finally:
        member.member_id = original
    assert "<img src=x onerror=alert(2)>" not in page
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;" in page


def test_html_gives_no_clean_bill_of_health_when_input_was_unreadable():
    unreadable = build_timeline([], [{"key": "not hex!", "value": None, "_file": "broken.jsonl", "_line": 1}])
    assert unreadable.errors and not unreadable.findings
    page = render_html(AnalysisReport(timeline=unreadable))
    assert "rebalanced cleanly" not in page and "no clean bill of health" in page
    assert "broken.jsonl" in page
    assert "rebalanced cleanly" in render_html(AnalysisReport(timeline=build_timeline([], [])))


def test_every_face_renders_the_one_report():
    """One report for the terminal, the HTML page, the text summary and JSON: each says what was read, what
    could not be read at all and what damage was read around."""
    from kafka_meta.analysis.inventory import take_inputs
    from kafka_meta.analysis.report import render_text

    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    records = [r | {"_file": "capture.jsonl", "_line": n} for n, r in enumerate(rows, 1) if "key" in r]
    report = take_inputs(AnalysisReport(timeline=build_timeline([], records), unreadable=["gone.pcap: no such file"],
                                damage=["seg.log, byte 61: CRC-32C mismatch"]), records)
    assert report.records["OffsetCommit"] > 0 and not report.read_everything
    text, page, summary, doc = terminal_text(report), render_html(report), render_text(report), report.to_json()
    assert f"Read: {sum(report.records.values())} __consumer_offsets record(s)" in text
    for face in (text, page, summary):
        assert "gone.pcap: no such file" in face and "seg.log, byte 61: CRC-32C mismatch" in face
    assert doc["unreadable"] == ["gone.pcap: no such file"]
    assert doc["problems"][0] == "seg.log, byte 61: CRC-32C mismatch"
    assert doc["groups"]["orders"]["committedPartitions"] > 0 and doc["groups"]["orders"]["rounds"]
