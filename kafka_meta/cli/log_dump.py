"""One segment of ``kafka-meta log`` printed, and many printed by several processes in the order given.

Reading a segment and writing its lines is all CPU (inflating, decoding, rendering JSON), and segments are
independent of each other: what one prints never depends on another. So a log of many segments is read by a
pool of processes, one segment each at a time. Each writes its lines to a file of its own and returns what it
counted; the parent copies the files to standard output in the order the segments were given and adds the
counts up, so the output is byte for byte what one process would print, only sooner. A segment is the unit:
one large segment is read by one process.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any, TextIO

from kafka_meta.cli.output import emit_json, emit_json_text, json_text
from kafka_meta.cli.processes import usable_cores, worker_context
from kafka_meta.counts import add_counts
from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs.topics import partition_role
from kafka_meta.internal_topics import decoder_for
from kafka_meta.log import Batch, LogSummary, Partition, Record, Segment, SegmentDamage, SegmentReader
from kafka_meta.log.compression import Inflater
from kafka_meta.log.files import segment_reads
from kafka_meta.log.partitions import LazyOutcomes, partition_of
from kafka_meta.log.rows import TransactionLabels
from kafka_meta.log.segment import as_events
from kafka_meta.log.topics import Role, role_of
from kafka_meta.log.transactions import Outcomes
from kafka_meta.metadata_log import (
    UnknownMetadataRecord,
    control_record_json,
    decode_control_record,
    decode_metadata_record,
    metadata_record_json,
)
from kafka_meta.offsets.plain_render import PlainRenderer
from kafka_meta.offsets.render import RecordStats, b64_or_none, group_of_json

# Below this, starting processes costs about what they save: on 2 cores, 1 MB of segments took 1.0 s either way,
# 6 MB 3.8 s in one process and 1.9 s in two.
PARALLEL_FROM_BYTES = 4 << 20
PROGRESS_EVERY = 2.0  # seconds between progress lines on stderr


@dataclass(frozen=True)
class DumpOptions:
    """What the command line asked, as each process needs it."""

    decode: bool = False
    group: str | None = None
    strict: bool = False
    raw: bool = False
    from_offset: int | None = None
    max_batch_bytes: int = 0

    @property
    def decoding(self) -> bool:
        return self.decode or self.group is not None


class MetadataStats:
    """Counts for the metadata log's summary line: records per type, unknown apiKeys, errors."""

    def __init__(self) -> None:
        self.per_type: Counter[str] = Counter()
        self.control: Counter[str] = Counter()
        self.records = self.unknown = self.errors = 0

    def add(self, record: Any) -> None:
        self.records += 1
        if isinstance(record, UnknownMetadataRecord):
            self.unknown += 1
        else:
            self.per_type[record.record_type] += 1

    def add_control(self, type_name: str) -> None:
        self.control[type_name] += 1

    def merge(self, other: MetadataStats) -> None:
        add_counts(self, other)

    def summary(self) -> str:
        types = ", ".join(f"{name} {n}" for name, n in sorted(self.per_type.items()))
        control = ", ".join(f"{name} {n}" for name, n in sorted(self.control.items()))
        return (f"metadata records {self.records} ({types or 'none decoded'}); control records "
                f"{sum(self.control.values())}{f' ({control})' if control else ''}; unknown apiKey {self.unknown}; "
                f"errors {self.errors}")


