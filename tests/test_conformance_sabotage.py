"""Planted bugs are caught: each bug of tests/sabotage.py, planted in the project's production code only (Kafka's
side and the harness untouched), makes the conformance run fail with the bug's type in its list of unexplained
differences. A bug the run excused would fail here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sabotage

SCRIPT = Path(sabotage.__file__)
CASES = "300"


def test_every_family_of_bug_has_a_plant():
    families = {plant.family for plant in sabotage.PLANTS.values()}
    for family in ("misread", "refused valid input", "accepted invalid input", "tagged-field", "assignor decision",
                   "Streams version decision", "writer"):
        assert any(family in f for f in families), family


@pytest.mark.kafka
@pytest.mark.parametrize("name", sorted(sabotage.PLANTS))
def test_a_planted_bug_fails_the_run_and_is_named(lab, name):
    plant = sabotage.PLANTS[name]
    done = subprocess.run([sys.executable, str(SCRIPT), name, "--cases", CASES, "--type", plant.types],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    listed = done.stdout.split("\nunexplained differences:\n", 1)
    assert len(listed) == 2, done.stdout[-3000:]
    named = [line.strip() for line in listed[1].splitlines() if line.startswith("  ")]
    assert any(line.startswith(plant.named + ":") for line in named), named


@pytest.mark.kafka
def test_without_a_plant_the_same_types_pass(lab):
    types = ",".join(sorted({plant.types for plant in sabotage.PLANTS.values()}))
    done = subprocess.run([sys.executable, "-m", "kafka_meta.testing.conformance", "--cases", CASES, "--type", types],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "unexplained differences:" not in done.stdout
