"""``kafka-meta analyze`` end to end on a realistic ``__consumer_offsets`` log directory: where the time goes.

Run: ``python bench/analyze_bench.py [--gb 0.1] [--no-breakdown]`` (``pip install -e '.[bench]'``: kafka-python
writes the batches).

The log directory is built as a broker's would look: mostly offset commits (a consumer commits its partitions
every few seconds, one batch per OffsetCommit request, uncompressed as the coordinator writes them by
default), and now and then a group's metadata records, taken from the real records of ``fixtures/log`` (a
GroupMetadata of every shape the fixtures hold, KIP-848, share and streams records), one for about every
:data:`COMMITS_PER_GROUP_RECORD` commits. A block of distinct batches is repeated at new offsets up to the
size asked for, so the keys repeat as they do in a real topic and compaction's newest record per key is work
to find.

The job runs in this process, as ``kafka-meta analyze DIR`` runs it (the same session settings and the same
``run`` and ``write_report``), timed step by step: Spark start, then each step of the job (the Python workers
read, decode, write ``offsets/`` and ``groups/`` and tally the counts in one Spark action, so ``--breakdown``
first times the same tasks reading alone and reading and decoding, writing nothing, in the same session, to
split that action), the members Parquet, the counts and the newest record per key, the timeline and the
report files. Peak memory is the
kernel's high-water mark (``VmHWM``) of the Python driver, the JVM and each Python worker. The last line is
``analyze: N records in T s, R records/s`` (Spark start included, the breakdown passes not).
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from log_bench import FIXTURES, build_log

COMMITS_PER_GROUP_RECORD = 2_000  # a rebalance every few minutes beside commits every few seconds
GROUPS, TOPICS, PARTITIONS = 200, 20, 12  # 48,000 commit keys
COMMITS_PER_REQUEST = 12  # one member's partitions of one topic, committed together
BLOCK_BYTES = 8 << 20  # distinct batches, repeated at new offsets up to the size asked for
START_MS = 1_767_225_600_000


def _kafka_python_batch(records: list[tuple[bytes, bytes | None]], timestamp: int) -> bytes:
    from kafka.record.memory_records import MemoryRecordsBuilder

    builder = MemoryRecordsBuilder(2, 0, batch_size=1 << 30)
    for key, value in records:
        builder.append(timestamp, key, value)
    builder.close()
    return bytes(builder.buffer())


def _group_records() -> list[tuple[bytes, bytes | None]]:
    """Every record of the fixtures that is not an offset commit: real group metadata of every kind."""
    from kafka_meta.log import read_log

    out = []
    for row in read_log(str(FIXTURES)):
        key = row.get("key")
        if row.get("_error") or row.get("control") or key is None or len(key) < 2:
            continue
        if int.from_bytes(key[:2], "big") not in (0, 1):
            out.append((bytes(key), None if row.get("value") is None else bytes(row["value"])))
    return out


def _commits(rng_seed: int = 0) -> Iterator[list[tuple[bytes, bytes | None]]]:
    """OffsetCommit requests as the coordinator writes them: one batch of a member's partitions each."""
    import random

    from kafka_meta.offsets import encode_record, new_record

    rng = random.Random(rng_seed)
    offsets: dict[tuple[int, int, int], int] = {}
    while True:
        group, topic = rng.randrange(GROUPS), rng.randrange(TOPICS)
        batch = []
        for partition in range(COMMITS_PER_REQUEST):
            position = (group, topic, partition)
            offsets[position] = offsets.get(position, rng.randrange(1 << 20)) + rng.randrange(1, 500)
            batch.append(encode_record(new_record(1, {"group": f"group-{group}", "topic": f"topic-{topic}",
                                                      "partition": partition},
                                                  {"offset": offsets[position], "leaderEpoch": 7, "metadata": "",
                                                   "commitTimestamp": START_MS})))
        yield batch