@dataclass
class SegmentDump:
    """What printing segments found besides their lines: the counts of the summary (the offsets records', the
    metadata log's, and each other internal topic's records, by record type), the records left undecoded per
    topic, and the notes for stderr (damage, undecodable records), in the order they were met."""

    summary: LogSummary = field(default_factory=LogSummary)
    stats: RecordStats = field(default_factory=RecordStats)
    metadata: MetadataStats = field(default_factory=MetadataStats)
    internal: dict[str, RecordStats] = field(default_factory=dict)  # per other internal topic
    undecoded: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def merge(self, other: SegmentDump) -> None:
        add_counts(self.summary, other.summary)
        self.stats.merge(other.stats)
        self.metadata.merge(other.metadata)
        for topic, stats in other.internal.items():
            self.topic_stats(topic).merge(stats)
        self.undecoded.update(other.undecoded)
        self.notes += other.notes

    def topic_stats(self, topic: str) -> RecordStats:
        """The counts of one of the other internal topics' records."""
        if topic not in self.internal:
            self.internal[topic] = RecordStats()
        return self.internal[topic]

    @property
    def errors(self) -> int:
        """Records that did not decode, of every topic decoded."""
        return self.stats.errors + self.metadata.errors + sum(s.errors for s in self.internal.values())

    def decoded_summary(self) -> list[str]:
        """The summary's lines of what was decoded (``--decode``, ``--group``): the offsets records', the metadata
        log's and each other internal topic's counts (records by type, as the offsets records'), then the
        topics left undecoded."""
        lines = [self.stats.summary()]
        if self.metadata.records or self.metadata.errors:
            lines.append(self.metadata.summary())
        lines += [f"{topic}: {stats.summary()}" for topic, stats in sorted(self.internal.items())]
        if self.undecoded:
            topics = ", ".join(f"{n} of {topic}" for topic, n in sorted(self.undecoded.items()))
            lines.append(f"not decoded (no group coordinator records there): {topics}")
        return lines


def where(segment: Segment, offset: int | None) -> dict[str, Any]:
    return {"topic": segment.topic, "partition": segment.partition, "offset": offset}


def plain(segment: Segment, record: Record, txn: dict[str, Any]) -> dict[str, Any]:
    return {**where(segment, record.offset), "timestamp": record.timestamp, "timestampType": record.timestamp_type,
            "key": b64_or_none(record.key), "value": b64_or_none(record.value),
            "headers": [{"key": k, "value": b64_or_none(v)} for k, v in record.headers], "control": record.control,
            **txn}


