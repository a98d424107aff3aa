"""``kafka-meta report`` beside ``kafka-meta log --decode`` and ``kafka-meta analyze``, on the same log directory.

Run: ``python bench/report_bench.py [--sizes 0.1 1 10] [--keep DIR] [--no-analyze] [--no-per-core] [--no-log-decode]``
(``--gb`` says the same; ``pip install -e '.[bench]'``: kafka-python writes the batches; ``analyze`` needs the
``spark`` extra).

The log directory is :mod:`analyze_bench`'s (mostly offset commits, a real group record every 2,000 of them,
200 groups, 48,000 commit keys, the same mix at every size), built in a temporary folder, or under ``--keep
DIR`` (``DIR/logs-<gb>``, reused when present). For each size the commands run one after the other, each as its
own process of the installed CLI, as a user runs them::

    kafka-meta log DIR --decode > /dev/null
    kafka-meta report DIR --format json --jobs 1 > report-1.json     (one process)
    kafka-meta report DIR --format json > report.json                (one process per core, from 64 MB)
    kafka-meta analyze DIR --output OUT          (embedded local Spark; skipped with --no-analyze)

The two reports must print the same document (the bench says so, or stops); ``--no-per-core`` and
``--no-log-decode`` leave those commands out (at 10 GB each takes about 20 minutes).

What is measured, per command: the wall time from start to exit; the CPU time (user and system) from ``wait4``
of the command's process, which includes the descendants it waited for (``log --decode``'s reading processes,
which it starts one per core on a large directory; not Spark's JVM, which ``analyze``'s driver stops without
waiting for it, so its CPU column is the driver's alone); the peak resident memory of the command's own process
(``ru_maxrss`` from ``wait4`` and the kernel's high-water mark ``VmHWM``, polled), and the sum of the peaks of
every process of its tree (the polled ``VmHWM`` of each, as :class:`analyze_bench.PeakMemory` samples them:
``analyze``'s JVM and Python workers are its descendants). A segment is read through ``mmap``: its pages count
in the resident memory of whoever reads it, up to a segment's size (64 MB). The records are those the report
counts (every record read: each type, the unknown ones and the ones that did not decode, as ``analyze_bench``
counts them); records/s is that over the wall time of each command. The ratios are the report's wall time over
the other commands' (below 1: the report is faster); records per CPU second say the same where other work shares
the machine. Benches print, they do not assert.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from analyze_bench import PeakMemory, realistic_batches
from log_bench import build_log

CLI = [sys.executable, "-m", "kafka_meta.cli.main"]  # the kafka-meta script's entry point, in this interpreter


@dataclass
class Run:
    """One command's measurements."""

    command: str
    wall_s: float
    cpu_s: float
    own_peak: int  # bytes: the command's own process
    tree_peak: int  # bytes: the sum of the peaks of the command's process and its descendants
    processes: int
    status: int


def measure(command: str, argv: list[str], stdout: Path) -> Run:
    """Run ``argv`` with its output to ``stdout``; its time, CPU and memory (see the module's docstring)."""
    with PeakMemory() as memory, open(stdout, "wb") as out:
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
    seen = {pid: peak for pid, (_, peak) in memory.peaks.items() if pid != os.getpid()}
    own = max(seen.get(child.pid, 0), usage.ru_maxrss << 10)
    tree = own + sum(peak for pid, peak in seen.items() if pid != child.pid)
    return Run(command, wall, usage.ru_utime + usage.ru_stime, own, tree, max(len(seen), 1), child.returncode)


def log_directory(gb: float, keep: Path | None, work: Path) -> tuple[Path, float | None]:
    """The bench's log directory of this size, and the seconds its building took (None: reused)."""
    directory = (keep or work) / f"logs-{gb:g}"
    if directory.exists():
        return directory, None
    started = time.perf_counter()
    build_log(directory, int(gb * (1 << 30)), batches=realistic_batches())
    return directory, time.perf_counter() - started


