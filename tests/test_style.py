"""The code style is ruff's, with the project's settings (pyproject.toml, ``[tool.ruff]``): every Python file of
the project passes ``ruff check``, so a style slip fails the suite rather than waiting for a reader to notice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    pytest.importorskip("ruff", reason="ruff is not installed (the test extra has it)")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
