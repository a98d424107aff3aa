"""``kafka-meta log``: records straight from broker log segments, as JSON Lines (optionally decoded).

Decoding goes by the partition's topic: ``__cluster_metadata`` records are KRaft metadata records
(``kafka_meta.metadata_log``); those of Kafka's other internal topics (``__transaction_state``,
``__share_group_state``, ``__remote_log_metadata``), which hold no group coordinator records, by their topic's
decoder (``kafka_meta.internal_topics``); every other topic's are read as ``__consumer_offsets`` records (a copy
of that topic may have been renamed).

Exit status (kafka_meta.cli.status): 1 when anything was damaged or did not decode, when an input is no log
segment (another kind, empty, of no known kind), or when no segment was found; 2 for a path that does not
exist or an option out of range.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kafka_meta.cli.log_dump import PARALLEL_FROM_BYTES, DumpOptions, jobs_for, print_segments
from kafka_meta.cli.output import fail
from kafka_meta.cli.status import OK, PROBLEM, require_paths
from kafka_meta.inputs import CAPTURE, JSONL, PARQUET, segments_of
from kafka_meta.log import DEFAULT_LIMIT

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
    p.add_argument("--topic", action="append", default=[], metavar="TOPIC",
                   help="only the partitions of this topic (repeat, or separate with commas); a broker's log "
                        "directory holds every topic")
    p.add_argument("--from-offset", type=int, metavar="N", help="skip the records before offset N")
    p.add_argument("--group", help="only records of this group (decodes each key to find it)")
    p.add_argument("--strict", action="store_true", help="with --decode: Kafka 4.0+'s strict reading")
    p.add_argument("--raw", action="store_true", help="with --decode: keep the member bytes beside their decoded form")
    p.add_argument("--jobs", type=int, metavar="N",
                   help="processes reading segments side by side, each a segment at a time; the output is the same "
                        f"(default: one per core when the segments hold {PARALLEL_FROM_BYTES >> 20} MB or more, "
                        "else 1)")
    p.add_argument("--max-batch-bytes", type=int, default=DEFAULT_LIMIT, metavar="N",
                   help=f"bytes one batch may inflate to; larger ones are reported as damage (default {DEFAULT_LIMIT})")
    p.set_defaults(run=run_log)


OTHER_VERBS = {CAPTURE: "kafka-meta capture", JSONL: "kafka-meta offsets", PARQUET: "kafka-meta analyze"}


def run_log(args: argparse.Namespace) -> int:
    if args.max_batch_bytes <= 0:
        return fail("--max-batch-bytes must be positive")
    if args.jobs is not None and args.jobs < 1:
        return fail("--jobs must be at least 1")
    require_paths(args.paths)
    segments, refused = segments_of(args.paths)
    for problem in refused:
        reader = f" ({OTHER_VERBS[problem.kind]} reads it)" if problem.kind in OTHER_VERBS else ""
        print(f"kafka-meta log: {problem}{reader}", file=sys.stderr)
    topics = {t.strip() for chunk in args.topic for t in chunk.split(",") if t.strip()}
    absent: set[str] = set()
    if topics:
        held = {s.topic for s in segments}
        absent = topics - held
        for missing in sorted(absent):
            print(f"kafka-meta log: no partition of topic {missing!r} here (topics: "
                  f"{', '.join(sorted(t for t in held if t)) or 'none'})", file=sys.stderr)
        segments = [s for s in segments if s.topic in topics]
    if not segments:
        return PROBLEM
    options = DumpOptions(decode=args.decode, group=args.group, strict=args.strict, raw=args.raw,
                          from_offset=args.from_offset, max_batch_bytes=args.max_batch_bytes)
    found = print_segments(segments, options, jobs_for(segments, args.jobs))
    print(found.summary.render(), file=sys.stderr)
    if options.decoding:
        for line in found.decoded_summary():
            print(line, file=sys.stderr)
    return PROBLEM if refused or absent or found.summary.damage or found.errors else OK
