"""The README's picture (docs/images/report.png) is the report of the README's quick start as the code makes
it today, checked without Spark.

docs/images/make_report_png.py runs the quick start and draws the picture; beside it, report-figures.json
records the command it ran and what the report counted. Here the record must name the README's command as
it reads now, the README's caption must state the recorded numbers, the picture must be the size the
record says, and ``kafka-meta report`` (the same timeline without Spark, docs/spark.md) over the command's
inputs must count the same groups, rounds and findings: when the code, the fixtures or the command change
what the quick start shows, this fails until the script has drawn the picture again.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
IMAGES = ROOT / "docs" / "images"
CAPTION = re.compile(r"\(docs/images/report\.png\)\s*\n\s*\*[^*]*?(\d+) groups, (\d+) rounds, (\d+) findings", re.S)


def script() -> ModuleType:
    """docs/images/make_report_png.py, for the one reading of the README's command both use."""
    spec = importlib.util.spec_from_file_location("make_report_png", IMAGES / "make_report_png.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKER = script()
RECORDED = json.loads(MAKER.FIGURES.read_text())
COMMAND = MAKER.quick_start_command(README)


def test_the_picture_was_made_from_the_readmes_command():
    assert RECORDED["command"] == shlex.join(COMMAND), "the quick start changed: run docs/images/make_report_png.py"


def test_the_readme_states_the_pictures_numbers():
    caption = CAPTION.search(README)
    assert caption, "README.md: no caption under the picture giving 'N groups, N rounds, N findings'"
    stated = dict(zip(("groups", "rounds", "findings"), map(int, caption.groups()), strict=True))
    assert stated == {key: RECORDED[key] for key in stated}


def test_the_picture_is_the_recorded_screenshot():
    png = MAKER.PNG.read_bytes()
    assert png[:8] == MAKER.PNG_SIGNATURE and len(png) > 50_000
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk, first in every PNG
    assert f"{width}x{height}" == RECORDED["window"]


def test_the_code_still_counts_what_the_picture_shows():
    """The quick start's inputs through ``kafka-meta report`` (the same timeline, no Spark)."""
    inputs = [word for word in COMMAND[2:] if not word.startswith("-")]
    assert inputs and all((ROOT / path).exists() for path in inputs)
    done = subprocess.run([sys.executable, "-m", "kafka_meta.cli.main", "report", *inputs, "--format", "json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode in MAKER.READ, done.stderr
    counted = MAKER.figures(json.loads(done.stdout))
    assert counted == {key: RECORDED[key] for key in counted}, \
        "the quick start's report changed: run docs/images/make_report_png.py (and update the README's caption)"
