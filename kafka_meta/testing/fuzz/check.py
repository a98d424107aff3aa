"""Running one input through a target and judging it against the readers' promises about bad input.

Memory is tracemalloc's peak during the call, above what was allocated before it. Time is measured while
tracing (which slows Python down), on the wall clock; an input over the limit is timed again untraced, in
CPU time, best of three, so only inputs that are slow by themselves are reported, not the tracer's cost or
the other processes of a busy machine. An input over the memory limit is measured once more: decoders are
built on a type's (and version's) first use and cached, a one-time cost that is not the input's doing;
only an input that is over the limit again is reported. Such caches must stay bounded, though: every
``Limits.retained_every`` inputs the memory still held is sampled, and growth beyond ``Limits.retained``
since the first sample is reported as a leak (it names the input at hand, which is rarely the only
culprit: the statistic is the finding).
"""

from __future__ import annotations

import gc
import hashlib
import os
import struct
import time
import traceback
import tracemalloc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

RETIMES = 3


@dataclass(frozen=True)
class Limits:
    seconds: float = 0.050
    memory_factor: int = 64
    memory_slack: int = 1 << 20
    retained: int = 64 << 20  # growth of what stays allocated between inputs, over a whole run
    retained_every: int = 2000  # inputs between two samples of it (a sample collects garbage: not too often)

    def memory_budget(self, size: int) -> int:
        return self.memory_factor * size + self.memory_slack


@dataclass
class FuzzFinding:
    """An input that broke a promise: ``kind`` is exception, slow, memory or leak."""

    target: str
    kind: str
    data: bytes
    detail: str

    @property
    def digest(self) -> str:
        return hashlib.sha1(self.data).hexdigest()[:12]

    def __str__(self) -> str:
        return f"{self.target}: {self.kind} on {len(self.data)} bytes ({self.digest}): {self.detail}"


@dataclass
class Stats:
    inputs: int = 0
    accepted: int = 0
    rejected: Counter = field(default_factory=Counter)  # documented exception type -> count
    slowest: tuple[float, int] = (0.0, 0)  # seconds, input size
    most_memory: tuple[float, int, int] = (0.0, 0, 0)  # share of the budget, peak bytes, input size

    def summary(self) -> str:
        rejected = ", ".join(f"{n} {name}" for name, n in self.rejected.most_common()) or "none"
        share, peak, size = self.most_memory
        return (f"{self.inputs} inputs: {self.accepted} read, rejected: {rejected}; slowest "
                f"{self.slowest[0] * 1000:.1f} ms ({self.slowest[1]} bytes); most memory {peak / 1024:.0f} KiB "
                f"for {size} bytes ({share:.0%} of its budget)")


class Checker:
    """Calls ``run(data)`` under the limits; keeps statistics; returns a FuzzFinding for a broken promise.

    Use as a context manager: tracemalloc is started once for all inputs (starting it per input would
    cost more than most decodes)."""

    def __init__(self, target: str, run: Callable[[bytes], object], expected: tuple[type[BaseException], ...],
                 limits: Limits | None = None) -> None:
        self.target = target
        self.run = run
        self.expected = expected
        self.limits = limits or Limits()
        self.stats = Stats()
        self.baseline: int | None = None  # traced memory held at the first sample of the leak window

    def __enter__(self) -> Checker:
        self._was_tracing = tracemalloc.is_tracing()
        if not self._was_tracing:
            tracemalloc.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._was_tracing:
            tracemalloc.stop()

    def _call(self, data: bytes) -> BaseException | None:
        try:
            self.run(data)
        except self.expected as e:
            return e
        return None

    def _traced(self, data: bytes) -> tuple[BaseException | None, float, int]:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        started = time.perf_counter()
        rejected = self._call(data)
        seconds = time.perf_counter() - started
        return rejected, seconds, tracemalloc.get_traced_memory()[1] - before

    def check(self, data: bytes) -> FuzzFinding | None:
        stats = self.stats
        stats.inputs += 1
        try:
            rejected, seconds, peak = self._traced(data)
            budget = self.limits.memory_budget(len(data))
            if peak > budget:  # again, with whatever it built on first use now cached
                peak = self._traced(data)[2]
        except Exception as e:  # noqa: BLE001 - an undocumented exception is exactly what is looked for
            frames = traceback.extract_tb(e.__traceback__)
            where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
            return FuzzFinding(self.target, "exception", data, f"{type(e).__name__}: {e}{where}")
        if rejected is None:
            stats.accepted += 1
        else:
            stats.rejected[type(rejected).__name__] += 1
        if peak / budget > stats.most_memory[0]:
            stats.most_memory = (peak / budget, peak, len(data))
        if seconds > self.limits.seconds:
            seconds = self._untraced_seconds(data)
        if seconds > stats.slowest[0]:
            stats.slowest = (seconds, len(data))
        if seconds > self.limits.seconds:
            return FuzzFinding(self.target, "slow", data, f"{seconds * 1000:.1f} ms (limit "
                                                      f"{self.limits.seconds * 1000:.0f} ms)")
        if stats.inputs % self.limits.retained_every == 0:
            leak = self._retained_growth(data)
            if leak is not None:
                return leak
        if peak > budget:
            limits = self.limits
            return FuzzFinding(self.target, "memory", data, f"peak {peak} bytes, over {limits.memory_factor}x the "
                                                        f"input + {limits.memory_slack} bytes ({budget} bytes)")
        return None

    def _retained_growth(self, data: bytes) -> FuzzFinding | None:
        gc.collect()
        current = tracemalloc.get_traced_memory()[0]
        if self.baseline is None:
            self.baseline = current
            return None
        growth = current - self.baseline
        if growth <= self.limits.retained:
            return None
        self.baseline = current  # report each further growth once
        return FuzzFinding(self.target, "leak", data, f"memory kept between inputs grew by {growth >> 20} MiB over "
                                                  f"{self.stats.inputs} inputs")

    def _untraced_seconds(self, data: bytes) -> float:
        """CPU seconds of ``data`` without the tracer, best of :data:`RETIMES`.

        Where the system can fork, the timing runs in a child process that stops tracing there, so this
        process keeps its traces: a tracer stopped and restarted here would see the allocations made after
        the restart but not the frees of what was allocated before it, and on a busy machine (many
        re-timings) the memory it counts as kept between inputs would climb with no leak at all.
        """
        if not hasattr(os, "fork"):
            return self._restarting_tracer(data)
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: time untraced, report, and leave without running any exit handler
            status = 1
            try:
                os.close(reader)
                tracemalloc.stop()
                os.write(writer, struct.pack("<d", self._best_cpu_seconds(data)))
                status = 0
            finally:
                os._exit(status)
        os.close(writer)
        with os.fdopen(reader, "rb") as pipe:
            answer = pipe.read()
        os.waitpid(pid, 0)
        if len(answer) != 8:  # the child died: time it here, at the price of the tracer's restart
            return self._restarting_tracer(data)
        return struct.unpack("<d", answer)[0]

    def _restarting_tracer(self, data: bytes) -> float:
        """Timing untraced in this process: stopping forgets every trace, so the leak window starts anew."""
        self.baseline = None
        tracemalloc.stop()
        try:
            return self._best_cpu_seconds(data)
        finally:
            tracemalloc.start()

    def _best_cpu_seconds(self, data: bytes) -> float:
        best = float("inf")
        for _ in range(RETIMES):
            started = time.process_time()
            self._call(data)
            best = min(best, time.process_time() - started)
        return best
