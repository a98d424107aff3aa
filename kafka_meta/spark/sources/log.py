"""``spark.read.format("kafka-meta-log").load(path)``: broker log segments as a DataFrame, one Spark
partition per segment file, rows shaped like Spark's Kafka source plus ``control``, ``producerId`` (the
producer of a transactional batch, -1 otherwise), ``transaction`` (for a record of a transactional batch, how
its transaction ended: ``committed``, ``aborted``, or ``open`` when no marker of its producer follows it in the
partition; null otherwise) and ``_error``. A task reads its segment and, while a transaction of it is
undecided, the headers of the partition's later segments for the marker that decides it.

Options: ``maxBatchBytes`` (bytes one batch may inflate to; a larger one is a damage row), ``fromOffset``
(skip the records before it) and ``decodeOffsets``: ``all``, or the names of record types (``OffsetCommit,
LegacyOffsetCommit``), to have each row decoded as ``__consumer_offsets`` record in the same pass, with the
columns ``decode_offsets`` adds (only the named types' own columns, as its ``record_types``): what the
``decode_offsets`` UDF gives on this source's rows, without sending every key and value from Spark back to
Python a second time (a damage row keeps the reader's ``_error``).

A damaged stretch of a segment is a row of its own with ``_error`` naming the file, byte position and
offsets, so the DataFrame shows it beside the records read around it; an empty file named outright is one
such row saying it is empty (an empty file is no segment; a broker's empty active segment in a partition
directory is read as the nothing it holds). Rows go to Spark as Arrow record batches, built column by column
from the reader's records.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache, partial
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, InputPartition

from kafka_meta.inputs import EMPTY, Unreadable
from kafka_meta.inputs import segments_of as find_all_segments
from kafka_meta.log import DEFAULT_LIMIT, LogError, Record, Segment, SegmentDamage, SegmentReader
from kafka_meta.log.compression import Inflater
from kafka_meta.log.files import segment_at, segment_reads
from kafka_meta.log.partitions import LazyOutcomes, deciding_outcomes, partition_of
from kafka_meta.log.rows import TransactionLabels
from kafka_meta.spark.schema import ERROR_FIELD
from kafka_meta.spark.sources.base import KafkaMetaSource, option_paths

NAME = "kafka-meta-log"
SCHEMA = ("topic string, partition int, offset bigint, timestamp timestamp, timestampType int, key binary, "
          "value binary, headers array<struct<key:string,value:binary>>, control boolean, producerId bigint, "
          "transaction string, _error string")
HEADER = pa.struct([("key", pa.string()), ("value", pa.binary())])
ARROW_SCHEMA = pa.schema([("topic", pa.string()), ("partition", pa.int32()), ("offset", pa.int64()),
                          ("timestamp", pa.timestamp("us", tz="UTC")), ("timestampType", pa.int32()),
                          ("key", pa.binary()), ("value", pa.binary()), ("headers", pa.list_(HEADER)),
                          ("control", pa.bool_()), ("producerId", pa.int64()), ("transaction", pa.string()),
                          ("_error", pa.string())])
ROWS_PER_BATCH = 16384


class Columns:
    """Column lists of the rows of one segment, turned into an Arrow record batch every so often.

    Filled a batch of records at a time, one list comprehension per column; headers are kept flat (keys,
    values, and where each row's headers start), the layout of an Arrow list column, so no per-row lists.
    """

    def __init__(self, segment: Segment) -> None:
        self.segment = segment
        self.clear()

    def clear(self) -> None:
        self.offsets: list[int | None] = []
        self.timestamps: list[int | None] = []
        self.types: list[int | None] = []
        self.keys: list[bytes | None] = []
        self.values: list[bytes | None] = []
        self.header_starts: list[int] = [0]
        self.header_keys: list[str] = []
        self.header_values: list[bytes | None] = []
        self.controls: list[bool] = []
        self.producers: list[int] = []
        self.transactions: list[str | None] = []
        self.errors: list[str | None] = []

    def __len__(self) -> int:
        return len(self.offsets)

    def add_records(self, records: list[Record], labels: TransactionLabels | None = None) -> None:
        """A batch's records; ``labels``, set to their batch, say their transaction (none: no transaction)."""
        self.offsets += [r.offset for r in records]
        self.timestamps += [r.timestamp * 1000 if r.timestamp_type >= 0 else None for r in records]
        self.types += [r.timestamp_type for r in records]
        self.keys += [r.key for r in records]
        self.values += [r.value for r in records]
        self.controls += [r.control for r in records]
        self.producers += [-1 if labels is None else labels.producer] * len(records)
        self.transactions += [None] * len(records) if labels is None else labels.outcomes_of(records)
        self.errors += [None] * len(records)
        starts, total = self.header_starts, self.header_starts[-1]
        for r in records:
            if r.headers:
                total += len(r.headers)
                self.header_keys += [k for k, _ in r.headers]
                self.header_values += [v for _, v in r.headers]
            starts.append(total)

    def add_damage(self, damage: SegmentDamage | str) -> None:
        """A damaged stretch of the segment, or (text) why the file named is no segment at all."""
        first, text = (None, damage) if isinstance(damage, str) else (damage.first_offset,
                                                                     damage.describe(self.segment.path))
        for column, value in ((self.offsets, first), (self.timestamps, None), (self.types, None),
                              (self.keys, None), (self.values, None), (self.controls, False), (self.producers, -1),
                              (self.transactions, None), (self.errors, text)):
            column.append(value)
        self.header_starts.append(self.header_starts[-1])

    def batch(self) -> pa.RecordBatch:
        n = len(self)
        headers = pa.ListArray.from_arrays(
            pa.array(self.header_starts, pa.int32()),
            pa.StructArray.from_arrays([pa.array(self.header_keys, pa.string()),
                                        pa.array(self.header_values, pa.binary())], fields=list(HEADER)))
        arrays = [pa.array([self.segment.topic] * n, pa.string()), pa.array([self.segment.partition] * n, pa.int32()),
                  pa.array(self.offsets, pa.int64()), pa.array(self.timestamps, pa.int64()).cast(
                      pa.timestamp("us", tz="UTC")), pa.array(self.types, pa.int32()),
                  pa.array(self.keys, pa.binary()), pa.array(self.values, pa.binary()), headers,
                  pa.array(self.controls, pa.bool_()), pa.array(self.producers, pa.int64()),
                  pa.array(self.transactions, pa.string()), pa.array(self.errors, pa.string())]
        self.clear()
        return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)


