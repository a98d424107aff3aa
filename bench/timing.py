"""Timing shared by the codec benchmarks: best-of-N microseconds per call, printed as a table of ratios."""

from __future__ import annotations

import timeit
from collections.abc import Callable


def timed(fn: Callable[[], object], number: int, repeat: int) -> float:
    """Best-of-``repeat`` microseconds per call (the minimum is the least disturbed by the machine)."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def print_table(title: str, rows: list[tuple[str, Callable[[], object]]], base_label: str, number: int,
                repeat: int, slow_number: int) -> None:
    """Time every contender in rounds, each round timing each one once (interleaved, so a slow spell of the
    machine falls on all of them, not on whichever ran then), and keep each one's best round. Ratios are to
    the first one. Interpreted contenders run fewer calls."""
    print(f"\n{title:<40} {'us/record':>10} {base_label:>15}")
    calls = [slow_number if "interpreted" in name else number for name, _ in rows]
    best = [float("inf")] * len(rows)
    for _ in range(repeat):
        for i, (_, fn) in enumerate(rows):
            best[i] = min(best[i], timed(fn, calls[i], 1))
    for (name, _), us in zip(rows, best, strict=True):
        print(f"{name:<40} {us:>10.2f} {us / best[0]:>15.2f}")