class SegmentPrinter:
    """Prints segments' records to standard output, counting into a :class:`SegmentDump`."""

    def __init__(self, options: DumpOptions, tick: Callable[[LogSummary, Segment], None] | None = None) -> None:
        self.options = options
        self.reader = SegmentReader(Inflater(options.max_batch_bytes), options.from_offset)
        self.render = PlainRenderer(strict=options.strict, raw=options.raw)  # record_json without models
        self.tick = tick

    def print_segment(self, segment: Segment, dump: SegmentDump, outcomes: Outcomes | LazyOutcomes | None = None,
                      role: Role | None = None) -> None:
        """Print one segment; ``outcomes``: the markers of its partition (how its transactions ended); ``role``:
        what the partition holds (by default, what its topic's name says)."""
        options, summary = self.options, dump.summary
        labels = TransactionLabels(outcomes)
        role = role or role_of(segment.topic)
        metadata_log = options.decoding and role == "metadata"
        undecodable = options.decoding and role not in ("offsets", "metadata")
        partition = json_text({"topic": segment.topic, "partition": segment.partition})[:-1]
        for event in as_events(segment_reads(segment, self.reader)):
            summary.add(event)
            if isinstance(event, Batch):
                labels.batch(event)
            elif isinstance(event, Record):
                txn = labels.fields(event.offset)
                if metadata_log:  # its records and control records (the KRaft log's own) alike
                    self.metadata_record(segment, event, dump)
                elif event.control or not undecodable:
                    # control records elsewhere are transaction markers of the same layout in every topic
                    self.record(segment, event, dump, partition, txn)
                else:
                    self.internal_record(segment, event, dump, txn)
                if self.tick is not None:
                    self.tick(summary, segment)
            elif isinstance(event, SegmentDamage):
                dump.notes.append(event.describe(segment.path))
                emit_json({**where(segment, event.first_offset), "_error": event.describe(segment.path)})
        summary.segments += 1
        summary.bytes += segment.size

    def metadata_record(self, segment: Segment, record: Record, dump: SegmentDump) -> None:
        """A record of the metadata log (or a control record of it, read as its key's type says): decoded with
        --decode; with --group alone, left out (it has no group)."""
        at = {**where(segment, record.offset), "timestamp": record.timestamp}
        try:
            if record.control:
                control = decode_control_record(record.key, record.value, strict=self.options.strict)
                dump.metadata.add_control(control.type_name)
                line = control_record_json(control)
            else:
                decoded = decode_metadata_record(record.value, strict=self.options.strict)
                dump.metadata.add(decoded)
                line = metadata_record_json(decoded)
        except KafkaMetaError as e:
            dump.metadata.errors += 1
            self.unreadable(segment, record, at, e, dump)
            return
        self.ungrouped(at, line)

    def internal_record(self, segment: Segment, record: Record, dump: SegmentDump, txn: dict[str, Any]) -> None:
        """A record of another internal topic: decoded by its topic's decoder (``__transaction_state``,
        ``__share_group_state``, ``__remote_log_metadata``), else printed as it is; never of a group, so with
        --group alone it is left out."""
        decoder = decoder_for(segment.topic)
        if decoder is None:
            dump.undecoded[segment.topic] += 1  # no layouts for them: as they are
            if self.options.group is None:
                emit_json(plain(segment, record, txn))
            return
        at = {**where(segment, record.offset), "timestamp": record.timestamp, **txn}
        stats = dump.topic_stats(decoder.topic)
        try:
            decoded = decoder.decode_json(record.key, record.value, strict=self.options.strict)
        except KafkaMetaError as e:
            stats.errors += 1
            self.unreadable(segment, record, at, e, dump)
            return
        stats.add_json(decoded)
        self.ungrouped(at, decoded)

    @staticmethod
    def unreadable(segment: Segment, record: Record, at: dict[str, Any], error: KafkaMetaError,
                   dump: SegmentDump) -> None:
        """A record that did not decode: a note for stderr, and its line with ``_error`` where it stands."""
        dump.notes.append(f"{segment.path}, offset {record.offset}: {error}")
        emit_json({**at, "_error": str(error)})

    def ungrouped(self, at: dict[str, Any], decoded: dict[str, Any]) -> None:
        """The line of a record of no group: printed unless --group asks for one group's records."""
        if self.options.group is None:
            emit_json({**at, **decoded})

    def record(self, segment: Segment, record: Record, dump: SegmentDump, partition: str,
               txn: dict[str, Any]) -> None:
        """One record, decoded when asked (``partition``: the line's start, naming the record's partition;
        ``txn``: its transaction's fields, empty for a record of no transaction)."""
        options, stats = self.options, dump.stats
        if not options.decoding:
            emit_json(plain(segment, record, txn))
            return
        if options.decode and options.group is None and not record.control:
            found = self.render.text(record.key, record.value)  # the common records: their line's text at once
            if found is not None:
                text, name, tombstone, read_forward = found
                stats.add_read(name, tombstone, read_forward)
                fields = f'"offset": {record.offset}, "timestamp": {record.timestamp}'
                if txn:
                    fields += f', "producerId": {txn["producerId"]}, "transaction": "{txn["transaction"]}"'
                emit_json_text(f'{partition}, {fields}, {text}}}')
                return
        at = {"topic": segment.topic, "partition": segment.partition, "offset": record.offset,
              "timestamp": record.timestamp, **txn}
        try:
            decoded = self.render(record.key, record.value, record.control)
        except KafkaMetaError as e:
            stats.errors += 1
            self.unreadable(segment, record, at, e, dump)
            return
        stats.add_json(decoded)
        if options.group is not None and group_of_json(decoded) != options.group:
            return
        if options.decode:
            at.update(decoded)
            emit_json(at)
        else:
            emit_json(plain(segment, record, txn))


class Progress:
    """A line on stderr every few seconds with the segments and bytes read so far; silent on quick runs."""

    def __init__(self, segments: list[Segment]) -> None:
        self.total_segments = len(segments)
        self.total_bytes = sum(s.size for s in segments)
        self.last = time.monotonic()
        self.done = LogSummary()

    def tick(self, summary: LogSummary, segment: Segment) -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY:
            self.last = now
            print(f"... {self.done.segments + summary.segments}/{self.total_segments} segments, "
                  f"{(self.done.bytes + summary.bytes) >> 20}/{self.total_bytes >> 20} MB, "
                  f"{self.done.records + summary.records} records: {segment.path}", file=sys.stderr, flush=True)


