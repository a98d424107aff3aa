"""``python -m kafka_meta.testing.conformance [--cases N] [--type T] [--seed S]``: every check family against one
peer, a table per type, and ``conformance: X/Y identical`` last; exit status 0 only when every difference is a
documented deliberate one (docs/conformance.md).

The check families are the modules of :data:`FAMILIES` that exist, each with ``run(peer, cases, types, seed) ->
list[Result]``: a family added later plugs in by being there.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from types import ModuleType

from kafka_meta.testing.conformance.peer import Peer, PeerError
from kafka_meta.testing.conformance.results import Result
from kafka_meta.testing.conformance.table import render, summary

FAMILIES = ("codecs", "assignments", "negotiation")  # modules of this package, run in this order


def families() -> list[tuple[str, ModuleType]]:
    """The check families present (a missing module is a family this checkout does not have)."""
    found = []
    for name in FAMILIES:
        try:
            module = importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.{name}":
                raise
            continue
        found.append((name, module))
    return found


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kafka_meta.testing.conformance",
                                description="Compare the project with Kafka's own Java code, case by case.")
    p.add_argument("--cases", type=int, default=1000, help="cases per type (default 1000)")
    p.add_argument("--type", action="append", dest="types", metavar="T",
                   help="only this type (repeat, or separate with commas); default: every type")
    p.add_argument("--seed", type=int, default=0, help="the random seed cases are drawn from (default 0)")
    p.add_argument("--family", action="append", dest="families", choices=FAMILIES,
                   help="only this check family (repeatable); default: every one present")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.cases < 1:
        build_parser().error("--cases must be at least 1")
    types = {t for arg in args.types for t in arg.split(",") if t} if args.types else None
    results: list[Result] = []
    started = time.monotonic()
    try:
        with Peer() as peer:
            print(f"Kafka {peer.kafka_version}, {args.cases:,} cases per type, seed {args.seed}", flush=True)
            for name, module in families():
                if args.families and name not in args.families:
                    continue
                results += module.run(peer, args.cases, types, args.seed)
    except PeerError as e:
        print(f"conformance: the peer failed: {e}", file=sys.stderr)
        return 2
    elapsed = time.monotonic() - started
    render(results, sys.stdout)
    cases = sum(r.cases for r in results)
    print(f"\n{cases:,} cases in {elapsed:.1f} s ({cases / max(elapsed, 1e-9):,.0f} cases/s)")
    print(summary(results))
    return 0 if results and all(r.unexplained == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