def segments_of(paths: list[str]) -> list[Segment]:
    """The segments of the paths, found as every face finds them (:func:`kafka_meta.inputs.segments_of`), but
    for an empty file named outright, kept so that its row can say it is empty; a :class:`LogError` naming what
    was refused when there are none."""
    segments: list[Segment] = []
    refused: list[Unreadable] = []
    for path in paths:
        found, problems = find_all_segments([path])
        for problem in problems:
            if problem.reason == EMPTY and problem.path == path:
                found.append(segment_at(path))
            else:
                refused.append(problem)
        segments += found
    if not segments:
        raise LogError("no log segments here: " + ("; ".join(str(p) for p in refused) or ", ".join(paths)))
    return segments


DECODE_OPTION = "decodeOffsets"


def decode_option(options: Any) -> tuple[bool, tuple[str, ...] | None]:
    """What ``decodeOffsets`` asks for: whether to decode, and the record types to type (None: all)."""
    asked = str(options.get(DECODE_OPTION) or "").strip()
    if asked.lower() in ("", "false"):
        return False, None
    if asked.lower() in ("all", "true"):
        return True, None
    return True, tuple(name.strip() for name in asked.split(",") if name.strip())


@cache
def decoded_arrow_schema(types: tuple[str, ...] | None) -> pa.Schema:
    """The rows with ``decodeOffsets``: the reader's columns but ``_error``, then ``decode_offsets``' own."""
    from kafka_meta.spark.offsets import record_columns

    return pa.schema([*(f for f in ARROW_SCHEMA if f.name != ERROR_FIELD), *record_columns(types)])


