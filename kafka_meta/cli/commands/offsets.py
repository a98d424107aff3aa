"""``kafka-meta offsets``: decode a dump of ``__consumer_offsets`` records."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from kafka_meta.cli.blobs import BlobError, from_base64, from_hex, from_text
from kafka_meta.cli.files import open_text
from kafka_meta.cli.output import emit_json, fail
from kafka_meta.errors import KafkaMetaError
from kafka_meta.offsets import catalog, decode_record
from kafka_meta.offsets.records import ControlRecord, UnknownRecord
from kafka_meta.offsets.render import RecordStats, record_json

PROVENANCE = ("topic", "partition", "offset", "timestamp")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("offsets", help="decode __consumer_offsets records (JSON Lines of key/value)",
                       description="Each input line: {\"key\": ..., \"value\": ...} with hex or base64 bytes "
                                   "(value null or absent = tombstone), optionally partition, offset, timestamp "
                                   "and control (true for records of a control batch).")
    p.add_argument("file", help="a JSON Lines file, or - for stdin")
    p.add_argument("--strict", action="store_true",
                   help="unknown record types and newer value versions are errors (Kafka 4.0+ behaviour)")
    p.add_argument("--raw", action="store_true", help="keep the member bytes beside their decoded form")
    p.add_argument("--type", action="append", default=[], metavar="TYPE",
                   help="only these record types (name or number, e.g. GroupMetadata or 2; also 'unknown', "
                        "'control'); repeat or separate with commas")
    p.add_argument("--group", help="only records of this group")
    p.add_argument("--encoding", choices=("auto", "hex", "base64"), default="auto",
                   help="how key and value bytes are written (default: recognise each)")
    p.set_defaults(run=run_offsets)


def _wanted_types(specs: list[str]) -> set[str] | None:
    if not specs:
        return None
    names = {rt.number: rt.name for rt in catalog().values()}
    wanted = set()
    for spec in (s.strip() for chunk in specs for s in chunk.split(",")):
        if spec.isdigit() or spec.lstrip("-").isdigit():
            wanted.add(names.get(int(spec), f"type {spec}"))
        elif spec in names.values() or spec in ("unknown", "control"):
            wanted.add(spec)
        else:
            raise BlobError(f"unknown record type {spec!r}; known: {', '.join(sorted(names.values()))}")
    return wanted


def _blob(value: Any, encoding: str) -> bytes | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise BlobError(f"expected a hex or base64 string, got {type(value).__name__}")
    return {"hex": from_hex, "base64": from_base64}.get(encoding, from_text)(value)


def _kind(record: Any) -> str:
    if isinstance(record, UnknownRecord):
        return "unknown"
    if isinstance(record, ControlRecord):
        return "control"
    return record.record_name


def run_offsets(args: argparse.Namespace) -> int:
    try:
        wanted = _wanted_types(args.type)
    except BlobError as e:
        return fail(str(e))
    stats = RecordStats()
    lines = 0
    with open_text(args.file, "JSON Lines of __consumer_offsets records") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            lines += 1
            where: dict[str, Any] = {"line": number}
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise BlobError("each line must be a JSON object")
                where.update({k: obj[k] for k in PROVENANCE if k in obj})
                key = _blob(obj.get("key"), args.encoding)
                value = _blob(obj.get("value"), args.encoding)
                control = bool(obj.get("control") or obj.get("isControl"))
                record = decode_record(key, value, strict=args.strict, control=control)
            except (KafkaMetaError, BlobError, json.JSONDecodeError) as e:
                stats.errors += 1
                print(f"line {number}: {e}", file=sys.stderr)
                emit_json({**where, "_error": str(e)})
                continue
            stats.add(record)
            if wanted is not None and _kind(record) not in wanted:
                continue
            if args.group is not None and record.group_id != args.group:
                continue
            emit_json({**where, **record_json(record, raw=args.raw)})
    if not lines:
        return fail(f"{args.file}: no records (the input is empty)", 1)
    print(stats.summary(), file=sys.stderr)
    return 1 if stats.errors else 0
