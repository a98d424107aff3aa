"""``kafka-meta evolution OLD NEW``: breaking and risky changes between two versions of message specs.

Exit status (kafka_meta.cli.status): a breaking change is a failed check (1); so is a snapshot that cannot be
read (no spec files in a directory, binary data, a spec that breaks the dialect's rules). The wrong number of
snapshots, or a path that does not exist, is a usage error (2)."""

from __future__ import annotations

import argparse
from typing import Any

from kafka_meta.cli.files import spec_paths
from kafka_meta.cli.output import emit_json, fail
from kafka_meta.cli.status import OK, PROBLEM, require_paths
from kafka_meta.errors import InputError


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("evolution", help="report breaking and risky changes between spec versions (exit status 1 "
                                         "when something breaks)")
    p.add_argument("paths", nargs="+", metavar="SPECS",
                   help="OLD and NEW: two spec files, or two directories (messages matched by name, "
                        "__consumer_offsets records by record type); with --transitive, any number of snapshots, "
                        "oldest first")
    p.add_argument("--transitive", action="store_true",
                   help="check every snapshot against every later one")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--info", action="store_true", help="also list compatible changes (new versions, fields, records)")
    p.add_argument("--tagged-only", action="append", default=[], metavar="NAME",
                   help="message names (glob) whose evolution must be tagged-only, like __consumer_offsets values "
                        "(which always are)")
    p.add_argument("--partial", action="store_true",
                   help="NEW holds only the files that changed: what it lacks is assumed unchanged")
    p.add_argument("--fail-on", action="append", choices=("wire", "json-names", "python-api"),
                   help="exit with 1 only for breaking changes that affect these (default: any)")
    p.set_defaults(run=run_evolution)


def run_evolution(args: argparse.Namespace) -> int:
    from kafka_meta.evolution import Severity, compare_paths, transitive
    from kafka_meta.evolution.render import text, to_json

    if not args.transitive and len(args.paths) != 2:
        return fail("give OLD and NEW (or --transitive with two or more snapshots)")
    if len(args.paths) < 2:
        return fail("--transitive needs at least two snapshots")
    require_paths(args.paths, "specs")
    for i, path in enumerate(args.paths):
        try:
            spec_paths(path, allow_empty=args.partial and i > 0)  # --partial: a later snapshot may hold nothing new
        except InputError as e:  # the path is there, but holds no spec, or binary data
            return fail(str(e), PROBLEM)
    if args.transitive:
        reports = transitive(args.paths, args.tagged_only, args.partial)
    else:
        reports = [compare_paths(args.paths[0], args.paths[1], args.tagged_only, args.partial)]
    if args.format == "json":
        docs = [to_json(r) for r in reports]
        emit_json(docs[0] if not args.transitive else {"comparisons": docs}, indent=2)
    else:
        print("\n\n".join(text(r, args.info) for r in reports))
    severities = [Severity(s) for s in args.fail_on] if args.fail_on else None
    return PROBLEM if any(r.breaking(severities) for r in reports) else OK
