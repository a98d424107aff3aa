"""The lab's recordings the tests hold the project to: the committed ones and one made in the test session.

A recording (lab/record SCENARIO OUTDIR) is a directory with capture.pcapng (the broker's traffic),
kafka-logs/ (the broker's __consumer_offsets-N and __cluster_metadata-0 segments) and truth.jsonl. The
committed ones live in fixtures/lab/<scenario>/; `fresh_recording` records the `classic` scenario against
the session's broker (the kafka_broker fixture) once per test session, whichever module asks first;
`played` runs another scenario there (truth.jsonl only: no capture, no log copy), also once per session.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import ROOT

FIXTURES = ROOT / "fixtures" / "lab"
# The test modules that use the fresh recording. conftest's scheduler gives them to one test process, so the
# scenario is recorded once per run, not once per process (a recording is not shared across processes: the
# live watch test reads it from its own process's broker as it is made); fresh_recording refuses other modules.
FRESH_RECORDING_MODULES = frozenset({"test_lab_captures.py", "test_lab_dumplog.py", "test_lab_live.py",
                                     "test_lab_watch.py"})
FRESH_SCENARIO = "classic"
_fresh: dict[str, Path] = {}
_played: dict[tuple[str, str], Path] = {}


def committed() -> list[Path]:
    """Every recording under fixtures/lab/ (none until recordings are committed there)."""
    if not FIXTURES.is_dir():
        return []
    return sorted(p for p in FIXTURES.iterdir() if p.is_dir() and (p / "kafka-logs").is_dir())


def committed_params() -> list:
    """The committed recordings as pytest parameters named by scenario."""
    return [pytest.param(path, id=path.name) for path in committed()]


def fresh_recording(lab, broker, tmp_path_factory) -> Path:
    """The `classic` scenario recorded against the session broker; recorded once per session."""
    module = os.environ.get("PYTEST_CURRENT_TEST", "").split("::", 1)[0].rsplit("/", 1)[-1]
    assert module in FRESH_RECORDING_MODULES, f"{module} uses the fresh recording: list it in FRESH_RECORDING_MODULES"
    if broker.directory not in _fresh:
        import labkit.record

        outdir = tmp_path_factory.mktemp(f"recording-{FRESH_SCENARIO}")
        _fresh[broker.directory] = labkit.record.record(FRESH_SCENARIO, outdir, broker_dir=broker.directory)
    return _fresh[broker.directory]


def played(lab, broker, scenario: str, tmp_path_factory) -> Path:
    """`scenario` run against the session broker, its truth.jsonl in the directory returned; run once per
    session."""
    if (broker.directory, scenario) not in _played:
        import labkit.record

        outdir = tmp_path_factory.mktemp(f"played-{scenario}")
        _played[(broker.directory, scenario)] = labkit.record.play(scenario, outdir, broker_dir=broker.directory)
    return _played[(broker.directory, scenario)]


def offsets_segments(recording: Path) -> list[Path]:
    return sorted((recording / "kafka-logs").glob("__consumer_offsets-*/*.log"))


def metadata_segments(recording: Path) -> list[Path]:
    return sorted((recording / "kafka-logs").glob("__cluster_metadata-*/*.log"))
