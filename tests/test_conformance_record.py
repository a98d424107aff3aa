"""The conformance record in docs/conformance.md describes the code it ran on: the commit it names has the same
readers, writers, assignors and harness as HEAD, or the record lists each file changed since with why the change
does not matter to it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "conformance.md"
# what a conformance run's result depends on: the project's readers and writers, its specs, its assignors and
# version decisions, the errors they raise and the API the harness calls them through, the harness (all of
# kafka_meta/testing: it draws cases with the fuzzing mutator and the hypothesis strategies), and Kafka's side
# (the peer and the release it is built against). The harness also imports kafka_meta.inputs, log, capture and
# protocol, through the fuzzing package's targets, but calls none of them (test_the_list_covers_what_the_harness_uses)
COMPARED = ("kafka_meta/codec", "kafka_meta/wire", "kafka_meta/spec", "kafka_meta/formats", "kafka_meta/models",
            "kafka_meta/offsets", "kafka_meta/streams", "kafka_meta/negotiation", "kafka_meta/kraft",
            "kafka_meta/java_hash.py", "kafka_meta/errors.py", "kafka_meta/api.py", "kafka_meta/__init__.py",
            "kafka_meta/payload_text.py", "kafka_meta/internal_topics",
            "kafka_meta/golden/subjects.py", "kafka_meta/schemas", "schemas", "kafka_meta/testing",
            "lab/src/main/java/kafkameta/lab/peer", "lab/pom.xml", "lab/kafka/pom.xml")
# packages the harness's imports load without its calling them: the fuzzing package's targets read captures and
# log segments, and conformance uses only its mutator (kafka_meta/testing/fuzz/mutate.py, which imports nothing)
# (and the offsets renderer's counters, kafka_meta/counts.py, which the internal topics' JSON brings along)
LOADED_NOT_CALLED = ("kafka_meta/inputs", "kafka_meta/log", "kafka_meta/capture", "kafka_meta/protocol",
                     "kafka_meta/sniff.py", "kafka_meta/golden", "kafka_meta/counts.py")


def record_section() -> str:
    text = DOC.read_text()
    start = text.index("\n## The record\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def test_the_record_names_its_command_commit_and_last_line():
    section = record_section()
    assert re.search(r"^Commit: `[0-9a-f]{7,40}`", section, re.M), "the record names no commit"
    assert "python -m kafka_meta.testing.conformance --cases 100000" in section
    last = re.search(r"^conformance: ([\d,]+)/([\d,]+) identical \(.*, 0 unexplained\)$", section, re.M)
    assert last, "the record's last line, with 0 unexplained"


def test_the_record_ran_on_the_code_at_head():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("no git history here to compare the record's commit with")
    section = record_section()
    commit = re.search(r"^Commit: `([0-9a-f]{7,40})`", section, re.M)
    assert commit
    known = subprocess.run(["git", "cat-file", "-e", f"{commit.group(1)}^{{commit}}"], cwd=ROOT,
                           capture_output=True)
    if known.returncode != 0:
        pytest.skip(f"commit {commit.group(1)} is not in this clone's history (a shallow clone)")
    changed = subprocess.run(["git", "diff", "--name-only", commit.group(1), "HEAD", "--", *COMPARED], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    explained = set(re.findall(r"^- `([^`]+)`: \S", section, re.M))
    unexplained = sorted(set(changed) - explained)
    assert not unexplained, (
        f"changed since the record's commit {commit.group(1)} and not listed under 'Changed since the record' "
        f"with why it does not matter: {unexplained}")


HARNESS_MODULES = """
import importlib, pkgutil, sys
import kafka_meta.testing.conformance as harness
for module in pkgutil.iter_modules(harness.__path__):
    importlib.import_module(f"kafka_meta.testing.conformance.{module.name}")
import kafka_meta
kafka_meta.types()
print("\\n".join(sorted({m.__file__ for n, m in list(sys.modules.items())
                        if n.startswith("kafka_meta") and getattr(m, "__file__", None)})))
"""


def test_the_list_covers_what_the_harness_uses():
    """Every module of the project that loading the whole harness (every family, every registered format) brings
    in is among the files compared, or among those it loads without calling; so a file the run depends on cannot
    change unseen."""
    import sys

    done = subprocess.run([sys.executable, "-c", HARNESS_MODULES], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    loaded = [Path(f).resolve().relative_to(ROOT).as_posix() for f in done.stdout.split()]
    covered = COMPARED + LOADED_NOT_CALLED
    outside = [f for f in loaded if not any(f == c or f.startswith(c + "/") for c in covered)]
    assert loaded and not outside, f"loaded by the harness but not compared: {outside}"
