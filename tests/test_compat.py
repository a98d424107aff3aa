"""The compatibility matrix: computed from layouts and forward rules, checked by real decoding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GOLDEN_DIR, SHARED_REASON, SPEC_DIR
from golden_support import offsets_registry
from test_cli import run
from test_golden_corpus import CORPUS

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, Int16Prefixed
from kafka_meta.compat import Forward, ForwardReading, Outcome, check_matrix, forward_reading, matrix, matrix_of, verify
from kafka_meta.compat.check import golden_bytes
from kafka_meta.formats.family import FormatPlugin
from kafka_meta.golden.build import build
from kafka_meta.spec import load_spec_text

WIDGET = """{
  "type": "data", "name": "Widget", "validVersions": "0-3", "flexibleVersions": "2+",
  "fields": [
    {"name": "Id", "type": "int32", "versions": "0+"},
    {"name": "Label", "type": "string", "versions": "0+", "nullableVersions": "1+"},
    {"name": "Parts", "type": "[]Part", "versions": "0+", "fields": [
      {"name": "Code", "type": "int16", "versions": "0+"},
      {"name": "Weight", "type": "int32", "versions": "1+"}]},
    {"name": "Note", "type": "string", "versions": "3+", "taggedVersions": "3+", "tag": 0}
  ]
}"""


def widget(policy: ForwardPolicy) -> SpecFormat:
    return SpecFormat(load_spec_text(WIDGET), Int16Prefixed(policy), name="Widget")


def outcomes(m):
    return [[m.cell(w, r).outcome.value for r in m.versions] for w in m.versions]


def test_consumer_subscription_matrix():
    m = matrix("ConsumerProtocolSubscription")
    assert m.forward.rule is Forward.CLAMP
    assert outcomes(m) == [["exact"] * 4, ["lossy", "exact", "exact", "exact"], ["lossy", "lossy", "exact", "exact"],
                           ["lossy", "lossy", "lossy", "exact"]]
    assert m.cell(3, 0).lost == ["ownedPartitions", "generationId", "rackId"]
    assert m.cell(2, 1).lost == ["generationId"]
    assert {c.outcome for c in matrix("ConsumerProtocolAssignment").cells.values()} == {Outcome.EXACT}


def test_the_bundled_corpus_confirms_every_cell():
    for type_name in ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment"):
        m, checks = verify(type_name, CORPUS)
        assert [d for c in checks for d in c.disagreements] == []
        assert {c.writer for c in checks} == set(m.versions)  # every writer version was decoded
        lossy = [o for c in checks if c.expected is Outcome.LOSSY for o in c.observations if o.lost]
        assert lossy or type_name.endswith("Assignment"), "some real case actually loses fields"


def test_nested_growth_encoding_switch_and_unknown_tags():
    m = matrix_of(widget(ForwardPolicy.CLAMP))
    assert outcomes(m) == [["exact"] * 4, ["fails", "exact", "exact", "exact"], ["fails", "fails", "exact", "exact"],
                           ["fails", "fails", "lossy", "exact"]]
    assert m.cell(1, 0).reason == ("parts[]: the writer wrote weight where the reader expects the end of the struct "
                                   "(inside a struct)")
    assert m.cell(1, 0).caveats == ["fails when label is null (the reader does not accept null there)"]
    assert m.cell(2, 1).reason == ("at label: the reader reads label (classic string) where the writer wrote label "
                                   "(compact string)")
    assert m.cell(3, 2).lost == ["note (tag 0)"]
    ranges = matrix_of(widget(ForwardPolicy.RANGES))
    assert ranges.cell(3, 2).lost == ["note (tag 0)"] and ranges.cell(2, 1).outcome is Outcome.FAILS
    refuse = matrix_of(widget(ForwardPolicy.REFUSE))
    assert outcomes(refuse) == [["exact"] * 4] + [["fails"] * w + ["exact"] * (4 - w) for w in (1, 2, 3)]


def test_the_widget_matrix_is_what_decoding_shows(tmp_path):
    fmt = widget(ForwardPolicy.CLAMP)
    from kafka_meta.golden import samples

    cases = {}
    for v in fmt.versions:
        con = fmt.construct(v)
        typical = samples.typical(con, "Widget")
        cases[v] = [("typical", fmt.encode(typical, v))]
        if v >= 1:
            cases[v].append(("null-label", fmt.encode({**typical, "label": None}, v)))
    m = matrix_of(fmt)
    checks = check_matrix(m, fmt, cases)
    assert [d for c in checks for d in c.disagreements] == []
    null_read_by_v0 = next(o for c in checks if (c.writer, c.reader) == (1, 0) for o in c.observations
                           if o.case == "null-label")
    assert "decode error" in null_read_by_v0.failure


def test_a_wrong_cell_is_caught_by_decoding():
    fmt = widget(ForwardPolicy.CLAMP)
    m = matrix_of(fmt)
    cases = {1: [("typical", fmt.encode({"id": 1, "label": "x", "parts": [{"code": 2, "weight": 3}], "note": ""}, 1))],
             3: [("tagged", fmt.encode({"id": 1, "label": "x", "parts": [], "note": "n"}, 3))]}
    m.cells[(1, 0)].outcome = Outcome.EXACT  # claim a failing cell reads exactly
    m.cells[(3, 2)].lost = []  # and forget a lost tagged field
    m.cells[(3, 3)].outcome = Outcome.FAILS  # and claim a working cell fails
    problems = {(c.writer, c.reader): c.disagreements for c in check_matrix(m, fmt, cases) if c.disagreements}
    # one element, last in the message: the v0 reader stops early and misses the weight without misreading
    assert problems[(1, 0)] == ["typical loses parts[].weight, which the cell does not name"]
    assert problems[(3, 2)] == ["tagged loses note (tag 0), which the cell does not name"]
    assert problems[(3, 3)] == ["computed to fail, but every case read back correctly"]


def test_forward_hooks_format_attribute_and_family_module(monkeypatch):
    fmt = widget(ForwardPolicy.REFUSE)
    fmt.forward_reading = ForwardReading(Forward.PROBE, note="answers with its own version")
    m = matrix_of(fmt)
    assert {m.cell(w, r).outcome for w in m.versions for r in m.versions if w > r} == {Outcome.PROBING}
    assert m.forward.note == "answers with its own version"

    hook = FormatPlugin("hook", forward_reading=lambda f: "refuse" if f.name == "Widget" else None)
    monkeypatch.setattr("kafka_meta.formats.catalogue.PLUGINS", (hook,))
    assert forward_reading(widget(ForwardPolicy.CLAMP)).rule is Forward.REFUSE
    assert forward_reading(SpecFormat(load_spec_text(WIDGET.replace("Widget", "Gadget")),
                                      Int16Prefixed(ForwardPolicy.CLAMP))).rule is Forward.CLAMP


@pytest.mark.skipif(not GOLDEN_DIR.is_dir() or not SPEC_DIR.is_dir(), reason=SHARED_REASON)
def test_offsets_values_read_by_ranges_checked_with_java_bytes(tmp_path):
    registry = offsets_registry()
    build(tmp_path, GOLDEN_DIR, registry)
    m, checks = verify("OffsetCommit", tmp_path, registry)  # the record name means its value type
    assert m.type_name == "OffsetCommitValue" and m.forward.rule is Forward.RANGES
    assert m.cell(1, 0).lost == ["expireTimestamp"]
    assert m.cell(2, 0).outcome is Outcome.EXACT  # v2 dropped expireTimestamp again: a v0 reader reads it all
    assert m.cell(2, 1).reason == "the message: the reader expects expireTimestamp, which the writer did not write"
    assert m.cell(4, 3).reason == ("at metadata: the reader reads metadata (classic string) where the writer wrote "
                                   "metadata (compact string)")
    assert [d for c in checks for d in c.disagreements] == []
    confirmed = [c for c in checks if c.expected is Outcome.FAILS]
    assert confirmed and all(any(o.failure for o in c.observations) for c in confirmed)
    group = verify("GroupMetadata", tmp_path, registry)[1]
    assert [d for c in group for d in c.disagreements] == []
    assert set(golden_bytes(Path(tmp_path), "OffsetCommitKey", registry)) == {0, 1}


def test_compat_command_text_json_and_verify(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, ["compat", "ConsumerProtocolSubscription"])
    assert code == 0
    lines = out.splitlines()
    assert lines[3:8] == ["writer\\reader  v0     v1     v2     v3",
                          "v0             exact  exact  exact  exact",
                          "v1             lossy  exact  exact  exact",
                          "v2             lossy  lossy  exact  exact",
                          "v3             lossy  lossy  lossy  exact"]
    assert "v3 -> reader v0: loses ownedPartitions, generationId, rackId" in lines
    code, out, _ = run(capsys, monkeypatch, ["compat", "ConsumerProtocolAssignment", "--format", "json",
                                             "--verify", str(CORPUS)])
    doc = json.loads(out)
    assert code == 0 and doc["forwardReading"] == "clamp" and len(doc["cells"]) == 16
    assert all(c["disagreements"] == [] and c["cases"] > 0 for c in doc["checks"])
    code, out, _ = run(capsys, monkeypatch, ["compat", "ConsumerProtocolAssignment", "--verify", str(CORPUS)])
    assert "checked by decoding: 16 cells" in out and "0 disagreements" in out


def test_streams_subscriptions_probe_from_v3_and_assignments_are_refused():
    sub = matrix("SubscriptionInfo")
    assert sub.forward.rule is ForwardPolicy.PROBE and sub.forward.since == 3
    assert sub.cell(11, 3).outcome is Outcome.PROBING and "version probing" in sub.cell(11, 3).reason
    assert sub.cell(3, 2).outcome is Outcome.FAILS and "probe rule starts at v3" in sub.cell(3, 2).reason
    assert {sub.cell(w, r).outcome for w in sub.versions for r in sub.versions if w <= r} == {Outcome.EXACT}
    asg = matrix("AssignmentInfo")  # declared by hand, no spec: its layouts come from its construct trees
    assert asg.forward.rule is ForwardPolicy.REFUSE and "AssignmentInfo.decode fails" in asg.forward.note
    assert asg.cell(8, 7).outcome is Outcome.FAILS and asg.cell(7, 8).outcome is Outcome.EXACT


def test_streams_matrices_agree_with_decoding_java_bytes():
    for type_name in ("SubscriptionInfo", "AssignmentInfo"):
        m, checks = verify(type_name, CORPUS)
        assert [d for c in checks for d in c.disagreements] == [], type_name
        assert {c.writer for c in checks} == set(m.versions)
    _, checks = verify("SubscriptionInfo", CORPUS)
    probes = [o for c in checks if c.expected is Outcome.PROBING for o in c.observations]
    assert probes and all(o.probed for o in probes)


def test_a_type_with_several_layouts_means_its_current_one_unless_named():
    current = matrix("ShareGroupMetadata")  # a record name: its value type, current layout
    assert current.type_name == "ShareGroupMetadataValue"
    assert "Java brokers from 4.0 on" in current.forward.note
    old = verify("ShareGroupMetadataValue@2024-10", CORPUS)[1]
    assert old and all(c.observations for c in old) and not [d for c in old for d in c.disagreements]
