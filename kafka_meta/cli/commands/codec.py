"""``kafka-meta types | decode | encode``.

Exit status (kafka_meta.cli.status): a type name that names no type, bad hex or base64 in an option, a path
that does not exist or is a directory are usage errors (2); bytes or JSON that do not read as the type, what
standard input or a file holds (binary where text is expected, nothing at all, bad lines) are inputs that
could not be read (1)."""

from __future__ import annotations

import argparse
import base64
import json
import sys
from typing import Any

from pydantic import ValidationError

import kafka_meta
from kafka_meta.cli.blobs import BlobError, from_base64, from_hex, from_stdin_bytes, read_jsonl_blobs
from kafka_meta.cli.files import existing_file, open_text
from kafka_meta.cli.output import emit_json, fail, validation_summary
from kafka_meta.cli.status import PROBLEM, STDIN, USAGE
from kafka_meta.errors import InputError, KafkaMetaError, UnknownTypeError


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("types", help="list the types that can be decoded")
    p.set_defaults(run=run_types)

    p = sub.add_parser("decode", help="decode one blob (or a JSON Lines file of blobs) as TYPE")
    p.add_argument("type", help="type name, see 'kafka-meta types'")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--hex", help="the bytes as hex")
    source.add_argument("--base64", help="the bytes as base64")
    source.add_argument("--file", help="a file holding the raw bytes")
    source.add_argument("--input", help="JSON Lines: one hex/base64 string per line, or objects with a 'hex' or "
                                        "'base64' key; prints JSON Lines and reports bad lines without stopping")
    p.add_argument("--version", type=int, help="the version, for types that do not carry it on the wire")
    p.add_argument("--strict", action="store_true", help="refuse newer versions, unknown tags, trailing bytes")
    p.add_argument("--views", action="store_true", help="also print derived views (e.g. the Java client's view)")
    p.add_argument("--every-field", action="store_true",
                   help="print every field of every version and the unknown tagged fields (what encoding the same "
                        "bytes back needs), not only what Kafka's JSON converter writes at the version")
    p.set_defaults(run=run_decode)

    p = sub.add_parser("encode", help="read a message as JSON on stdin and print its bytes as hex")
    p.add_argument("type", help="type name")
    p.add_argument("--version", type=int, help="version to write (default: the JSON's, else the newest)")
    p.add_argument("--base64", action="store_true", help="print base64 instead of hex")
    p.set_defaults(run=run_encode)


def run_types(args: argparse.Namespace) -> int:
    for name in kafka_meta.types():
        fmt = kafka_meta.get_format(name)
        versions = getattr(fmt, "versions", "")
        print(f"{name}\t{getattr(fmt, 'family', '')}\t{versions}")
    return 0


def render(type_name: str, message: Any, views: bool, every_field: bool = False) -> dict[str, Any]:
    out = {"type": type_name, "version": message.version,
           "data": message.to_json_dict(views=views, every_field=every_field)}
    if message.read_forward:
        out["readForward"] = True  # newer than any version we know: read with the newest layout
    if message.unknown_trailing:
        out["unknownTrailing"] = base64.b64encode(message.unknown_trailing).decode()
    return out


def known_type(name: str) -> int:
    """0 when ``name`` is a type; otherwise the usage error, said: the command line names no type."""
    try:
        kafka_meta.get_format(name)
    except UnknownTypeError as e:
        return fail(str(e), USAGE)
    return 0


def run_decode(args: argparse.Namespace) -> int:
    if known_type(args.type):
        return USAGE
    if args.input:
        return _decode_lines(args)
    try:
        if args.hex is not None:
            data = from_hex(args.hex)
        elif args.base64 is not None:
            data = from_base64(args.base64)
        elif args.file:
            data = existing_file(args.file).read_bytes()
        else:
            data = from_stdin_bytes(sys.stdin.buffer.read())
    except (BlobError, OSError) as e:
        return fail(str(e))
    message = kafka_meta.decode(args.type, data, version=args.version, strict=args.strict)
    emit_json(render(args.type, message, args.views, args.every_field), indent=2)
    return 0


def _decode_lines(args: argparse.Namespace) -> int:
    """Each line of ``--input`` decoded in turn; a bad line is said as ``FILE line N: what`` where it is met,
    and its JSON line carries the same error."""
    ok = bad = 0
    if args.input != STDIN:
        existing_file(args.input)  # missing, or a directory: the command line's mistake (2)
    try:
        stream = open_text(args.input, "JSON Lines of hex or base64 blobs")
    except InputError as e:  # the file is there, but holds binary data: an input that cannot be read
        return fail(str(e), PROBLEM)
    name = "<stdin>" if args.input == STDIN else args.input
    with stream:
        for line in read_jsonl_blobs(stream):
            out: dict[str, Any] = {"line": line.number, **line.extra}
            if line.error is None:
                try:
                    message = kafka_meta.decode(args.type, line.data, version=args.version, strict=args.strict)
                    out.update(render(args.type, message, args.views, args.every_field))
                except KafkaMetaError as e:
                    line.error = str(e)
            if line.error is not None:
                out["_error"] = line.error
                print(f"{name} line {line.number}: {line.error}", file=sys.stderr)
                bad += 1
            else:
                ok += 1
            emit_json(out)
    if ok + bad == 0:
        return fail(f"{name}: no blobs to decode (the input is empty)", PROBLEM)
    print(f"decoded {ok}, failed {bad}", file=sys.stderr)
    return PROBLEM if bad else 0


def run_encode(args: argparse.Namespace) -> int:
    """The message on stdin is the input: JSON that does not read, or does not fit the type, is 1."""
    if known_type(args.type):
        return USAGE
    cls = kafka_meta.model(args.type)
    try:
        payload = json.loads(sys.stdin.read())
    except json.JSONDecodeError as e:
        return fail(f"stdin is not JSON: {e}", PROBLEM)
    version = args.version
    if isinstance(payload, dict) and "data" in payload and set(payload) <= {"type", "version", "data"}:
        if payload.get("type") not in (None, args.type):
            return fail(f"the JSON says type {payload['type']}, not {args.type}", PROBLEM)
        version = version if version is not None else payload.get("version")
        payload = payload["data"]
    try:
        message = cls.model_validate_json(json.dumps(payload))
    except ValidationError as e:
        return fail(f"the JSON does not fit {args.type}: {validation_summary(e)}", PROBLEM)
    data = kafka_meta.encode(message, version)
    if args.base64:
        print(base64.b64encode(data).decode())
    else:
        print(data.hex())
    return 0
