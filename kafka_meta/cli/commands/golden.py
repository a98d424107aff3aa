"""``kafka-meta golden verify DIR`` and ``kafka-meta golden add TYPE --version N --name CASE``.

Exit status (kafka_meta.cli.status): ``verify`` failing a case, or finding none, is a failed check (1); ``add``
given bytes or JSON that do not read as the type is an input that could not be read (1); a name that is no
type, a bad case name, a path that does not exist or is of the wrong kind are usage errors (2)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kafka_meta.cli.blobs import BlobError, from_base64, from_hex, from_stdin_bytes
from kafka_meta.cli.files import existing_directory, existing_file
from kafka_meta.cli.output import emit_json, fail
from kafka_meta.cli.status import OK, PROBLEM, USAGE
from kafka_meta.errors import UnknownTypeError
from kafka_meta.golden import CaseBytes, add_from_bytes, add_from_json, subject_for, verify_directory
from kafka_meta.golden.layout import LayoutError


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("golden", help="golden files: check them, or add a case")
    golden = p.add_subparsers(dest="golden_command", required=True)

    v = golden.add_parser("verify", help="check that every .bin decodes to its .json and the .json encodes to the "
                                         ".bin; exit status 1 if any case fails")
    v.add_argument("directory", help="the golden directory (<TypeName>/v<N>/<case>.bin + .json)")
    v.add_argument("--format", choices=("text", "json"), default="text")
    v.add_argument("--quiet", "-q", action="store_true", help="print only failures and the summary")
    v.set_defaults(run=run_verify)

    a = golden.add_parser("add", help="write a case from bytes (--hex/--base64/--file) or from JSON on stdin")
    a.add_argument("type", help="a type name, or a key + value record name (e.g. OffsetCommit)")
    a.add_argument("--version", type=int, help="the version (required for JSON input and for types that do not "
                                               "carry it on the wire; otherwise checked against the bytes)")
    a.add_argument("--name", required=True, help="the case name (letters, digits, '.', '_', '-')")
    a.add_argument("--dir", default="fixtures/golden", help="the golden directory (default: %(default)s)")
    source = a.add_mutually_exclusive_group()
    source.add_argument("--hex", help="the bytes as hex (a record's value; omit for a tombstone)")
    source.add_argument("--base64", help="the bytes as base64")
    source.add_argument("--file", help="a file holding the bytes")
    source.add_argument("--stdin-bytes", action="store_true", help="read the bytes (raw, hex or base64) from stdin")
    a.add_argument("--key-hex", help="a record's key bytes as hex")
    a.add_argument("--key-file", help="a file holding a record's key bytes")
    a.add_argument("--decode-only", action="store_true",
                   help="bytes no writer produces (e.g. a future version): check only that they decode")
    a.add_argument("--note", help="what the case shows, kept in its .json")
    a.add_argument("--source", help="where the bytes come from, kept in its .json")
    a.set_defaults(run=run_add)


def run_verify(args: argparse.Namespace) -> int:
    report = verify_directory(existing_directory(args.directory, "golden directory"))
    if args.format == "json":
        emit_json({
            "ok": report.ok,
            "cases": len(report.results),
            "failed": [{"case": r.case.id, "problems": r.problems} for r in report.failed],
            "layoutProblems": report.layout_problems,
        }, indent=2)
    else:
        for result in report.results:
            if not result.ok or not args.quiet:
                print(result.report())
        for problem in report.layout_problems:
            print(f"layout: {problem}")
        print(f"{len(report.results)} cases, {len(report.failed)} failed"
              + (f", {len(report.layout_problems)} layout problems" if report.layout_problems else ""))
    if not report.results and not report.layout_problems:
        return fail(f"no golden cases under {args.directory}", PROBLEM)
    return OK if report.ok else PROBLEM


def _key_bytes(args: argparse.Namespace) -> bytes | None:
    if args.key_hex is not None:
        return from_hex(args.key_hex)
    if args.key_file:
        return existing_file(args.key_file, "--key-file").read_bytes()
    return None


def _body_bytes(args: argparse.Namespace) -> bytes | None:
    if args.hex is not None:
        return from_hex(args.hex)
    if args.base64 is not None:
        return from_base64(args.base64)
    if args.file:
        return existing_file(args.file, "--file").read_bytes()
    if args.stdin_bytes:
        return from_stdin_bytes(sys.stdin.buffer.read())
    return None


def run_add(args: argparse.Namespace) -> int:
    try:
        subject = subject_for(args.type)
    except UnknownTypeError as e:  # the command line names no type
        return fail(str(e), USAGE)
    metadata = {"note": args.note, "source": args.source, "decodeOnly": True if args.decode_only else None}
    try:
        body, key = _body_bytes(args), _key_bytes(args)
    except (BlobError, OSError) as e:
        return fail(str(e))
    root = Path(args.dir)
    if root.exists() and not root.is_dir():
        return fail(f"--dir {args.dir}: not a directory")
    try:
        if body is not None or key is not None:
            case = add_from_bytes(root, subject, args.name, CaseBytes(body, key), args.version, **metadata)
        else:
            try:
                payload = json.loads(sys.stdin.read())
            except json.JSONDecodeError as e:
                return fail(f"stdin is not JSON (give the bytes with --hex, --base64 or --file instead): {e}",
                            PROBLEM)
            case = add_from_json(root, subject, args.name, payload, args.version, **metadata)
    except LayoutError as e:
        return fail(str(e))
    for path in case.files():
        print(path)
    return 0
