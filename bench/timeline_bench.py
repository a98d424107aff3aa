"""Cost of the rebalance timeline and its faces, against the work they build on, measured in this run.

Run: ``python bench/timeline_bench.py`` from the checkout root (reads fixtures/captures). Prints
milliseconds per run and ratios:

* building the timeline (rounds, triggers, findings) from the exchanges of every bundled capture vs.
  reading those captures (the capture reader's decoding is the floor the timeline adds to);
* the same exchanges repeated 20 times over (rounds shifted in time, new group names): the builder should
  stay linear, so the ratio to 20x one pass should be near 1;
* the terminal report and the HTML page vs. building the timeline they draw.
"""

from __future__ import annotations

import copy
import timeit
from collections.abc import Callable
from pathlib import Path

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.capture import read_capture
from kafka_meta.report.html import render_html
from kafka_meta.report.terminal import terminal_text

ROOT = Path(__file__).resolve().parents[1]
PCAPS = sorted((ROOT / "fixtures" / "captures" / "pcap").iterdir())
COPIES = 20


def timed(fn: Callable[[], object], number: int = 3, repeat: int = 3) -> float:
    """Best-of-``repeat`` milliseconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e3


def read_all() -> list[dict]:
    return [e.to_dict() for p in PCAPS for e in read_capture(str(p))]


def copies(exchanges: list[dict], n: int) -> list[dict]:
    """``n`` copies of the traffic, as ``n`` other groups an hour apart each."""
    out = []
    for i in range(n):
        for e in copy.deepcopy(exchanges):
            e["ts"] += i * 3600
            if e.get("responseTs") is not None:
                e["responseTs"] += i * 3600
            if e.get("groupId"):
                e["groupId"] = f"{e['groupId']}-{i}"
            if isinstance(e.get("request"), dict) and e["request"].get("groupId"):
                e["request"]["groupId"] = e["groupId"]
            out.append(e)
    return out


def main() -> int:
    exchanges = read_all()
    read_ms = timed(read_all)
    build_ms = timed(lambda: build_timeline(exchanges))
    print(f"{len(exchanges)} exchanges of {len(PCAPS)} captures: read {read_ms:8.1f} ms   "
          f"timeline {build_ms:8.1f} ms   ratio {build_ms / read_ms:.2f}x")
    many = copies(exchanges, COPIES)
    many_ms = timed(lambda: build_timeline(many), number=1)
    print(f"{COPIES}x the traffic ({len(many)} exchanges): timeline {many_ms:8.1f} ms   "
          f"{COPIES}x one pass {COPIES * build_ms:8.1f} ms   ratio {many_ms / (COPIES * build_ms):.2f}x")
    timeline = build_timeline(exchanges)
    text_ms = timed(lambda: terminal_text(AnalysisReport(timeline=timeline)))
    html_ms = timed(lambda: render_html(AnalysisReport(timeline=timeline)), number=1)
    print(f"terminal report {text_ms:8.1f} ms   ratio to the timeline {text_ms / build_ms:.2f}x   "
          f"HTML page {html_ms:8.1f} ms   ratio {html_ms / build_ms:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
