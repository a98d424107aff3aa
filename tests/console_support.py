"""The ``kafka-meta`` console script run as a user runs it, for the tests that start a JVM through it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def run_console(*args: str, timeout: float) -> tuple[subprocess.CompletedProcess, float]:
    """The command's result and how long it took; a timeout kills its process group (a JVM it started with it)
    and fails the test, so no run outlives its test."""
    script = Path(sys.executable).with_name("kafka-meta")
    started = time.monotonic()
    process = subprocess.Popen([str(script), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"kafka-meta {args[0]} did not end in {timeout:.0f} s: {err[-2000:]}")
    return subprocess.CompletedProcess(process.args, process.returncode, out, err), time.monotonic() - started
