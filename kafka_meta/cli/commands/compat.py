"""``kafka-meta compat TYPE``: the reader x writer compatibility matrix of a type.

Exit status (kafka_meta.cli.status): a name that is no type, and a ``--verify`` path that does not exist or is
no directory, are usage errors (2); ``--verify`` finding a disagreement is a failed check (1), and so is a
directory holding no golden case of the type at all: nothing was checked."""

from __future__ import annotations

import argparse
from typing import Any

from kafka_meta.cli.files import existing_directory
from kafka_meta.cli.output import emit_json, fail
from kafka_meta.cli.status import OK, PROBLEM, USAGE
from kafka_meta.errors import UnknownTypeError


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("compat", help="what a reader at each version does with bytes of each version")
    p.add_argument("type", help="a type name (or a key + value record name: its value type)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--verify", metavar="DIR", help="also decode the golden cases under DIR with readers limited to "
                                                   "each version, and report where they disagree (exit status 1)")
    p.set_defaults(run=run_compat)


def run_compat(args: argparse.Namespace) -> int:
    from kafka_meta.compat import matrix, verify
    from kafka_meta.compat.render import text

    checks = None
    try:
        if args.verify:
            m, checks = verify(args.type, existing_directory(args.verify, "golden directory"))
        else:
            m = matrix(args.type)
    except UnknownTypeError as e:  # the command line names no type
        return fail(str(e), USAGE)
    if args.format == "json":
        doc = m.to_json()
        if checks is not None:
            doc["checks"] = [{"writer": c.writer, "reader": c.reader, "cases": len(c.observations),
                              "disagreements": c.disagreements} for c in checks]
        emit_json(doc, indent=2)
    else:
        print(text(m, checks))
    if checks is None:
        return OK
    if not any(c.observations for c in checks):
        return fail(f"no golden case of {args.type} under {args.verify}: nothing was checked", PROBLEM)
    return PROBLEM if any(c.disagreements for c in checks) else OK
