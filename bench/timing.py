"""Timing shared by the codec benchmarks: best-of-N microseconds per call, printed as a table of ratios."""

from __future__ import annotations

import timeit
from collections.abc import Callable


def timed(fn: Callable[[], object], number: int, repeat: int) -> float:
    """Best-of-``repeat`` microseconds per call (the minimum is the least disturbed by the machine)."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def print_table(title: str, rows: list[tuple[str, Callable[[], object]]], base_label: str, number: int,
                repeat: int, slow_number: int) -> None:
    """Time each contender in order; ratios are to the first one. Interpreted contenders run fewer calls."""
    print(f"\n{title:<40} {'us/record':>10} {base_label:>15}")
    base = None
    for name, fn in rows:
        us = timed(fn, slow_number if "interpreted" in name else number, repeat)
        base = base or us
        print(f"{name:<40} {us:>10.2f} {us / base:>15.2f}")