def jobs_for(segments: list[Segment], asked: int | None) -> int:
    """How many processes print ``segments``: as asked, else one per core (at most one per segment) when the
    segments are big enough for that to pay."""
    if asked is not None:
        return max(1, min(asked, len(segments)))
    if sum(s.size for s in segments) < PARALLEL_FROM_BYTES:
        return 1
    return max(1, min(usable_cores(), len(segments)))


def print_segments(segments: list[Segment], options: DumpOptions, jobs: int = 1) -> SegmentDump:
    """Print every segment's lines to standard output in order, and what they held; stderr gets the notes of
    each segment as it is printed, and progress lines on long runs."""
    work: Work = []  # each partition's markers and role, known before any of its records is printed
    for _key, group in groupby(segments, key=partition_of):
        partition = Partition(list(group))
        role = partition_role(partition) if options.decoding else role_of(partition.topic)
        work += [(segment, partition.outcomes, role) for segment in partition.segments]
    total, progress = SegmentDump(), Progress(segments)  # its clock starts with the printing
    printed = _in_parallel(work, options, jobs) if jobs > 1 else _in_turn(work, options, progress)
    for segment, dump in printed:
        for note in dump.notes:
            print(note, file=sys.stderr)
        dump.notes = []
        total.merge(dump)
        progress.done = total.summary
        if jobs > 1:
            progress.tick(LogSummary(), segment)
    return total


Work = list[tuple[Segment, LazyOutcomes, Role]]  # each segment with its partition's markers and role


def _in_turn(work: Work, options: DumpOptions, progress: Progress) -> Iterator[tuple[Segment, SegmentDump]]:
    printer = SegmentPrinter(options, progress.tick)
    for segment, outcomes, role in work:
        dump = SegmentDump()
        printer.print_segment(segment, dump, outcomes, role)
        yield segment, dump


def _in_parallel(work: Work, options: DumpOptions, jobs: int) -> Iterator[tuple[Segment, SegmentDump]]:
    """Segments printed by ``jobs`` processes into files, copied to standard output in order. Forked where the
    platform can (the parent's imports and compiled decoders come along), spawned elsewhere."""
    context = worker_context()
    sys.stdout.flush()
    with tempfile.TemporaryDirectory(prefix="kafka-meta-log-") as scratch, \
            context.Pool(jobs, initializer=_start_worker, initargs=(options,)) as pool:
        tasks = [(segment, outcomes, role, os.path.join(scratch, f"{n}.jsonl"))
                 for n, (segment, outcomes, role) in enumerate(work)]
        for (segment, _outcomes, _role, path), dump in zip(tasks, pool.imap(_print_to_file, tasks), strict=True):
            _copy_out(path)
            os.unlink(path)
            yield segment, dump


def _copy_out(path: str) -> None:
    """A worker's lines to standard output: as bytes where standard output writes UTF-8 (what the worker wrote),
    else as text, so the output is what one process would have printed."""
    binary = getattr(sys.stdout, "buffer", None)
    if binary is not None and (getattr(sys.stdout, "encoding", "") or "").lower().replace("-", "") == "utf8":
        with open(path, "rb") as lines:
            shutil.copyfileobj(lines, binary, 1 << 20)
        binary.flush()
    else:
        with open(path, encoding="utf-8") as text:
            shutil.copyfileobj(text, sys.stdout, 1 << 20)


_worker: SegmentPrinter | None = None


def _start_worker(options: DumpOptions) -> None:
    global _worker
    _worker = SegmentPrinter(options)


def _print_to_file(job: tuple[Segment, LazyOutcomes, Role, str]) -> SegmentDump:
    """In a worker: one segment's lines into ``path``."""
    segment, outcomes, role, path = job
    assert _worker is not None
    dump = SegmentDump()
    with open(path, "w", encoding="utf-8", buffering=1 << 20) as out, _stdout(out):
        _worker.print_segment(segment, dump, outcomes, role)
    return dump


@contextlib.contextmanager
def _stdout(out: TextIO) -> Iterator[None]:
    saved, sys.stdout = sys.stdout, out
    try:
        yield
    finally:
        sys.stdout = saved
