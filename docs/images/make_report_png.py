"""Make docs/images/report.png, the README's picture, from the README's quick start as it runs today.

    python docs/images/make_report_png.py

It reads the quick start's ``kafka-meta analyze ...`` command from README.md (so the picture and the
command cannot drift apart), runs it from the project's root with ``--output`` in a temporary directory
(the same job and report; only the Parquet lands elsewhere than ``./kafka-meta-out``), opens the HTML
report it wrote in headless Chromium, and keeps the screenshot. Beside it, report-figures.json records the
command and what the report counts (groups, rounds, findings): the numbers the README states under the
picture, which tests/test_readme_screenshot.py holds to the README and to the code without running Spark.

Needs the spark extra, Java 17 and Chromium (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PNG = Path(__file__).with_name("report.png")
FIGURES = Path(__file__).with_name("report-figures.json")
WINDOW = (1400, 1700)  # wide enough for the groups table on one line per group; tall enough for a chart
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--virtual-time-budget=8000")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# analyze's exit statuses with a report written: 0, or 1 when something could not be read (the quick start's
# sample holds corrupt payloads and damaged batches on purpose, listed in the report)
READ = (0, 1)


class Failed(Exception):
    """A step that could not be done, said in one line."""


def quick_start_command(readme: str) -> list[str]:
    """The words of the quick start's analyze command: the part of its first code block after ``&&``."""
    start = readme.find("## Quick start")
    if start < 0:
        raise Failed(f"{README}: no '## Quick start' section")
    block_start = readme.find("```\n", start)
    block_end = readme.find("\n```", block_start + 4)
    if block_start < 0 or block_end < 0:
        raise Failed(f"{README}: the quick start has no code block")
    words = shlex.split(readme[block_start + 4:block_end].split("&&")[-1])
    if words[:2] != ["kafka-meta", "analyze"]:
        raise Failed(f"{README}: the quick start's first code block does not end in 'kafka-meta analyze ...'")
    return words


def figures(report: dict) -> dict[str, int]:
    """What the report counts, as its summary line says: groups, rounds (over every group), findings."""
    groups = report["groups"]
    return {"groups": len(groups), "rounds": sum(len(g.get("rounds") or []) for g in groups.values()),
            "findings": len(report["findings"])}


def kafka_meta() -> list[str]:
    """The kafka-meta of this interpreter (its console script, else the module)."""
    script = Path(sys.executable).with_name("kafka-meta")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kafka_meta.cli.main"]


def run_quick_start(words: list[str], out: Path) -> Path:
    done = subprocess.run([*kafka_meta(), *words[1:], "--output", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=1800)
    if done.returncode not in READ:
        last = done.stderr.strip().splitlines()[-1:] or ["no message"]
        raise Failed(f"the quick start ended with {done.returncode}: {last[0]}")
    page = out / "report.html"
    if not page.is_file():
        raise Failed(f"the quick start wrote no {page.name} under {out}")
    return page


def screenshot(page: Path, png: Path, profile: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise Failed("chromium is not installed (Debian: apt-get install chromium)")
    done = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                           f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={png}", page.as_uri()],
                          capture_output=True, text=True, timeout=300)
    if not png.is_file() or png.read_bytes()[:8] != PNG_SIGNATURE:
        raise Failed(f"chromium made no screenshot (exit status {done.returncode})")
    if png.stat().st_size < 50_000:  # a blank page of this size compresses to a few kilobytes
        raise Failed(f"the screenshot is {png.stat().st_size} bytes: the report did not draw")


def make() -> dict[str, object]:
    words = quick_start_command(README.read_text())
    with tempfile.TemporaryDirectory(prefix="kafka-meta-report-png-") as tmp:
        page = run_quick_start(words, Path(tmp) / "out")
        counted = figures(json.loads((page.parent / "report.json").read_text()))
        shot = Path(tmp) / "report.png"
        screenshot(page, shot, Path(tmp) / "profile")
        shutil.copyfile(shot, PNG)
    recorded: dict[str, object] = {"command": shlex.join(words), **counted,
                                   "window": f"{WINDOW[0]}x{WINDOW[1]}"}
    FIGURES.write_text(json.dumps(recorded, indent=1) + "\n")
    return recorded


def main() -> int:
    try:
        recorded = make()
    except (Failed, OSError, subprocess.TimeoutExpired, KeyError, ValueError) as error:
        print(f"make_report_png: {error}", file=sys.stderr)
        return 1
    print(f"wrote {PNG.relative_to(ROOT)} and {FIGURES.relative_to(ROOT)}: {recorded['groups']} groups, "
          f"{recorded['rounds']} rounds, {recorded['findings']} findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
