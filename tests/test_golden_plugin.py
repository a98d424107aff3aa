"""The pytest plugin, run in a throw-away pytest session: one item per case, readable failures."""

from __future__ import annotations

import json
import shutil

from test_golden_corpus import CORPUS

from kafka_meta.golden import find_cases

pytest_plugins = ["pytester"]


def small_corpus(tmp_path):
    root = tmp_path / "golden"
    for subject in ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment"):
        shutil.copytree(CORPUS / subject / "v1", root / subject / "v1")
    return root


def test_each_case_is_an_item_named_after_it(pytester, tmp_path):
    root = small_corpus(tmp_path)
    cases, _ = find_cases(root)
    result = pytester.runpytest("--kafka-meta-golden", str(root), "--collect-only", "-q", "-p", "no:cacheprovider")
    collected = [line for line in result.outlines if "::" in line]
    assert sorted(line.split("::", 1)[1] for line in collected) == sorted(c.id for c in cases)
    result = pytester.runpytest("--kafka-meta-golden", str(root), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(cases))


def test_a_broken_case_fails_with_the_field_diff(pytester, tmp_path):
    root = small_corpus(tmp_path)
    case = next(c for c in find_cases(root)[0] if c.subject == "ConsumerProtocolSubscription")
    doc = json.loads(case.json_path.read_text())
    doc["data"]["topics"].append("extra-topic")
    case.json_path.write_text(json.dumps(doc))
    result = pytester.runpytest("--kafka-meta-golden", str(root), "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, passed=len(find_cases(root)[0]) - 1)
    result.stdout.fnmatch_lines([
        f"*golden case {case.id} (*.json, *.bin):",
        f"decoded bytes differ from the .json: data.topics[[]{len(doc['data']['topics']) - 1}]: "
        'expected "extra-topic", missing*',
        "encoding the .json gives other message bytes: *",
    ])
    assert "Traceback" not in result.stdout.str()


def test_keyword_selection_and_layout_problems(pytester, tmp_path):
    root = small_corpus(tmp_path)
    (root / "ConsumerProtocolAssignment" / "v1" / "stray.bin").write_bytes(b"\x00")
    cases = find_cases(root)[0]
    result = pytester.runpytest("--kafka-meta-golden", str(root), "-k", "Assignment", "-p", "no:cacheprovider")
    assignments = [c for c in cases if c.subject == "ConsumerProtocolAssignment"]
    result.assert_outcomes(passed=len(assignments), deselected=len(cases) - len(assignments) + 1)
    result.stdout.fnmatch_lines([f"collected {len(cases) + 1} items / {len(cases) - len(assignments) + 1} deselected*"])
    result = pytester.runpytest("--kafka-meta-golden", str(root), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(cases), failed=1)
    result.stdout.fnmatch_lines(["golden directory layout:", "*stray.bin: no stray.json beside it*"])


def test_user_specs_can_be_loaded_for_the_cases(pytester, tmp_path):
    spec = tmp_path / "specs" / "Ping.json"
    spec.parent.mkdir()
    spec.write_text(json.dumps({"type": "data", "name": "PingGolden", "validVersions": "0", "flexibleVersions": "none",
                                "fields": [{"name": "Count", "type": "int32", "versions": "0+"}]}))
    case = tmp_path / "golden" / "PingGolden" / "v0"
    case.mkdir(parents=True)
    (case / "one.bin").write_bytes(bytes.fromhex("00000007"))
    (case / "one.json").write_text(json.dumps({"type": "PingGolden", "version": 0, "data": {"count": 7}}))
    # in a subprocess: the specs are registered for good in the process that loads them
    result = pytester.runpytest_subprocess("--kafka-meta-golden", str(tmp_path / "golden"), "--kafka-meta-specs",
                                           str(spec), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
