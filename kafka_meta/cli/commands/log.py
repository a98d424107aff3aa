"""``kafka-meta log``: records straight from broker log segments, as JSON Lines (optionally decoded).

Decoding goes by the partition's topic: ``__cluster_metadata`` records are KRaft metadata records
(``kafka_meta.metadata_log``); those of Kafka's other internal topics (``__transaction_state``,
``__share_group_state``...), which hold no group coordinator records, are printed undecoded; every other
topic's are read as ``__consumer_offsets`` records (a copy of that topic may have been renamed).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from kafka_meta.cli.output import emit_json, emit_json_text, fail, json_text
from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs import BY_NAME, CAPTURE, EMPTY, JSONL, PARQUET, SEGMENT, classify
from kafka_meta.log import (
    DEFAULT_LIMIT,
    Damage,
    LogSummary,
    Record,
    Segment,
    SegmentReader,
    find_segments,
    holds_offsets,
)
from kafka_meta.log.compression import Inflater
from kafka_meta.log.files import segment_bytes
from kafka_meta.metadata_log import UnknownMetadataRecord, decode_metadata_record, metadata_record_json
from kafka_meta.offsets.plain_render import PlainRenderer
from kafka_meta.offsets.render import RecordStats, b64_or_none, group_of_json

PROGRESS_EVERY = 2.0  # seconds between progress lines on stderr
METADATA_TOPIC = "__cluster_metadata"  # the KRaft metadata log: its records are metadata records
DESCRIPTION = ("Print every record of Kafka log segments as JSON Lines: topic, partition, offset, timestamp, "
               "timestampType, key and value (base64), headers, control. Damage (CRC mismatches, batches cut off, "
               "failed decompression) is printed as a line with '_error' and read around. A summary goes to stderr.")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("log", help="read records from broker log segments (files, partition or log directories)",
                       description=DESCRIPTION)
    p.add_argument("paths", nargs="+", metavar="PATH", help="a segment file, a <topic>-<partition> directory or a "
                                                            "broker log directory")
    p.add_argument("--decode", action="store_true",
                   help="decode each record as a __consumer_offsets record, as 'kafka-meta offsets' does (the "
                        "records of __cluster_metadata partitions as KRaft metadata records)")
    p.add_argument("--from-offset", type=int, metavar="N", help="skip the records before offset N")
    p.add_argument("--group", help="only records of this group (decodes each key to find it)")
    p.add_argument("--strict", action="store_true", help="with --decode: Kafka 4.0+'s strict reading")
    p.add_argument("--raw", action="store_true", help="with --decode: keep the member bytes beside their decoded form")
    p.add_argument("--max-batch-bytes", type=int, default=DEFAULT_LIMIT, metavar="N",
                   help=f"bytes one batch may inflate to; larger ones are reported as damage (default {DEFAULT_LIMIT})")
    p.set_defaults(run=run_log)


def _where(segment: Segment, offset: int | None) -> dict[str, Any]:
    return {"topic": segment.topic, "partition": segment.partition, "offset": offset}


def _plain(segment: Segment, record: Record) -> dict[str, Any]:
    return {**_where(segment, record.offset), "timestamp": record.timestamp, "timestampType": record.timestamp_type,
            "key": b64_or_none(record.key), "value": b64_or_none(record.value),
            "headers": [{"key": k, "value": b64_or_none(v)} for k, v in record.headers], "control": record.control}


class Progress:
    """A line on stderr every few seconds with the segments and bytes read so far; silent on quick runs."""

    def __init__(self, segments: list[Segment]) -> None:
        self.total_segments = len(segments)
        self.total_bytes = sum(s.size for s in segments)
        self.last = time.monotonic()

    def tick(self, summary: LogSummary, segment: Segment) -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY:
            self.last = now
            print(f"... {summary.segments}/{self.total_segments} segments, {summary.bytes >> 20}/"
                  f"{self.total_bytes >> 20} MB, {summary.records} records: {segment.path}", file=sys.stderr,
                  flush=True)


OTHER_VERBS = {CAPTURE: "kafka-meta capture", JSONL: "kafka-meta offsets", PARQUET: "kafka-meta analyze"}


def segments_of(paths: list[str]) -> tuple[list[Segment], list[str]]:
    """The segments of the paths, told by content as every input is (kafka_meta.inputs), and what is refused:
    a file of another kind (a capture is no segment), an empty one (no content: no segment, whatever its name
    or suffix) or a missing one. A file that no kind claims is read as a segment when named outright: a
    segment damaged from its first byte is still one, and its damage is reported."""
    segments: list[Segment] = []
    refused: list[str] = []
    for path in paths:
        sources, unreadable = classify(path)
        for source in sources:
            if source.kind == SEGMENT:
                segments += find_segments(source.path)
            elif not Path(path).is_dir():
                refused.append(f"{source.path}: {BY_NAME[source.kind].what}, not log segments "
                               f"({OTHER_VERBS[source.kind]} reads it)")
        for problem in unreadable:
            named = Path(path).is_file() and problem.path == path
            if named and problem.reason != EMPTY:
                segments += find_segments(path)  # no kind claims it: a damaged segment, read around
            else:
                refused.append(str(problem))
    return segments, refused


def run_log(args: argparse.Namespace) -> int:
    if args.max_batch_bytes <= 0:
        return fail("--max-batch-bytes must be positive")
    segments, refused = segments_of(args.paths)
    for problem in refused:
        print(f"kafka-meta log: {problem}", file=sys.stderr)
    if not segments:
        return 1
    reader = SegmentReader(Inflater(args.max_batch_bytes), args.from_offset)
    summary, stats, metadata = LogSummary(), RecordStats(), MetadataStats()
    undecoded: Counter[str] = Counter()
    decode = args.decode or args.group is not None
    render = PlainRenderer(strict=args.strict, raw=args.raw)  # record_json(decode_record(...)) without models
    progress = Progress(segments)
    for segment in segments:
        metadata_log = decode and segment.topic == METADATA_TOPIC
        undecodable = decode and not holds_offsets(segment.topic)
        partition = json_text({"topic": segment.topic, "partition": segment.partition})[:-1]
        with segment_bytes(segment) as data:
            for event in reader.events(data):
                summary.add(event)
                if isinstance(event, Record):
                    if event.control or not (metadata_log or undecodable):
                        # control records are markers of the same layout in every topic, read as markers
                        _emit(segment, event, args, stats if decode else None, render, partition)
                    elif metadata_log:
                        _emit_metadata(segment, event, args, metadata)
                    else:
                        undecoded[segment.topic] += 1  # no layouts for them: as they are, and never of a group
                        if args.group is None:
                            emit_json(_plain(segment, event))
                    progress.tick(summary, segment)
                elif isinstance(event, Damage):
                    print(event.describe(segment.path), file=sys.stderr)
                    emit_json({**_where(segment, event.first_offset), "_error": event.describe(segment.path)})
        summary.segments += 1
        summary.bytes += segment.size
    print(summary.render(), file=sys.stderr)
    if decode:
        print(stats.summary(), file=sys.stderr)
        if metadata.records or metadata.errors:
            print(metadata.summary(), file=sys.stderr)
        if undecoded:
            topics = ", ".join(f"{n} of {topic}" for topic, n in sorted(undecoded.items()))
            print(f"not decoded (no group coordinator records there): {topics}", file=sys.stderr)
    return 1 if refused or summary.damage or stats.errors or metadata.errors else 0


class MetadataStats:
    """Counts for the metadata log's summary line: records per type, unknown apiKeys, errors."""

    def __init__(self) -> None:
        self.per_type: Counter[str] = Counter()
        self.records = self.unknown = self.errors = 0

    def add(self, record: Any) -> None:
        self.records += 1
        if isinstance(record, UnknownMetadataRecord):
            self.unknown += 1
        else:
            self.per_type[record.record_type] += 1

    def summary(self) -> str:
        types = ", ".join(f"{name} {n}" for name, n in sorted(self.per_type.items()))
        return (f"metadata records {self.records} ({types or 'none decoded'}); unknown apiKey {self.unknown}; "
                f"errors {self.errors}")


