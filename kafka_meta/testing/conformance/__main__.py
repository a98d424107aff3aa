"""``python -m kafka_meta.testing.conformance [--cases N] [--type T] [--seed S] [--family F]``: every check family
against one peer, a table per type, the run's speed, and ``conformance: X/Y identical`` last; exit status 0 only
when every difference is a documented deliberate one (docs/conformance.md), 1 when some is not, 2 when the peer
failed or ``--type`` matched nothing.

The check families are the modules of :data:`FAMILIES` that exist, each with ``run(peer, cases, types, seed) ->
list[Result]``: a family added later plugs in by being there.
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from types import ModuleType

from kafka_meta.testing.conformance import results
from kafka_meta.testing.conformance.peer import Peer, PeerError, lab_directory, peer_command
from kafka_meta.testing.conformance.results import Result
from kafka_meta.testing.conformance.table import render, summary, unexplained_list

# modules of this package, run in this order
FAMILIES = ("codecs", "assignments", "negotiation", "constructed", "json_converters")


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
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes, each with its own peer, sharing the types (default 1); the cases and "
                        "the report are the same whatever the number")
    p.add_argument("--progress", action="store_true", help="name each type on standard error as it completes")
    return p


@dataclass(frozen=True)
class Plan:
    """What every worker runs: the same cases, the types shared out by :func:`engine.in_shard`."""

    cases: int
    types: frozenset[str] | None
    seed: int
    families: tuple[str, ...] | None
    jobs: int
    progress: bool
    command: tuple[str, ...] | None = None  # the peer's java command (built once, before the workers start)


def _progress(result: Result) -> None:
    print(f"  {result.type}: {result.cases:,} cases, {result.unexplained:,} unexplained "
          f"({time.strftime('%H:%M:%S')})", file=sys.stderr, flush=True)


def work(plan: Plan, k: int) -> tuple[str, list[tuple[int, int, Result]]]:
    """Worker ``k``'s share of the run: its peer's Kafka version and its results, each with where it goes in the
    report (the family's place, then the type's place within the family)."""
    results.on_finished = _progress if plan.progress else None
    types = set(plan.types) if plan.types is not None else None
    out: list[tuple[int, int, Result]] = []
    with Peer(list(plan.command) if plan.command else None) as peer:
        for f, (name, module) in enumerate(families()):
            if plan.families and name not in plan.families:
                continue
            if plan.jobs == 1:
                found = module.run(peer, plan.cases, types, plan.seed)
            else:
                found = module.run(peer, plan.cases, types, plan.seed, shard=(k, plan.jobs))
            out += [(f, k + n * plan.jobs, r) for n, r in enumerate(found)]
        return peer.kafka_version, out


def run(plan: Plan) -> tuple[str, list[Result]]:
    """The whole run, in this process or in ``plan.jobs`` workers, its results in the report's order."""
    if plan.jobs == 1:
        version, placed = work(plan, 0)
    else:
        plan = replace(plan, command=tuple(peer_command(lab_directory())))  # build the lab once, here
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(plan.jobs, mp_context=context) as pool:
            shares = list(pool.map(work, [plan] * plan.jobs, range(plan.jobs)))
        version = shares[0][0]
        placed = [entry for _, share in shares for entry in share]
    return version, [r for _, _, r in sorted(placed, key=lambda entry: entry[:2])]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.cases < 1:
        build_parser().error("--cases must be at least 1")
    if args.jobs < 1:
        build_parser().error("--jobs must be at least 1")
    types = frozenset(t for arg in args.types for t in arg.split(",") if t) if args.types else None
    plan = Plan(args.cases, types, args.seed, tuple(args.families) if args.families else None, args.jobs,
                args.progress)
    started = time.monotonic()
    print(f"{args.cases:,} cases per type, seed {args.seed}"
          + (f", {args.jobs} workers" if args.jobs > 1 else ""), flush=True)
    try:
        version, found = run(plan)
    except PeerError as e:
        print(f"conformance: the peer failed: {e}", file=sys.stderr)
        return 2
    elapsed = time.monotonic() - started
    if not found:
        print(f"conformance: no type to run: nothing matches --type {', '.join(sorted(types or ()))}"
              + (f" in --family {', '.join(args.families)}" if args.families else ""), file=sys.stderr)
        return 2
    print(f"Kafka {version}")
    render(found, sys.stdout)
    unexplained = unexplained_list(found)
    if unexplained:
        print("\nunexplained differences:")
        for line in unexplained:
            print(f"  {line}")
    cases = sum(r.cases for r in found)
    print(f"\n{cases:,} cases in {elapsed:.1f} s ({cases / max(elapsed, 1e-9):,.0f} cases/s)")
    print(summary(found))
    return 0 if all(r.unexplained == 0 for r in found) else 1


if __name__ == "__main__":
    sys.exit(main())
