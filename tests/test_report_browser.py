"""The HTML report in a real browser: headless Chromium opens the report made from the bundled captures and
sample, offline, runs its scripts, and must draw every chart without a console message. The screenshot it
takes is the one docs/timeline.md shows (docs/images/timeline.png), so the picture stays true to the code. (The
README's picture, docs/images/report.png, is the quick start's: docs/images/make_report_png.py draws it.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pcap_exchanges import CAPTURES, capture_exchanges

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.report.html import write_html

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "fixtures" / "captures" / "capture.jsonl"
SCREENSHOT = ROOT / "docs" / "images" / "timeline.png"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=8000")
CONSOLE = re.compile(r":CONSOLE[^\]]*\] (.*)")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install "
                                                          "chromium)")


def browse(page: Path, profile: Path, *extra: str) -> tuple[str, list[str]]:
    """Open a page offline; its DOM after the scripts ran (with --dump-dom) and the console messages."""
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    return done.stdout, [m.group(1) for m in CONSOLE.finditer(done.stderr)]


def test_the_console_check_sees_script_errors(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text("<html><body><script>missingFunction();</script></body></html>")
    _, console = browse(page, tmp_path / "profile", "--dump-dom")
    assert any("missingFunction is not defined" in m for m in console)


def test_report_renders_its_charts_without_console_errors(tmp_path):
    rows = [r for r in map(json.loads, SAMPLE.read_text().splitlines()) if "key" in r]
    exchanges = [e for path in CAPTURES.values() for e in capture_exchanges(path)]
    timeline = build_timeline(exchanges, rows)
    page = write_html(AnalysisReport(timeline=timeline), tmp_path / "report.html")
    charts = sum(1 for g in timeline.groups if g.rounds or g.findings)

    dom, console = browse(page, tmp_path / "profile", "--dump-dom")
    assert console == []
    for i in range(charts):  # plotly replaced each chart's empty div with its drawing
        div = dom.index(f'id="chart-{i}"')
        following = dom[div:dom.find('id="chart-', div + 1) if i + 1 < charts else len(dom)]
        assert 'class="main-svg"' in following, f"chart {i} was not drawn"
    assert dom.count("class=\"plot-container plotly\"") == charts

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    _, console = browse(page, tmp_path / "profile2", "--window-size=1400,1700", f"--screenshot={SCREENSHOT}")
    assert console == []
    png = SCREENSHOT.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and 50_000 < len(png) < 2 * 1024 * 1024