def _emit_metadata(segment: Segment, record: Record, args: argparse.Namespace, stats: MetadataStats) -> None:
    """A record of the metadata log: decoded with --decode; with --group alone, left out (it has no group)."""
    where = {**_where(segment, record.offset), "timestamp": record.timestamp}
    try:
        decoded = decode_metadata_record(record.value, strict=args.strict)
    except KafkaMetaError as e:
        stats.errors += 1
        print(f"{segment.path}, offset {record.offset}: {e}", file=sys.stderr)
        emit_json({**where, "_error": str(e)})
        return
    stats.add(decoded)
    if args.group is None:
        emit_json({**where, **metadata_record_json(decoded)})


def _emit(segment: Segment, record: Record, args: argparse.Namespace, stats: RecordStats | None,
          render: PlainRenderer, partition: str) -> None:
    """One record, decoded with ``stats`` (``partition``: the line's start, naming the record's partition)."""
    if stats is None:
        emit_json(_plain(segment, record))
        return
    if args.decode and args.group is None and not record.control:
        found = render.text(record.key, record.value)  # the common records: their line's text straight away
        if found is not None:
            text, name, tombstone, read_forward = found
            stats.add_read(name, tombstone, read_forward)
            emit_json_text(f'{partition}, "offset": {record.offset}, "timestamp": {record.timestamp}, {text}}}')
            return
    where = {"topic": segment.topic, "partition": segment.partition, "offset": record.offset,
             "timestamp": record.timestamp}
    try:
        decoded = render(record.key, record.value, record.control)
    except KafkaMetaError as e:
        stats.errors += 1
        print(f"{segment.path}, offset {record.offset}: {e}", file=sys.stderr)
        emit_json({**where, "_error": str(e)})
        return
    stats.add_json(decoded)
    if args.group is not None and group_of_json(decoded) != args.group:
        return
    if args.decode:
        where.update(decoded)
        emit_json(where)
    else:
        emit_json(_plain(segment, record))
