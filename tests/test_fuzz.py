"""The fuzzing harness: a short pass over every installed target (real seeds, a few hundred mutated
inputs each, seconds in all), the checker's own judgement on readers that do break a promise, and the
command line with both engines."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafka_meta.errors import DecodeError
from kafka_meta.testing.fuzz import TARGETS, Checker, Limits, available
from kafka_meta.testing.fuzz.engines import builtin
from kafka_meta.testing.fuzz.mutate import Mutator

ROOT = Path(__file__).resolve().parents[1]
RUNS = 250
LOADED = available()


@pytest.mark.parametrize("name", list(TARGETS))
def test_short_pass(name):
    if name not in LOADED:
        pytest.skip(f"target {name}: its reader ({TARGETS[name].about.split()[0]}) is not installed")
    target = TARGETS[name]
    seeds = target.seeds()
    assert seeds, f"no seeds for {name}: the golden corpus or the captures are missing"
    checker = Checker(name, LOADED[name], target.expected)
    findings = builtin(checker, seeds, RUNS, seed=1)
    assert [str(f) for f in findings] == []
    stats = checker.stats
    assert stats.inputs == RUNS
    assert stats.accepted > 0  # the seeds are real bytes the reader takes
    if target.expected and not target.reads_around_damage:  # ...and the mutations reach its refusals
        assert sum(stats.rejected.values()) > 0
    assert set(stats.rejected) <= {"DecodeError", "EncodeError", "UnknownTypeError", "SpecError", "InputError",
                                   "CaptureError", "LogError"}


def test_the_checker_catches_each_broken_promise():
    def reader(data: bytes) -> object:
        if data == b"undocumented":
            return {}["missing"]
        if data == b"slow":  # CPU time, as a slow decoder spends it (waiting is not what the limit is about)
            until = time.process_time() + 0.08
            while time.process_time() < until:
                pass
        if data == b"greedy":
            return bytearray(4 << 20)
        if data == b"refused":
            raise DecodeError("bad", offset=0)
        return None

    with Checker("self-test", reader, (DecodeError,), Limits()) as checker:
        kinds = {data: getattr(checker.check(data), "kind", None)
                 for data in (b"ok", b"refused", b"undocumented", b"slow", b"greedy")}
        finding = checker.check(b"undocumented")
    assert kinds == {b"ok": None, b"refused": None, b"undocumented": "exception", b"slow": "slow",
                     b"greedy": "memory"}
    assert "KeyError: 'missing'" in finding.detail and "test_fuzz.py" in finding.detail
    assert checker.stats.accepted == 3 and checker.stats.rejected == {"DecodeError": 1}


def test_retiming_slow_inputs_does_not_look_like_a_leak():
    """A bounded cache churning while slow inputs are re-timed untraced: memory held stays flat, so no leak.

    Re-timing once stopped the tracer in this process; the restarted tracer saw each new cache entry but
    not the frees of the entries made before it, and reported a leak on busy machines.
    """
    cache: dict[int, bytes] = {}

    def churner(data: bytes) -> None:
        cache[data[0] % 4] = bytes(50_000) + data  # at most four entries, replaced as inputs go by
        if data[1]:  # a slow input: re-timed untraced
            deadline = time.process_time() + 0.002
            while time.process_time() < deadline:
                pass

    limits = Limits(seconds=0.001, retained=1 << 20, retained_every=10)
    with Checker("self-test", churner, (), limits) as checker:
        findings = [f for f in (checker.check(bytes([i % 251, (i + 1) % 2])) for i in range(120)) if f]
    assert {f.kind for f in findings} == {"slow"}, [f.detail for f in findings if f.kind != "slow"]
    assert len(findings) == 60


def test_the_checker_catches_memory_kept_between_inputs():
    kept: list[bytes] = []

    def hoarder(data: bytes) -> None:
        kept.append(bytes(20_000) + data)  # like a cache keyed by something in the input

    with Checker("self-test", hoarder, (), Limits(retained=1 << 20, retained_every=20)) as checker:
        findings = [f for f in (checker.check(i.to_bytes(2, "big")) for i in range(120)) if f]
    assert [f.kind for f in findings] == ["leak"]
    assert findings[0].detail.startswith("memory kept between inputs grew by 1 MiB over ")


def test_mutations_are_deterministic_and_bounded():
    seeds = [bytes(range(40)), b"\x00\x01"]
    a, b, c = Mutator(seeds, 7), Mutator(seeds, 7), Mutator(seeds, 8)
    run_a, run_b, run_c = ([m.next() for _ in range(200)] for m in (a, b, c))
    assert run_a == run_b and run_a != run_c
    assert len(set(run_a)) > 100  # they do differ from each other
    assert max(len(x) for x in run_a) <= 40 + 256


def run_module(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "kafka_meta.testing.fuzz", *args], capture_output=True,
                          text=True, env=env, check=False, timeout=300)


def test_command_line_builtin_engine_and_unknown_target():
    result = run_module("control", "--runs", "200", "--engine", "builtin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("control (built-in, ") and "200 inputs" in result.stdout
    assert result.stdout.rstrip().endswith("; 0 finding(s)")
    bad = run_module("nope", "--runs", "10")
    assert bad.returncode == 2 and "unknown target 'nope'" in bad.stderr


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed (the fuzz extra)")
def test_command_line_atheris_engine():
    result = run_module("assignors", "--runs", "500", "--engine", "atheris")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "INFO: instrumented" in result.stderr and "Done 500 runs" in result.stderr
    assert "assignors (atheris, " in result.stdout and "500 inputs" in result.stdout


def test_unknown_future_versions_do_not_grow_the_decoder_cache():
    import gc
    import tracemalloc

    import kafka_meta as km

    def decode_versions(first: int, last: int) -> None:
        for version in range(first, last):
            with contextlib.suppress(DecodeError):
                km.decode("GroupMetadataValue", version.to_bytes(2, "big") + bytes(40))

    decode_versions(100, 110)  # whatever is built once
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        decode_versions(110, 210)
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert retained < 100 * 1024, f"{retained // 100} bytes kept per distinct future version"


@pytest.mark.parametrize("size", [2048, 4096])
def test_capture_windows_cover_each_capture_in_bounded_pieces(size):
    import io

    from kafka_meta.capture import Problem, iter_capture
    from kafka_meta.inputs import CAPTURE
    from kafka_meta.testing.fuzz import seeds

    files = seeds.files(CAPTURE)
    assert files
    for data in files:
        windows = seeds.capture_windows(data, size)
        assert all(len(w) <= size for w in windows)
        whole = [packet for _, packet in seeds.capture_parts(data)]
        pieces = [packet for w in windows for _, packet in seeds.capture_parts(w)]
        fits = [p for p in whole if len(p) < size // 2]  # a packet too big for a window is cut: damage
        assert [p for p in pieces if len(p) < size // 2] == fits
        for w in windows[:20]:  # a window is a capture of its own: read without a problem of its container
            problems = [i for i in iter_capture(io.BytesIO(w)) if isinstance(i, Problem) and i.stage == "container"]
            assert problems == [] or len(w) == size


def test_seed_files_are_found_by_content_as_every_verb_finds_inputs(tmp_path):
    """The fuzz targets take their inputs from the input registry: a capture named like a segment is a
    capture seed, a segment with no suffix is a segment seed, and what is neither is no seed."""
    from kafka_meta.inputs import CAPTURE, SEGMENT
    from kafka_meta.testing.fuzz import seeds

    root = Path(__file__).resolve().parents[1] / "fixtures"
    capture = next((root / "captures" / "pcap").glob("*.pcapng")).read_bytes()
    segment = next((root / "log" / "kafka-logs").rglob("*.log")).read_bytes()
    (tmp_path / "00000000000000000000.log").write_bytes(capture)  # a capture, whatever its name says
    (tmp_path / "batches").write_bytes(segment)
    (tmp_path / "notes.pcap").write_text("not a capture\n")
    assert seeds.files(CAPTURE, [tmp_path]) == [capture]
    assert seeds.files(SEGMENT, [tmp_path]) == [segment]
