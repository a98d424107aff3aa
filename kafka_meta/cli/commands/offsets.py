"""``kafka-meta offsets``: decode a dump of ``__consumer_offsets`` records.

Exit status (kafka_meta.cli.status): 1 when an input could not be read at all, when damage was read around or
a record did not decode (each said as ``FILE line N: what`` or ``FILE offset N: what``, where it is met), or
when the inputs held no record; 2 for a path that does not exist or an unknown ``--type``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from kafka_meta.cli.blobs import BlobError, from_base64, from_hex, from_text
from kafka_meta.cli.output import emit_json, emit_json_text, fail, json_text
from kafka_meta.cli.status import OK, PROBLEM, require_paths
from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs import Damage, Row, Unreadable, rows
from kafka_meta.log.topics import role_of_row
from kafka_meta.offsets import catalog
from kafka_meta.offsets.plain_render import PlainRenderer
from kafka_meta.offsets.render import RecordStats, group_of_json, kind_of_json

PROVENANCE = ("topic", "partition", "offset", "timestamp")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("offsets", help="decode __consumer_offsets records (dumps, log segments, Parquet)",
                       description="""Each input is recognised by its content, as every verb's: JSON Lines whose
                                   record lines are {"key": ..., "value": ...} with hex or base64 bytes
                                   (value null or absent = tombstone), optionally partition, offset, timestamp
                                   and control (true for records of a control batch); Parquet of such rows;
                                   broker log segments and partition or log directories. Rows of other kinds
                                   (captured exchanges, payloads, members) are counted and skipped.""")
    p.add_argument("files", nargs="+", metavar="INPUT",
                   help="files or directories of any kind the project reads; - for stdin")
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
    if value is None or isinstance(value, bytes):  # bytes: read from a segment or Parquet
        return value
    if not isinstance(value, str):
        raise BlobError(f"expected a hex or base64 string, got {type(value).__name__}")
    return {"hex": from_hex, "base64": from_base64}.get(encoding, from_text)(value)


def run_offsets(args: argparse.Namespace) -> int:
    try:
        wanted = _wanted_types(args.type)
    except BlobError as e:
        return fail(str(e))
    require_paths(args.files)
    stats = RecordStats()
    render = PlainRenderer(strict=args.strict, raw=args.raw)  # record_json(decode_record(...)) without models
    records = unreadable = 0
    others: Counter[str] = Counter()
    other_topics: Counter[str] = Counter()  # records of the log directory's other topics, by topic
    for item in rows(args.files):
        if isinstance(item, Unreadable):
            unreadable += 1
            print(f"kafka-meta offsets: {item}", file=sys.stderr)
        elif isinstance(item, Damage):
            stats.errors += 1
            print(item, file=sys.stderr)
            emit_json({"_error": str(item)})
        elif item.kind == "partition":
            other_topics[item.data["topic"]] += item.data["records"]
        elif item.kind != "record":
            others[item.kind] += 1
        elif role_of_row(item.data) != "offsets":
            other_topics[item.data["topic"]] += 1
        else:
            records += 1
            _one_record(item, args, wanted, stats, render)
    if unreadable and not records and not others and not other_topics:
        return PROBLEM  # nothing could be read: each input said why
    if other_topics:
        print("skipped, other topics than __consumer_offsets: "
              + ", ".join(f"{n:,} records of {topic}" for topic, n in sorted(other_topics.items())), file=sys.stderr)
    if others:
        print("skipped, not __consumer_offsets records: "
              + ", ".join(f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in sorted(others.items())), file=sys.stderr)
    if not records:
        print("kafka-meta offsets: no __consumer_offsets records in the input", file=sys.stderr)
        return PROBLEM
    print(stats.summary(), file=sys.stderr)
    return PROBLEM if stats.errors or unreadable else OK


def _one_record(row: Row, args: argparse.Namespace, wanted: set[str] | None, stats: RecordStats,
                render: PlainRenderer) -> None:
    """Decode one record row and print it (or its error) with where it was read."""
    data = row.data
    where: dict[str, Any] = {"line": data["_line"]} if "_line" in data else {}
    where.update({k: data[k] for k in PROVENANCE if data.get(k) is not None})
    if data.get("transaction") is not None:  # a record of a transactional batch: how its transaction ended
        where.update(producerId=data.get("producerId"), transaction=data["transaction"])
    try:
        key = _blob(data.get("key"), args.encoding)
        value = _blob(data.get("value"), args.encoding)
        control = bool(data.get("control") or data.get("isControl"))
        # the common records as their line's text straight away (the group filter reads the decoded key)
        found = None if control or args.group is not None else render.text(key, value)
        if found is None:
            record = render(key, value, control)
    except (KafkaMetaError, BlobError) as e:
        stats.errors += 1
        print(f"{_place(data)}: {e}", file=sys.stderr)
        emit_json({**where, "_error": str(e)})
        return
    if found is not None:
        text, name, tombstone, read_forward = found
        stats.add_read(name, tombstone, read_forward)
        if wanted is None or name in wanted:
            emit_json_text(f"{json_text(where)[:-1]}, {text}}}" if where else f"{{{text}}}")
        return
    stats.add_json(record)
    if wanted is not None and kind_of_json(record) not in wanted:
        return
    if args.group is not None and group_of_json(record) != args.group:
        return
    emit_json({**where, **record})


def _place(data: dict[str, Any]) -> str:
    """Where a record row was read, as every bad line is said: ``FILE line N`` (JSON Lines, ``<stdin>``; a
    Parquet row by its number), else ``FILE offset N`` (a log segment's partition)."""
    if "_line" in data:
        return f"{data.get('_file')} line {data['_line']}"
    return f"{data.get('_file')} offset {data.get('offset')}"
