"""What the faces say: findings name members as the charts' lanes do (client id and the id's tail, the full id
in the JSON), and the HTML's collapsed findings count each severity by its own name. From the lab's real
recordings and the bundled captures."""

from __future__ import annotations

import re

from conftest import ROOT

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.findings import Finding
from kafka_meta.analysis.member_names import member_label
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.analysis.timeline import MemberRound
from kafka_meta.inputs import read
from kafka_meta.report.charts import lane
from kafka_meta.report.html import by_severity, render_html


def test_one_name_for_a_member_in_the_charts_and_the_findings():
    m = MemberRound("aio-upgrade-0-7f33ac005f80", client_id="aio-upgrade-0")
    assert lane(m) == member_label(m.member_id, m.client_id) == m.member_id  # the id holds the client id
    m = MemberRound("0x7f33ac005f80", client_id="aio-upgrade-0")
    assert lane(m) == member_label(m.member_id, m.client_id) == "aio-upgrade-0 · ac005f80"
    assert member_label(None, "c") == "c" and member_label(None, None) == "?"


def test_a_findings_members_are_named_as_their_lanes_with_the_full_id_in_json():
    inputs = read([str(ROOT / "fixtures" / "captures" / "pcap")])
    timeline = build_timeline(inputs.exchanges)
    checked = 0
    for g in timeline.groups:
        lanes = {m.member_id: lane(m) for r in g.rounds for m in r.members if m.member_id}
        for f in g.findings:
            if f.member in lanes and lanes[f.member] != f.member:
                assert lanes[f.member] in f.summary or f.member not in f.summary, f.summary
                assert f.to_json()["member"] == f.member
                checked += 1
    assert checked or all(not g.findings for g in timeline.groups)


def test_the_collapsed_findings_count_each_severity_by_name():
    found = [Finding("x", s, "g", "s") for s in ("info", "warning", "warning", "critical", "info", "info")]
    assert by_severity(found) == "1 critical, 2 warning, 3 info"
    inputs = read([str(p) for p in sorted((ROOT / "fixtures" / "lab").glob("*/kafka-logs"))])
    report = AnalysisReport(timeline=build_timeline(offsets_rows=inputs.offsets))
    others = [f for f in report.story.ranked_findings if f.severity != "critical"]
    assert others
    page = render_html(report)
    (summary,) = re.findall(r"<details><summary>([^<]*)</summary>\s*<div class='finding'>", page)
    assert summary == by_severity(others) and "warning(s)" not in summary
    assert sum(int(n) for n in re.findall(r"(\d+) \w+", summary)) == len(others)