def counted(report_json: Path) -> tuple[int, int]:
    """The records and groups ``kafka-meta report --format json`` found."""
    report = json.loads(report_json.read_bytes())
    records = sum(report["records"].values()) + report["errors"] + sum(report["unknownRecordTypes"].values())
    return records, len(report["groups"])


def bench(gb: float, keep: Path | None, work: Path, analyze: bool, per_core: bool, log: bool) -> None:
    load = os.getloadavg()[0]
    directory, built = log_directory(gb, keep, work)
    segments = sorted(directory.rglob("*.log"))
    size = sum(p.stat().st_size for p in segments)
    print(f"\n{size / 1e9:.2f} GB ({gb:g} asked), {len(segments)} segments, "
          + (f"built in {built:.0f} s" if built is not None else f"reused from {directory}")
          + f"; machine: {os.cpu_count()} cores, load {load:.2f} at start, {os.getloadavg()[0]:.2f} after building",
          flush=True)
    out = work / f"out-{gb:g}"
    out.mkdir(parents=True, exist_ok=True)
    runs = [measure("log --decode", [*CLI, "log", str(directory), "--decode"], Path(os.devnull))] if log else []
    runs += [measure("report --jobs 1", [*CLI, "report", str(directory), "--format", "json", "--jobs", "1"],
                    out / "report-1.json")]
    records, groups = counted(out / "report-1.json")
    if per_core:
        runs.append(measure("report (per core)", [*CLI, "report", str(directory), "--format", "json"],
                            out / "report.json"))
        if json.loads((out / "report.json").read_bytes()) != json.loads((out / "report-1.json").read_bytes()):
            raise SystemExit("report --jobs 1 and report per core printed different documents")
    if analyze:
        runs.append(measure("analyze", [*CLI, "analyze", str(directory), "--output", str(out / "analyze")],
                            out / "analyze.txt"))
    print(f"records {records:,}, groups {groups}; load {os.getloadavg()[0]:.2f} at the end")
    print(f"{'command':<22} {'wall s':>8} {'CPU s':>8} {'records/s':>11} {'per CPU s':>11} {'peak MB':>8} "
          f"{'tree MB':>8} {'procs':>5} {'exit':>4}")
    for run in runs:
        print(f"{run.command:<22} {run.wall_s:8.1f} {run.cpu_s:8.1f} {records / run.wall_s:11,.0f} "
              f"{records / max(run.cpu_s, 1e-9):11,.0f} "
              f"{run.own_peak / 2**20:8.0f} {run.tree_peak / 2**20:8.0f} {run.processes:5} {run.status:4}")
    for report in (run for run in runs if run.command.startswith("report")):
        if log:
            print(f"{report.command} / log --decode: wall {report.wall_s / runs[0].wall_s:.2f}x, "
                  f"CPU {report.cpu_s / runs[0].cpu_s:.2f}x")
        if analyze:  # analyze's CPU column is its driver's: Spark's JVM is not waited for, so not counted
            print(f"{report.command} / analyze: wall {report.wall_s / runs[-1].wall_s:.2f}x")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", "--gb", dest="gb", type=float, nargs="+", default=[0.1],
                        help="sizes of the log directory in GB, one run each (default 0.1; 0.1 1 10 for all three)")
    parser.add_argument("--keep", type=Path,
                        help="build each log directory under here (logs-<gb>) and keep it; reused if present")
    parser.add_argument("--no-analyze", dest="analyze", action="store_false",
                        help="leave out kafka-meta analyze (Spark)")
    parser.add_argument("--no-per-core", dest="per_core", action="store_false",
                        help="leave out the report with one process per core (and the check that it prints what"
                             " one process prints); at 10 GB that saves a run of about 20 minutes")
    parser.add_argument("--no-log-decode", dest="log", action="store_false",
                        help="leave out kafka-meta log --decode (and the ratios to it): the report's memory alone")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kafka-meta-report-bench-"))
    try:
        print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at start; "
              f"Python {sys.version.split()[0]}")
        for gb in args.gb:
            bench(gb, args.keep, work, args.analyze, args.per_core, args.log)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
