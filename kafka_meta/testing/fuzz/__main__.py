"""``python -m kafka_meta.testing.fuzz TARGET [TARGET...] --runs N``: see the package docstring."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from kafka_meta.testing.fuzz import engines
from kafka_meta.testing.fuzz.check import Checker, Limits
from kafka_meta.testing.fuzz.targets import TARGETS, available


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kafka_meta.testing.fuzz",
                                description="Fuzz kafka_meta's readers: only documented exceptions, no input "
                                            "slower than 50 ms, none allocating more than 64x its size + 1 MiB.")
    p.add_argument("targets", nargs="*", metavar="TARGET", help="what to fuzz (--list shows them; default: all "
                                                                  "installed, with the built-in engine)")
    p.add_argument("--runs", type=int, default=1000, help="inputs per target, seeds included (default 1000)")
    p.add_argument("--engine", choices=("auto", "atheris", "builtin"), default="auto",
                   help="atheris (coverage-guided, one target per process) when installed and one target is "
                        "given; else the built-in mutator")
    p.add_argument("--seed", type=int, default=0, help="the built-in mutator's random seed")
    p.add_argument("--findings", type=Path, help="write each input that broke a promise to this directory")
    p.add_argument("--time-limit-ms", type=float, default=50.0)
    p.add_argument("--list", action="store_true", help="list the targets and whether they are installed")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, libfuzzer_args = parser.parse_known_args(argv)
    runners = available()
    if args.list:
        for name, target in TARGETS.items():
            print(f"{name}\t{'installed' if name in runners else 'not installed'}\t{target.about}")
        return 0
    names = args.targets or list(runners)
    for name in names:
        if name not in TARGETS:
            parser.error(f"unknown target {name!r}; known: {', '.join(TARGETS)}")
        if name not in runners:
            parser.error(f"target {name!r}: its reader is not installed")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    limits = Limits(seconds=args.time_limit_ms / 1000)
    atheris = args.engine == "atheris" or (args.engine == "auto" and len(names) == 1
                                           and importlib.util.find_spec("atheris") is not None)
    if atheris and len(names) != 1:
        parser.error("atheris fuzzes one target per process")
    if libfuzzer_args and not atheris:
        parser.error(f"unrecognized arguments: {' '.join(libfuzzer_args)}")
    failed = 0
    for name in names:
        target = TARGETS[name]
        checker = Checker(name, runners[name], target.expected, limits)
        seeds = target.seeds()
        if atheris:
            def report(c: Checker = checker, n: int = len(seeds)) -> None:
                print(f"{c.target} (atheris, {n} seeds): {c.stats.summary()}", flush=True)

            engines.with_atheris(checker, seeds, args.runs, libfuzzer_args, report, target.max_input)
        findings = engines.builtin(checker, seeds, args.runs, args.seed, on_finding=lambda f: print(f, flush=True))
        for finding in findings:
            if args.findings is not None:
                args.findings.mkdir(parents=True, exist_ok=True)
                (args.findings / f"{finding.target}-{finding.kind}-{finding.digest}.bin").write_bytes(finding.data)
        print(f"{name} (built-in, {len(seeds)} seeds): {checker.stats.summary()}; {len(findings)} finding(s)",
              flush=True)
        failed += bool(findings)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