def decoded_batch(batch: pa.RecordBatch, types: tuple[str, ...] | None) -> pa.RecordBatch:
    """A batch of the reader's rows with their records decoded (PERMISSIVE, as ``decode_offsets``' default)."""
    from kafka_meta.spark.offsets import decode_batch

    decoded = decode_batch(batch.column("key"), batch.column("value"), controls=batch.column("control"),
                           record_types=types, read_errors=batch.column(ERROR_FIELD))
    own = [batch.column(f.name) for f in ARROW_SCHEMA if f.name != ERROR_FIELD]
    return pa.RecordBatch.from_arrays([*own, *decoded.flatten()], schema=decoded_arrow_schema(types))


class LogReader(DataSourceReader):
    def __init__(self, options: Any) -> None:
        self.paths = option_paths(options)
        if not self.paths:
            raise ValueError(f'{NAME}: give a path: spark.read.format("{NAME}").load(PATH)')
        self.limit = int(options.get("maxBatchBytes", DEFAULT_LIMIT))
        start = options.get("fromOffset")
        self.from_offset = int(start) if start is not None else None
        self.decode, self.types = decode_option(options)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        batches = self.read_rows(partition)
        if not self.decode:
            yield from batches
            return
        for batch in batches:
            yield decoded_batch(batch, self.types)

    def partitions(self) -> list[InputPartition]:
        """A Spark partition per segment, with the paths of its log partition's later segments (where the
        markers deciding its transactions may be)."""
        segments = segments_of(self.paths)
        return [InputPartition((s.path, s.topic, s.partition, tuple(later_paths(segments, n))))
                for n, s in enumerate(segments)]

    def read_rows(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        path, topic, number, later = partition.value
        return segment_rows(Segment(path, topic, number), self.paths, self.limit, self.from_offset,
                            [Segment(p, topic, number) for p in later])


def later_paths(segments: list[Segment], n: int) -> list[str]:
    """The paths of the segments after the ``n``-th that belong to its partition (segments come in partition
    and offset order; a lone file outside a partition directory has none)."""
    key = partition_of(segments[n])
    found = []
    for following in segments[n + 1:]:
        if partition_of(following) != key:
            break
        found.append(following.path)
    return found


def segment_rows(segment: Segment, named: list[str], limit: int = DEFAULT_LIMIT,
                 from_offset: int | None = None, later: list[Segment] | None = None) -> Iterator[pa.RecordBatch]:
    """The rows of one segment as Arrow record batches of :data:`ARROW_SCHEMA` (``named``: the paths the
    user gave, so an empty file named outright is said to be empty; ``later``: the partition's segments after
    it, read for the markers of its undecided transactions)."""
    reader = SegmentReader(Inflater(limit), from_offset)
    columns = Columns(segment)
    if segment.path in named and segment.size == 0:  # named outright: say it is empty, as every verb does
        columns.add_damage(f"{segment.path}: {EMPTY}")
        yield columns.batch()
        return
    # its markers, found (its headers and its partition's later ones read) only if a transactional batch is met
    labels = TransactionLabels(LazyOutcomes(partial(deciding_outcomes, segment, later or [])))
    for item in segment_reads(segment, reader):
        if type(item) is tuple:
            labels.batch(item[0])
            columns.add_records(item[1], labels)
        else:
            columns.add_damage(item)
        if len(columns) >= ROWS_PER_BATCH:
            yield columns.batch()
    if len(columns):
        yield columns.batch()


class LogDataSource(KafkaMetaSource):
    """Broker log segments: a segment file, a ``<topic>-<partition>`` directory or a log directory."""

    NAME, SCHEMA, READER = NAME, SCHEMA, LogReader

    def schema(self) -> Any:
        decode, types = decode_option(self.options)
        if not decode:
            return SCHEMA
        from kafka_meta.spark.offsets import check_record_types
        from kafka_meta.spark.schema import spark_type

        check_record_types(types, f"{NAME} option {DECODE_OPTION}")
        return spark_type(pa.struct(list(decoded_arrow_schema(types))))
