"""Driving a target: the built-in loop (seeds first, then mutations) or atheris (coverage-guided).

Both stop at ``runs`` inputs. The built-in loop collects every finding and carries on; atheris stops at the
first, as libFuzzer does, leaving the input in a ``crash-*`` file.
"""

from __future__ import annotations

import contextlib
import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from kafka_meta.testing.fuzz.check import Checker, FuzzFinding
from kafka_meta.testing.fuzz.mutate import Mutator

SEED_SHARE = 3  # seeds take at most a third of a run: a short run still mutates


def builtin(checker: Checker, seeds: list[bytes], runs: int, seed: int = 0,
            on_finding: Callable[[FuzzFinding], None] | None = None) -> list[FuzzFinding]:
    findings: list[FuzzFinding] = []
    mutator = Mutator(seeds, seed)
    first = seeds if len(seeds) <= runs // SEED_SHARE else random.Random(seed).sample(seeds, runs // SEED_SHARE)
    with checker:
        for i in range(runs):
            data = first[i] if i < len(first) else mutator.next()
            finding = checker.check(data)
            if finding is not None:
                findings.append(finding)
                if on_finding is not None:
                    on_finding(finding)
    return findings


def instrument_readers(warm_up: Callable[[], None]) -> int:
    """Add atheris' coverage instrumentation to kafka_meta's own code, the fuzzer excepted.

    Instrumenting everything loaded (``atheris.instrument_all``) takes minutes and slows every library
    call; only kafka_meta's branches guide the search. Decoders generated from specs are compiled on first
    use, so the seeds are run first (``warm_up``) and the decoders they build are instrumented too; one
    built later, for a type or version no seed has, runs uninstrumented."""
    import gc
    import inspect

    import atheris

    import kafka_meta

    warm_up()
    package = str(Path(kafka_meta.__file__).resolve().parent)
    fuzzer = str(Path(__file__).resolve().parent)
    count = 0
    for obj in gc.get_objects():
        if not inspect.isfunction(obj):
            continue
        source = obj.__code__.co_filename
        if (source.startswith(package) and not source.startswith(fuzzer)) or source.startswith("<kafka_meta"):
            atheris.instrument_func(obj)
            count += 1
    return count


PROGRESS = 100_000  # a long atheris run prints its statistics this often


class BrokenPromise(Exception):
    """Raised inside atheris' loop so libFuzzer records the input that broke a promise."""


def with_atheris(checker: Checker, seeds: list[bytes], runs: int, libfuzzer_args: list[str],
                 report: Callable[[], None], max_input: int | None = None) -> None:
    """Never returns: libFuzzer exits the process when done (0) or on a finding (non-zero)."""
    import atheris

    corpus = Path(tempfile.gettempdir()) / "kafka-meta-fuzz" / checker.target  # kept: the next run starts from it
    corpus.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(seeds):
        (corpus / f"seed-{i:05d}").write_bytes(data)
    max_len = max([len(s) for s in seeds] + [64]) + 256
    if max_input is not None:  # libFuzzer cuts longer seeds to this
        max_len = min(max_len, max_input)

    def one(data: bytes) -> None:
        finding = checker.check(data)
        if finding is not None:
            report()
            raise BrokenPromise(str(finding))
        if checker.stats.inputs % PROGRESS == 0 or checker.stats.inputs == runs:
            report()  # libFuzzer ends the process itself: atexit handlers may not run

    def warm_up() -> None:
        for data in seeds:
            with contextlib.suppress(Exception):  # only building caches here; the fuzzing judges the inputs
                checker.run(data)

    print(f"INFO: instrumented {instrument_readers(warm_up)} kafka_meta functions", file=sys.stderr, flush=True)
    checker.__enter__()
    atheris.Setup([sys.argv[0], f"-runs={runs}", f"-max_len={max_len}", *libfuzzer_args, str(corpus)], one)
    atheris.Fuzz()