def realistic_batches() -> list[tuple[bytes, int]]:
    """A block of about :data:`BLOCK_BYTES` of batches: commits, and a group record every so often."""
    group_records = _group_records()
    out: list[tuple[bytes, int]] = []
    size = commits = 0
    next_group_record = 0
    for n, batch in enumerate(_commits()):
        if size >= BLOCK_BYTES:
            break
        if commits >= next_group_record:
            record = group_records[(next_group_record // COMMITS_PER_GROUP_RECORD) % len(group_records)]
            data = _kafka_python_batch([record], START_MS + n)
            out.append((data, 1))
            size += len(data)
            next_group_record += COMMITS_PER_GROUP_RECORD
        data = _kafka_python_batch(batch, START_MS + n)
        out.append((data, len(batch)))
        size += len(data)
        commits += len(batch)
    return out


class PeakMemory:
    """The kernel's high-water mark of resident memory of this process and its descendants, polled."""

    def __init__(self) -> None:
        self.peaks: dict[int, tuple[str, int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _poll(self) -> None:
        while not self._stop.wait(0.25):
            self._sample()

    def _sample(self) -> None:
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                children.setdefault(parent, []).append(int(entry.name))
        todo = [os.getpid()]
        while todo:
            pid = todo.pop()
            todo += children.get(pid, [])
            try:
                status = Path(f"/proc/{pid}/status").read_text()
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            match = re.search(r"VmHWM:\s+(\d+) kB", status)
            if match:
                self.peaks[pid] = (_role(pid, cmdline), int(match.group(1)) << 10)

    def by_role(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for role, peak in self.peaks.values():
            out.setdefault(role, []).append(peak)
        return out


def _role(pid: int, cmdline: str) -> str:
    if pid == os.getpid():
        return "Python driver"
    if "java" in cmdline.split(" ", 1)[0]:
        return "JVM (Spark driver and executors)"
    if "pyspark" in cmdline or "python" in cmdline:
        return "Python worker"
    return "other"


class Steps:
    """The job's progress lines, each with the time it was printed."""

    def __init__(self) -> None:
        self.marks: list[tuple[float, str]] = []

    def __call__(self, line: str) -> None:
        self.marks.append((time.perf_counter(), line.split("] ", 1)[-1]))
        print(f"  {line}", file=sys.stderr, flush=True)


STAGE_NAMES = (("Spark master", "read, decode, write offsets/ and groups/, tally"),
               ("decoding __consumer_offsets records", "read, decode, write offsets/ and groups/, tally"),
               ("decoding the group records", "groups/ (the group records decoded again)"),
               ("exploding group members", "members/"),
               ("counting, and finding the latest record", "counts and the newest record per key"),
               ("building the rebalance timeline", "timeline"))


def _stage(step: str) -> str:
    return next((name for part, name in STAGE_NAMES if part in step), step)


def breakdown(spark: object, directory: Path) -> tuple[float, float]:
    """Seconds to read the log, and to read and decode it, as the job's writing tasks do (one Spark task per
    segment, in the Python workers) but writing nothing: what is left of the job's step is Parquet and tallies."""
    from kafka_meta.spark.job import COMMIT_TYPES
    from kafka_meta.spark.offsets_writer import LogInput, segment_tasks
    from kafka_meta.spark.sources.log import decoded_batch, segment_rows

    tasks = segment_tasks([LogInput(str(directory), [str(directory)])])

    def passes(decode: bool) -> float:
        def run_tasks(batches: Iterator[Any]) -> Iterator[Any]:
            import pyarrow as pa

            from kafka_meta.log import Segment

            for batch in batches:
                for index in batch.column(0).to_pylist():
                    task, rows = tasks[index], 0
                    for rows_read in segment_rows(Segment(task.path, task.topic, task.partition), []):
                        rows += (decoded_batch(rows_read, COMMIT_TYPES) if decode else rows_read).num_rows
                    yield pa.RecordBatch.from_pydict({"rows": [rows]})

        start = time.perf_counter()
        spark.range(0, len(tasks), 1, len(tasks)).mapInArrow(run_tasks, "rows long").collect()  # type: ignore
        return time.perf_counter() - start

    return passes(False), passes(True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=0.1, help="size of the log directory (default 0.1)")
    parser.add_argument("--breakdown", action=argparse.BooleanOptionalAction, default=True,
                        help="also time reading alone and reading with decoding (default on)")
    parser.add_argument("--keep", type=Path, help="build the log directory here and keep it (reused if present)")
    args = parser.parse_args()

    from kafka_meta.spark.job import Progress, run, write_report
    from kafka_meta.spark.session import local_session

    work = Path(tempfile.mkdtemp(prefix="kafka-meta-analyze-bench-"))
    directory = args.keep or work / "logs"
    try:
        if not directory.exists():
            started = time.perf_counter()
            size = build_log(directory, int(args.gb * (1 << 30)), batches=realistic_batches())
            print(f"built {size / 1e9:.2f} GB of segments in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        size = sum(p.stat().st_size for p in directory.rglob("*.log"))
        print(f"log directory: {size / 1e9:.2f} GB, {len(list(directory.rglob('*.log')))} segments; "
              f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at start")
        steps = Steps()
        with PeakMemory() as memory:
            started = time.perf_counter()
            spark = local_session("kafka-meta analyze", progress=False)
            spark_start = time.perf_counter() - started
            split = breakdown(spark, directory) if args.breakdown else None
            begun = time.perf_counter()
            report = run(spark, [str(directory)], output=str(work / "out"), progress=Progress(steps))
            steps.marks.append((time.perf_counter(), "writing the report"))
            write_report(report, str(work / "out"))
            ended = time.perf_counter()
            spark.stop()
        stages: dict[str, float] = {"Spark start": spark_start}
        marks = [*steps.marks, (ended, "end")]
        for (at, step), (then, _) in itertools.pairwise(marks):
            if step != "done":
                stages[_stage(step)] = stages.get(_stage(step), 0.0) + (then - at)
        total = spark_start + (ended - begun)
        records = sum(report.records.values()) + report.errors + sum(report.unknown_types.values())
        print(f"\n{'stage':<48} {'seconds':>8} {'share':>6}")
        for name, seconds in stages.items():
            print(f"{name:<48} {seconds:8.1f} {seconds / total:6.0%}")
            if name.startswith("read, decode") and split is not None:
                read_s, decode_s = split
                print(f"  {'of which reading (alone, noop sink)':<46} {read_s:8.1f}")
                print(f"  {'of which decoding (read and decode, less reading)':<46} {decode_s - read_s:8.1f}")
                print(f"  {'of which Parquet and tallies (the rest)':<46} {seconds - decode_s:8.1f}")
        print("\npeak resident memory")
        for role, peaks in sorted(memory.by_role().items()):
            shown = ", ".join(f"{p / 2**20:.0f}" for p in sorted(peaks, reverse=True)[:8])
            print(f"  {role:<40} {len(peaks):3} process(es), MB: {shown}")
        print(f"groups {len(report.groups)}, rounds {sum(len(g.rounds) for g in report.story.groups)}")
        print(f"analyze: {records} records in {total:.1f} s, {records / total:,.0f} records/s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
