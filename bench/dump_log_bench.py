"""`kafka-meta log --decode` against Kafka's own DumpLogSegments, in one run, on the same segment files.

Run: ``python bench/dump_log_bench.py [--mb 20]`` (up to ``--mb 1000``; needs Java 17 and Maven for the lab's
Kafka jars, docs/lab.md).

Builds a log directory in a temporary folder with ``log_bench.build_log`` (the fixtures' real batches repeated at
new offsets over 4 ``__consumer_offsets`` partitions: magic 0, 1 and 2, every codec, transaction markers), then
runs, on the same segment files:

* ``python -m kafka_meta.cli.main log --decode SEGMENT...``: one JSON line per record, decoded (by one process
  per core from 4 MB of segments on), and the same with ``--jobs 1``, one process;
* ``java -cp <the lab's Kafka classpath> org.apache.kafka.tools.DumpLogSegments --files SEGMENT,...
  --offsets-decoder --print-data-log`` (``labkit.dumplog.command``): per record one ``| offset: ...`` line with
  the key and payload decoded to JSON.

Each tool's standard output goes through a pipe to this process, which counts the records it printed (kafka-meta:
its lines without ``_error``; DumpLogSegments: its ``| offset:`` lines; a control marker is one record in both).
Times are wall time from starting the process to its exit, so they include starting Python or the JVM; the time
each tool takes on one small fixture segment is printed beside them as that start-up cost. The tools take turns for
``--rounds`` rounds and each one's fastest run is kept. Exits non-zero when the tools, or two runs of one, disagree
on the number of records.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from log_bench import FIXTURES, build_log

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "lab"
CHUNK = 1 << 20
OURS = "kafka-meta log --decode"
OURS_ONE = "kafka-meta ... --jobs 1"  # one process, whatever the size
KAFKAS = "DumpLogSegments"
OURS_ERROR = b'"_error": '  # a damage line or a record kafka-meta could not decode
KAFKA_RECORD = b"\n| offset: "  # the start of each record's line in DumpLogSegments' output


class Run(NamedTuple):
    tool: str
    records: int
    seconds: float  # wall time
    cpu: float  # user + system seconds of the process, every thread (the JVM compiles and collects on others)
    errors: int  # kafka-meta's lines with _error (none from the fixtures' intact batches)


def labkit():
    if str(LAB) not in sys.path:
        sys.path.insert(0, str(LAB))
    import labkit.build
    import labkit.dumplog

    labkit.build.ensure_built(quiet=False)
    return labkit


def ours_command(segments: list[Path], *options: str) -> list[str]:
    return [sys.executable, "-m", "kafka_meta.cli.main", "log", "--decode", *options, *map(str, segments)]


def kafkas_command(segments: list[Path]) -> list[str]:
    return labkit().dumplog.command(segments, "offsets")


def count(stream, pattern: bytes, first: bytes = b"\n") -> int:
    """Occurrences of ``pattern`` in what ``stream`` gives until its end, read in chunks (``first`` is put before
    the first chunk, so that a pattern starting with a newline also finds the first line)."""
    found, tail = 0, first
    while chunk := stream.read(CHUNK):
        data = tail + chunk
        found += data.count(pattern)
        tail = data[-(len(pattern) - 1):] if len(pattern) > 1 else b""
    return found


def run(tool: str, command: list[str], work: Path) -> Run:
    """Run ``command``, count what it printed; its standard error goes to a file (DumpLogSegments warns there
    about the repeated batches' offsets), quoted when it fails."""
    errors = 0
    err_path = work / f"{tool.replace(' ', '_').replace('.', '')}.stderr"
    with open(err_path, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, env={**os.environ})
        if tool == KAFKAS:
            records = count(proc.stdout, KAFKA_RECORD)
        else:
            records, errors = _count_ours(proc.stdout)
        _, status, usage = os.wait4(proc.pid, 0)  # its exit, with the CPU time it used (all its threads)
        seconds = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
    if code != 0:
        tail = err_path.read_text(errors="replace")[-3000:]
        raise SystemExit(f"{tool} exited with {code}:\n{tail}")
    return Run(tool, records - errors, seconds, usage.ru_utime + usage.ru_stime, errors)


def _count_ours(stream) -> tuple[int, int]:
    lines, errors, tail = 0, 0, b""
    while chunk := stream.read(CHUNK):
        lines += chunk.count(b"\n")
        data = tail + chunk
        errors += data.count(OURS_ERROR)
        tail = data[-(len(OURS_ERROR) - 1):]
    return lines, errors


def startup(work: Path) -> tuple[float, float]:
    """Each tool's wall time on the first fixture segment (a few kilobytes): what starting it costs."""
    segment = sorted((FIXTURES / "__consumer_offsets-0").glob("*.log"))[0]
    return (run(OURS, ours_command([segment]), work).seconds,
            run(KAFKAS, kafkas_command([segment]), work).seconds)


def compare(directory: Path, work: Path, rounds: int) -> tuple[list[Run], bool]:
    """Each tool's fastest of ``rounds`` runs, the tools taking turns (so a slow spell of the machine, or the
    aftermath of the one before, falls on every tool), and whether each tool's runs printed the same records."""
    segments = sorted(directory.rglob("*.log"))
    commands = [(KAFKAS, kafkas_command(segments)), (OURS, ours_command(segments)),
                (OURS_ONE, ours_command(segments, "--jobs", "1"))]
    runs = [[run(tool, command, work) for tool, command in commands] for _ in range(rounds)]
    fastest = [min(each, key=lambda r: r.seconds) for each in zip(*runs, strict=True)]
    same = all(len({(r.records, r.errors) for r in each}) == 1 for each in zip(*runs, strict=True))
    return fastest, same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=20, help="size of the log directory in MB (default 20, up to 1000)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="runs of each tool, taking turns; the fastest of each is kept (default 2)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if not 1 <= args.mb <= 1000:
        parser.error("--mb must be between 1 and 1000")
    labkit()  # build the lab first: not part of any timing
    work = Path(tempfile.mkdtemp(prefix="kafka-meta-dump-bench-"))
    try:
        directory = work / "logs"
        size = build_log(directory, args.mb << 20, (0, 1, 2))
        segments = sorted(directory.rglob("*.log"))
        print(f"{size / 1e6:.0f} MB of __consumer_offsets segments ({len(segments)} files, 4 partitions; magic 0, 1 "
              f"and 2, every codec)")
        ours_start, kafkas_start = startup(work)
        print(f"start-up (one small fixture segment): kafka-meta {ours_start:.2f} s, DumpLogSegments "
              f"{kafkas_start:.2f} s")
        (kafkas, ours, ours_one), same = compare(directory, work, args.rounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{'tool':<26} {'records':>10} {'seconds':>8} {'records/s':>11} {'ratio':>6} {'CPU s':>7}")
    for r in (kafkas, ours, ours_one):
        print(f"{r.tool:<26} {r.records:>10} {r.seconds:>8.2f} {r.records / r.seconds:>11,.0f} "
              f"{r.records / r.seconds / (kafkas.records / kafkas.seconds):>6.2f} {r.cpu:>7.2f}")
    print(f"(seconds: the fastest of {args.rounds} runs, wall time from process start to exit, Python's or the JVM's "
          "start included; ratio: records/s over DumpLogSegments'; CPU s: user + system time of all the process's "
          "threads)")
    if ours.errors:
        print(f"kafka-meta printed {ours.errors} lines with _error (not counted as records)")
    agree = same and ours.records == kafkas.records == ours_one.records
    if not same:
        print("two runs of one tool printed different numbers of records")
    elif not agree:
        print(f"the tools disagree on the number of records: kafka-meta {ours.records} ({ours_one.records} with "
              f"one process), DumpLogSegments {kafkas.records}")
    ours_rate, kafkas_rate = ours.records / ours.seconds, kafkas.records / kafkas.seconds
    print(f"dump: kafka-meta {ours_rate:,.0f} records/s, DumpLogSegments {kafkas_rate:,.0f} records/s, "
          f"ratio {ours_rate / kafkas_rate:.2f}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
