"""The command's report: a table per type, the differences under it, and the last line that sums the run up."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TextIO

from kafka_meta.testing.conformance import deliberate
from kafka_meta.testing.conformance.results import SHOWN, Result

HEADER = ("type", "cases", "identical", "differences", "deliberate", "Kafka refuses", "we refuse")


def rows(results: Iterable[Result]) -> list[tuple[str, ...]]:
    return [(r.type, f"{r.cases:,}", f"{r.identical:,}", f"{r.unexplained:,}", f"{r.explained:,}",
             f"{r.kafka_refusals:,}", f"{r.our_refusals:,}") for r in results]


def render(results: list[Result], out: TextIO) -> None:
    """The table (one row per type), then each difference with an example, deliberate ones with their reason."""
    table = [HEADER, *rows(results)]
    widths = [max(len(row[i]) for row in table) for i in range(len(HEADER))]
    for n, row in enumerate(table):
        cells = [row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True))]
        print("  ".join(cells), file=out)
        if n == 0:
            print("  ".join("-" * w for w in widths), file=out)
    for r in results:
        if r.unfinished:
            print(f"\n{r.type}: {r.unfinished:,} case(s) neither side finished in time (agreement: Kafka's code "
                  "and the project's loop alike; see docs/conformance.md, Assignors)", file=out)
        for d in sorted(r.differences, key=lambda d: (d.deliberate is not None, -d.count)):
            if d.deliberate is not None:
                reason = deliberate.TABLE[d.deliberate]
                print(f"\n{r.type}: {d.what}: {d.count:,} (deliberate: {d.deliberate}: {reason.what}; "
                      f"{reason.documented})", file=out)
                continue
            print(f"\n{r.type}: {d.what}: {d.count:,} (unexplained), for example:", file=out)
            for line in json.dumps(d.example, ensure_ascii=False, default=str, indent=1).splitlines()[:SHOWN * 8]:
                print(f"    {line}", file=out)


def summary(results: list[Result]) -> str:
    cases = sum(r.cases for r in results)
    identical = sum(r.identical for r in results)
    explained = sum(r.explained for r in results)
    unexplained = sum(r.unexplained for r in results)
    return (f"conformance: {identical:,}/{cases:,} identical ({explained:,} deliberate differences, "
            f"{unexplained:,} unexplained)")
