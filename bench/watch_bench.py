"""``kafka-meta watch --from-beginning`` catching up on a big ``__consumer_offsets``, then keeping up under load, on
the lab's real KRaft broker.

Run: ``python bench/watch_bench.py [--records 1000000] [--rate 20000] [--seconds 30]`` (needs Java 17 and Maven
for the lab's broker, kafka-python and confluent-kafka).

1. The lab's broker is started in a temporary folder (``lab/labkit``, as the tests start it) and a topic of
   ``PARTITIONS`` partitions made. ``--records`` offset commits are written by real consumers' OffsetCommit
   requests (confluent-kafka consumers of ``GROUPS`` groups, assigned, not subscribed, each request committing
   every partition of the topic: one ``__consumer_offsets`` record per partition), from ``COMMITTERS``
   processes; a "commit" below is one such record.
2. The floor: a plain kafka-python consumer (``read_committed``, no group) drains ``__consumer_offsets`` from
   its beginning to the log end, once with the watch's fetch settings (``client.FETCH_SETTINGS``) and once with
   kafka-python's defaults, each in a process of its own. Nothing is decoded: the fastest the reader can go.
3. The watch: :func:`kafka_meta.live.session.watch` with the real Kafka source, ``--from-beginning``, in a
   process of its own, which prints four times a second its positions and what it says of its catching up.
   The catch-up time is from the process's start to its ``caught-up`` event; records/s is the backlog over it.
   Once with kafka-python's default fetch settings, then with the watch's own (the one kept running for 4).
4. Load: ``--rate`` commits a second for ``--seconds`` from paced committer processes while the watch runs. The
   bench asks the log end itself four times a second (its own consumer's ListOffsets), which gives when each
   offset was written (interpolated between looks); the watch prints its positions (the records it has read)
   four times a second. For each of the watch's lines over the phase, taken once a second: the lag in records
   is the log end at that moment less what it had read, and in seconds, how long before that moment the log
   end was where the watch is (how old the newest record it has read is). The commit rate held is the log
   end's growth over the time it grew (the committers' start-up left out).

Peak memory is each process's ``VmHWM`` (the kernel's high-water mark of resident memory), polled, and
``ru_maxrss`` from ``wait4``. The ratios are the watch's catch-up rate over each other row's (1.00: as fast as
the reader alone; above 1, faster than that row). Every row's time is from its process's start, imports
included. Benches print, they do not assert.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing import Process
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lab"))

TOPIC = "watch-bench"
PARTITIONS = 100  # each commit request commits them all: a hundred records
GROUPS = 200
COMMITTERS = 2  # processes writing the commits
OFFSETS = "__consumer_offsets"


def commit(bootstrap: str, groups: list[str], records: int, rate: float | None) -> None:
    """``records`` commit records from consumers of ``groups`` (one OffsetCommit request of every partition at a
    time, asynchronous, the groups in turn), at ``rate`` records a second when given, else as fast as they go."""
    from confluent_kafka import Consumer, TopicPartition

    consumers = [Consumer({"bootstrap.servers": bootstrap, "group.id": g, "enable.auto.commit": False,
                           "log_level": 3}) for g in groups]
    started, done, n = time.perf_counter(), 0, 0
    while done < records:
        if rate is not None:
            ahead = done / rate - (time.perf_counter() - started)
            if ahead > 0:
                time.sleep(ahead)
        n += 1
        consumers[n % len(consumers)].commit(
            offsets=[TopicPartition(TOPIC, p, n) for p in range(PARTITIONS)], asynchronous=True)
        done += PARTITIONS
        if n % 20 == 0:
            for c in consumers:
                c.poll(0)  # serves the commits' answers
    for c in consumers:
        c.close()  # waits for the commits still in flight


def committers(bootstrap: str, records: int, rate: float | None) -> list[Process]:
    share = [f"bench-group-{g}" for g in range(GROUPS)]
    processes = [Process(target=commit, args=(bootstrap, share[k::COMMITTERS], records // COMMITTERS,
                                              None if rate is None else rate / COMMITTERS))
                 for k in range(COMMITTERS)]
    for p in processes:
        p.start()
    return processes


def log_end(consumer: Any) -> int:
    """The sum of the log ends of ``__consumer_offsets`` as a ``read_committed`` reader reaches them."""
    from kafka import TopicPartition

    from kafka_meta.live.client import end_offsets

    partitions = [TopicPartition(OFFSETS, p) for p in sorted(consumer.partitions_for_topic(OFFSETS))]
    return sum(end_offsets(consumer, partitions, 30.0).values())


def drain(bootstrap: str, tuned: bool) -> None:
    """Child: read ``__consumer_offsets`` from its beginning to the log end as it was at the start, nothing
    decoded; prints the records and the seconds."""
    from kafka import KafkaConsumer, TopicPartition

    from kafka_meta.live.client import FETCH_SETTINGS

    started = time.perf_counter()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                             isolation_level="read_committed", **(FETCH_SETTINGS if tuned else {}))
    partitions = [TopicPartition(OFFSETS, p) for p in sorted(consumer.partitions_for_topic(OFFSETS))]
    consumer.assign(partitions)
    consumer.seek_to_beginning(*partitions)
    total, read = log_end(consumer), 0
    while read < total:
        for records in consumer.poll(timeout_ms=500).values():
            read += len(records)
    print(json.dumps({"records": read, "seconds": time.perf_counter() - started}), flush=True)
    consumer.close()


class Sampler:
    """Child's output: once a second a line with the positions and the catching-up state, and the caught-up
    event as it comes."""

    def __init__(self) -> None:
        self.last = 0.0
        self.every_s = 0.25

    def event(self, e: Any) -> None:
        if e.kind in ("caught-up", "catching-up"):
            print(json.dumps({"event": e.kind, **e.to_json()}), flush=True)

    def tick(self, core: Any, now: float) -> None:
        if now - self.last >= self.every_s:
            self.last = now
            state = core.catchup.state
            print(json.dumps({"sample": now, "read": sum(p for (t, _), p in core.positions.items() if t == OFFSETS),
                              "catchUp": None if state is None else state.to_json(),
                              "stateSize": core.state_size()}), flush=True)

    def close(self, core: Any) -> None:
        pass


# kafka-python's own defaults for what client.FETCH_SETTINGS sizes
KAFKA_PYTHON_DEFAULTS = {"max_poll_records": 500, "max_partition_fetch_bytes": 1 << 20, "fetch_max_bytes": 50 << 20}


def watch_child(bootstrap: str, seconds: float, tuned: bool) -> None:
    from kafka_meta.live import client
    from kafka_meta.live.session import WatchOptions, watch

    if not tuned:  # the consumer's settings (the admin client, which takes the same settings, has none of these)
        client.FETCH_SETTINGS = KAFKA_PYTHON_DEFAULTS
    watch(WatchOptions(bootstrap, from_beginning=True, duration_s=seconds), [Sampler()])


class Child:
    """This script again in a process of its own, its lines read as they come, its memory polled."""

    def __init__(self, *argv: str) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen([sys.executable, __file__, *argv], stdout=subprocess.PIPE, text=True,
                                        env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.lines: list[tuple[float, dict[str, Any]]] = []
        self.peak = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.poller = threading.Thread(target=self._poll, daemon=True)
        self.poller.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append((time.perf_counter(), json.loads(line)))

    def _poll(self) -> None:
        while self.process.poll() is None:
            try:
                status = Path(f"/proc/{self.process.pid}/status").read_text()
            except OSError:
                break
            match = re.search(r"VmHWM:\s+(\d+) kB", status)
            if match:
                self.peak = max(self.peak, int(match.group(1)) << 10)
            time.sleep(0.2)

    def wait(self) -> float:
        _, status, usage = os.wait4(self.process.pid, 0)
        self.process.returncode = os.waitstatus_to_exitcode(status)
        self.reader.join(5)
        self.peak = max(self.peak, usage.ru_maxrss << 10)
        return time.perf_counter() - self.started

    def first(self, key: str, value: Any = None) -> tuple[float, dict[str, Any]] | None:
        return next(((t, d) for t, d in self.lines if (d.get(key) == value if value is not None else key in d)),
                    None)


def lag_at(timeline: list[tuple[float, int]], at: float, read: int) -> tuple[int, float]:
    """How far behind the log end a reader that had read ``read`` records at ``at`` was: in records (the log
    end at ``at`` less ``read``) and in seconds (``at`` less when the log end was at ``read``), the log end
    interpolated between the looks of ``timeline``."""
    times = [t for t, _ in timeline]
    i = max(1, min(bisect.bisect_left(times, at), len(timeline) - 1))
    (t0, e0), (t1, e1) = timeline[i - 1], timeline[i]
    end = e0 + (e1 - e0) * (at - t0) / (t1 - t0) if t1 > t0 else e1
    behind = max(0, round(end - read))
    if behind == 0:
        return 0, 0.0
    j = bisect.bisect_left([e for _, e in timeline], read)  # the first look at or past what it had read
    if j == 0:
        return behind, at - timeline[0][0]
    (t0, e0), (t1, e1) = timeline[j - 1], timeline[min(j, len(timeline) - 1)]
    written = t0 + (t1 - t0) * (read - e0) / (e1 - e0) if e1 > e0 else t1
    return behind, max(0.0, at - written)


def caught_up(child: Child) -> float:
    """Seconds from the child's start to its caught-up event."""
    deadline = time.perf_counter() + 600
    while child.first("event", "caught-up") is None:
        if time.perf_counter() > deadline or child.process.poll() is not None:
            raise SystemExit("the watch did not catch up")
        time.sleep(0.2)
    caught = child.first("event", "caught-up")
    assert caught is not None
    return caught[0] - child.started


