"""The command's report: a table per type, the differences under it, and the last line that sums the run up.

Every case lands in exactly one of the columns *identical* (both sides gave a value, a byte string or a decision,
and they were compared equal), *both refuse* (both refused, for the same reason at the same place:
:mod:`~kafka_meta.testing.conformance.refusals`), *unfinished* (neither side finished in time), *deliberate* (a
documented difference, :mod:`~kafka_meta.testing.conformance.deliberate`) or *unexplained*. Types listed apart
(:attr:`Result.apart`) are shown under the table and left out of the last line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TextIO

from kafka_meta.testing.conformance import deliberate
from kafka_meta.testing.conformance.results import SHOWN, Result

HEADER = ("type", "cases", "identical", "both refuse", "unfinished", "deliberate", "unexplained", "Kafka refuses",
          "we refuse")


def rows(results: Iterable[Result]) -> list[tuple[str, ...]]:
    return [(r.type, f"{r.cases:,}", f"{r.identical:,}", f"{r.both_refused:,}", f"{r.unfinished:,}",
             f"{r.explained:,}", f"{r.unexplained:,}", f"{r.kafka_refusals:,}", f"{r.our_refusals:,}")
            for r in results]


def _table(results: list[Result], out: TextIO) -> None:
    table = [HEADER, *rows(results)]
    widths = [max(len(row[i]) for row in table) for i in range(len(HEADER))]
    for n, row in enumerate(table):
        cells = [row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True))]
        print("  ".join(cells), file=out)
        if n == 0:
            print("  ".join("-" * w for w in widths), file=out)


def render(results: list[Result], out: TextIO) -> None:
    """The table (one row per type; the types listed apart in a table of their own under it), then each difference
    with an example, deliberate ones with their reason."""
    headline = [r for r in results if r.apart is None]
    apart = [r for r in results if r.apart is not None]
    if headline:
        _table(headline, out)
    if apart:
        print("\nListed apart, not in the last line:", file=out)
        _table(apart, out)
        print(file=out)
        for r in apart:
            print(f"  {r.type}: {r.apart}", file=out)
    for r in results:
        if r.unfinished:
            print(f"\n{r.type}: {r.unfinished:,} case(s) neither side finished in time (Kafka's code and the "
                  "project's loop alike; see docs/conformance.md, Assignors)", file=out)
        for d in sorted(r.differences, key=lambda d: (d.deliberate is not None, -d.count)):
            if d.deliberate is not None:
                reason = deliberate.TABLE[d.deliberate]
                print(f"\n{r.type}: {d.what}: {d.count:,} (deliberate: {d.deliberate}: {reason.what}; "
                      f"{reason.documented})", file=out)
                continue
            print(f"\n{r.type}: {d.what}: {d.count:,} (unexplained), for example:", file=out)
            for line in json.dumps(d.example, ensure_ascii=False, default=str, indent=1).splitlines()[:SHOWN * 8]:
                print(f"    {line}", file=out)


def unexplained_list(results: list[Result]) -> list[str]:
    """``type: what (count)`` for every unexplained difference, the listed-apart types' included."""
    return [f"{r.type}: {d.what} ({d.count:,})" for r in results for d in r.differences if d.deliberate is None]


def summary(results: list[Result]) -> str:
    """The last line: the headline types only; identical counts only compared agreements."""
    counted = [r for r in results if r.apart is None]
    cases = sum(r.cases for r in counted)
    identical = sum(r.identical for r in counted)
    both = sum(r.both_refused for r in counted)
    unfinished = sum(r.unfinished for r in counted)
    explained = sum(r.explained for r in counted)
    unexplained = sum(r.unexplained for r in results)
    return (f"conformance: {identical:,}/{cases:,} identical ({both:,} both refuse alike, {unfinished:,} unfinished, "
            f"{explained:,} deliberate differences, {unexplained:,} unexplained)")
