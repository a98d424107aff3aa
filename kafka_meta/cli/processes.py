"""The processes a verb may read with: how many cores it may use, and how its workers are started. One rule for
``log --decode`` and ``report``, which both read a big log directory with one process per core."""

from __future__ import annotations

import multiprocessing
import os
from multiprocessing.context import BaseContext


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the platform says), at least one."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def worker_context() -> BaseContext:
    """Forked workers where the platform can (the parent's imports and compiled readers come along),
    spawned elsewhere."""
    return multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