def mb(n: int) -> str:
    return f"{n / 2**20:.0f}"


def bench(records: int, rate: float, seconds: float) -> None:
    from kafka import KafkaConsumer
    from kafka.admin import KafkaAdminClient, NewTopic
    from labkit import broker as labbroker

    work = Path(tempfile.mkdtemp(prefix="kafka-meta-watch-bench-"))
    directory = work / "broker"
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at start; Python {sys.version.split()[0]}")
    broker = labbroker.start(directory, owner_pid=os.getpid())
    try:
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])
        admin.close()
        ends = KafkaConsumer(bootstrap_servers=broker.bootstrap, group_id=None, isolation_level="read_committed")
        started = time.perf_counter()
        for p in committers(broker.bootstrap, records, None):
            p.join()
        preload = time.perf_counter() - started
        backlog = log_end(ends)
        print(f"preloaded {backlog:,} records of {OFFSETS} ({GROUPS} groups x {PARTITIONS} partitions committed) "
              f"in {preload:.1f} s ({backlog / preload:,.0f}/s); load {os.getloadavg()[0]:.2f}", flush=True)

        floors = {}
        for name, tuned in (("drain, watch's fetch settings", True), ("drain, kafka-python defaults", False)):
            child = Child("--child-drain", broker.bootstrap, "tuned" if tuned else "defaults")
            wall = child.wait()
            done = child.lines[-1][1]
            floors[name] = (done["records"], done["seconds"], wall, child.peak)

        untuned = Child("--child-watch", broker.bootstrap, str(3600), "defaults")
        caught_untuned = caught_up(untuned)
        untuned.process.terminate()
        untuned.wait()
        child = Child("--child-watch", broker.bootstrap, str(3600), "tuned")
        took = caught_up(child)
        caught_peak = child.peak
        said = [d["catchUp"]["message"] for _, d in child.lines if d.get("catchUp") and not d["catchUp"]["caughtUp"]]

        # under load: the bench's own look at the log end once a second, against the watch's newest positions
        phase_start = time.perf_counter()
        timeline = [(phase_start, log_end(ends))]  # (when, the log end then)
        load = committers(broker.bootstrap, int(rate * seconds), rate)
        while any(p.is_alive() for p in load):
            time.sleep(0.25)
            timeline.append((time.perf_counter(), log_end(ends)))
        for p in load:
            p.join()
        phase_end = time.perf_counter()
        timeline.append((phase_end, log_end(ends)))
        # the commit rate held: over the time the log end grew (the committers' start-up and end left out)
        growing = [t for (t, e), (_, before) in zip(timeline[1:], timeline, strict=False) if e > before]
        phase = growing[-1] - growing[0] if len(growing) > 1 else phase_end - phase_start
        written = next(e for t, e in timeline if t >= growing[-1]) - next(e for t, e in timeline
                                                                          if t >= growing[0]) if growing else 0
        looks = [(t, d["read"]) for t, d in child.lines if "read" in d and phase_start + 1 <= t <= phase_end]
        looks = [look for i, look in enumerate(looks) if i % 4 == 0]  # once a second
        lags = [lag_at(timeline, t, read) for t, read in looks]
        time.sleep(3)
        child.process.terminate()
        child.wait()
        ends.close()
        final = next(d for _, d in reversed(child.lines) if "read" in d)
    finally:
        labbroker.stop(directory)
        shutil.rmtree(work, ignore_errors=True)

    print(f"\ncatching up on {backlog:,} records")
    print(f"{'reader':<34} {'seconds':>8} {'records/s':>10} {'peak MB':>8} {'watch/this':>10}")
    watch_rate = backlog / took
    for name, (n, _, wall, peak) in floors.items():
        print(f"{name:<34} {wall:8.1f} {n / wall:10,.0f} {mb(peak):>8} {watch_rate / (n / wall):10.2f}")
    slow = backlog / caught_untuned
    print(f"{'watch, kafka-python defaults':<34} {caught_untuned:8.1f} {slow:10,.0f} {mb(untuned.peak):>8} "
          f"{watch_rate / slow:10.2f}")
    print(f"{'watch --from-beginning':<34} {took:8.1f} {watch_rate:10,.0f} {mb(caught_peak):>8} {1.0:10.2f}")
    if said:
        print(f"it said, e.g.: {said[len(said) // 2]!r}")
    held = written / phase
    print(f"\nunder load for {phase:.0f} s: {held:,.0f} commits/s held (asked {rate:,.0f}/s), "
          f"{len(lags)} looks at the lag (one a second)")
    if lags:
        records_behind, seconds_behind = [n for n, _ in lags], [s for _, s in lags]
        print(f"lag behind the log end: median {statistics.median(records_behind):,.0f} records, "
              f"{statistics.median(seconds_behind):.2f} s; max {max(records_behind):,} records, "
              f"{max(seconds_behind):.2f} s")
    print(f"watch peak memory {mb(child.peak)} MB (at caught-up {mb(caught_peak)} MB); its state size "
          f"{final['stateSize']:,}; load {os.getloadavg()[0]:.2f} at the end")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child-drain":
        drain(sys.argv[2], sys.argv[3] == "tuned")
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--child-watch":
        watch_child(sys.argv[2], float(sys.argv[3]), sys.argv[4] == "tuned")
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="commits preloaded (default 1,000,000)")
    parser.add_argument("--rate", type=float, default=20_000, help="commits a second under load (default 20,000)")
    parser.add_argument("--seconds", type=float, default=30, help="how long the load lasts (default 30)")
    args = parser.parse_args()
    bench(args.records, args.rate, args.seconds)


if __name__ == "__main__":
    main()
