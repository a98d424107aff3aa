"""Broker log segments decoded into the analyze job's ``offsets/`` and ``groups/`` Parquet by the Python workers
themselves, with the job's tallies (:mod:`kafka_meta.spark.tallies`) kept in the same pass.

Why not Spark's writer: a log's records are read and decoded in Python, and handing them to Spark only to
have them written costs more than reading and decoding them did (Arrow batches turned into rows in the JVM,
then Spark's row-at-a-time Parquet writer: about two thirds of the JVM's time at 1 GB). Here each Spark task
reads one segment, decodes its records as the ``kafka-meta-log`` source does with ``decodeOffsets``, and
writes them with Arrow's own Parquet writer: the rows never enter the JVM. Spark only schedules the tasks.

The files hold the rows Spark's writer would write from :func:`kafka_meta.spark.inputs.read_inputs` with
``decode=True`` (the same columns, in the same order, with the same values): a segment of another internal
topic gives no rows, ``_file`` names the topic-partition, ``_source`` the input given, and ``_order`` is the
number ``monotonically_increasing_id`` gives (the task's place among all segments in the high bits, the row
in the low), so every later step reads the same table whichever writer wrote it.

The group records of a segment (a rebalance's few) are decoded again as every type into ``groups/``, as the
job's Spark path does from ``offsets/``; the counts come back as the tasks' results, the newest record per
commit key, the commits in runs and the topic names as small tables under ``_tallies/``, which the job reads
and removes. A task attempt writes under ``_temporary/`` and renames each file into place when it is
whole: a retried or speculative attempt writes the same rows to the same name, so what is read is one
attempt's file, never part of one. Only for a local output read on this machine (a local master):
elsewhere :func:`direct_write` says no and Spark's writer is used.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from kafka_meta.analysis.generations import COMMITS
from kafka_meta.inputs.topics import topics_holding_offsets
from kafka_meta.log import DEFAULT_LIMIT, Segment
from kafka_meta.spark.input_frames import RECORD_COLUMNS
from kafka_meta.spark.schema import ERROR_FIELD, spark_type
from kafka_meta.spark.sources.log import ARROW_SCHEMA, decoded_batch, segment_rows, segments_of
from kafka_meta.spark.tallies import (
    COUNT_KEYS,
    COUNTS_SCHEMA,
    NEWEST_SCHEMA,
    RUNS_SCHEMA,
    TOPICS_SCHEMA,
    arrow_counts,
    arrow_newest,
    arrow_runs,
    arrow_topics,
    combine_runs,
    most_recent,
)
from kafka_meta.spark.timeline import READ_ORDER

ROW_ORDER_BITS = 33  # monotonically_increasing_id: the partition in the high bits, the row in the low 33
ROWS_PER_ROW_GROUP = 1 << 17  # decoded batches gathered into row groups of this many rows before writing
TEMPORARY = "_temporary"
TALLIES = "_tallies"  # the tasks' tallies (kafka_meta.spark.tallies), read by the job and then removed
NEWEST, RUNS, TOPICS = (os.path.join(TALLIES, name) for name in ("newest", "runs", "topics"))


@dataclass(frozen=True)
class LogInput:
    """One input given to the job that is broker log segments: its name as given (``_source``) and the paths
    it stands for."""

    name: str
    paths: list[str]


@dataclass(frozen=True)
class SegmentTask:
    """What one Spark task writes: one segment of one input, and its place among all the segments read."""

    index: int
    path: str
    topic: str | None
    partition: int | None
    source: str
    named: tuple[str, ...]
    holds_offsets: bool = True  # its topic holds __consumer_offsets records (kafka_meta.inputs.topics)


def direct_write(spark: Any, output: str) -> bool:
    """Whether the Python workers can write ``output`` themselves: a local path, on a local master (the
    workers' files are the driver's)."""
    return is_local(output) and spark.sparkContext.master.startswith("local")


def is_local(output: str) -> bool:
    """Whether ``output`` is a path of this machine's file system: no URL scheme (file:, hdfs://, s3a://)."""
    return not re.match(r"[A-Za-z][\w+.-]*:", output)


OWN_COLUMNS = RECORD_COLUMNS  # the reader's columns each table keeps, as the job's Spark path (spark.inputs.read_log)


def file_schemas(record_types: tuple[str, ...] | None) -> tuple[pa.Schema, pa.Schema]:
    """The columns of ``offsets/`` (records typed as ``record_types``) and of ``groups/`` (every type's), in
    the order the job's Spark path gives them: the reader's, then decoding's, then the job's."""
    from kafka_meta.spark.offsets import added_columns, record_columns

    reader = {f.name: f for f in ARROW_SCHEMA}
    own = [reader[name] for name in OWN_COLUMNS]
    place = [pa.field("_file", pa.string())]
    job = [pa.field("_source", pa.string()), pa.field(READ_ORDER, pa.int64())]
    typed = {f.name: f for f in record_columns(record_types)}
    offsets = pa.schema([*own, typed[ERROR_FIELD], *place, *(typed[name] for name in added_columns(record_types)),
                         *job])
    return offsets, pa.schema([*own, *place, *job, *record_columns(None)])


def segment_tasks(logs: list[LogInput]) -> list[SegmentTask]:
    """Every segment of every log input, numbered in the order Spark's source would number them."""
    tasks: list[SegmentTask] = []
    for log in logs:
        named = tuple(os.path.abspath(p) for p in log.paths)
        segments = segments_of(list(named))
        held = topics_holding_offsets(segments)
        for segment in segments:
            tasks.append(SegmentTask(len(tasks), segment.path, segment.topic, segment.partition, log.name, named,
                                     segment.topic is None or segment.topic in held))
    return tasks


def in_groups(decoded: pa.RecordBatch) -> pa.Array:
    """The rows that go to ``groups/`` too (the job's ``in_groups``, on Arrow): records that decoded, of any
    type but the commits."""
    types = decoded.column("recordType")
    other = pc.and_(pc.is_valid(types), pc.invert(pc.is_in(types, pa.array(COMMITS, pa.int32()))))
    kept = pc.and_(pc.and_(other, pc.invert(decoded.column("unknown"))), pc.is_null(decoded.column(ERROR_FIELD)))
    return pc.fill_null(kept, False)


class SegmentWriter:
    """Writes one segment's rows to ``offsets/`` and its group records, decoded as every type, to ``groups/``;
    each file under ``_temporary/`` until it is whole."""

    def __init__(self, task: SegmentTask, output: Output) -> None:
        self.task, self.output = task, output
        self.offsets = Pending(output.offsets_schema)
        self.groups = Pending(output.groups_schema)
        self.undecoded: list[pa.Table] = []  # group records gathered to be decoded at once
        self.undecoded_rows = 0
        self.counts: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.newest: list[pa.Table] = []
        self.runs: list[pa.Table] = []
        self.run = 0  # the stretch between two group records the segment is in
        self.topics: dict[str, str] = {}

    def write(self) -> list[dict[str, Any]]:
        """Write the segment's tables; its counts tally."""
        task, output = self.task, self.output
        if not task.holds_offsets:  # the job reads __consumer_offsets (and logs without topic)
            return []
        segment = Segment(task.path, task.topic, task.partition)
        place = None if task.topic is None else f"{task.topic}-{task.partition}"
        first = task.index << ROW_ORDER_BITS
        rows = 0
        try:
            for batch in segment_rows(segment, list(task.named), DEFAULT_LIMIT):
                decoded = decoded_batch(batch, output.record_types)
                n = decoded.num_rows
                columns = {name: decoded.column(name) for name in decoded.schema.names}
                columns["_file"] = pa.array([place] * n, pa.string())
                columns["_source"] = pa.array([task.source] * n, pa.string())
                columns[READ_ORDER] = pa.array(np.arange(first + rows, first + rows + n, dtype=np.int64))
                rows += n
                kept = in_groups(decoded)
                self.tally(decoded, columns, kept)
                self.offsets.add(pa.RecordBatch.from_arrays(
                    [columns[f.name] for f in output.offsets_schema], schema=output.offsets_schema))
                self.add_groups(columns, kept)
                self.flush(ROWS_PER_ROW_GROUP)
            self.decode_groups()
            self.flush(0)
        finally:
            self.offsets.close()
            self.groups.close()
        self.offsets.publish(output.path("offsets", task.index))
        self.groups.publish(output.path("groups", task.index))
        if self.newest:
            self.publish(NEWEST, most_recent(pa.concat_tables(self.newest)))
            self.publish(RUNS, combine_runs(pa.concat_tables(self.runs)))
        if self.topics:
            self.publish(TOPICS, pa.table({"id": list(self.topics), "name": list(self.topics.values())}))
        return list(self.counts.values())

    def publish(self, tally: str, table: pa.Table) -> None:
        temporary = os.path.join(self.output.root, TEMPORARY, f"tally-{self.task.index:05d}-{uuid.uuid4().hex}")
        pq.write_table(table, temporary)
        os.replace(temporary, self.output.path(tally, self.task.index))

    def tally(self, decoded: pa.RecordBatch, columns: dict[str, pa.Array], group_rows: pa.Array) -> None:
        """Add a batch to the segment's tallies (its records' places are their offsets, as the job's)."""
        for row in arrow_counts(decoded):
            key = tuple(row[k] for k in COUNT_KEYS)
            if key in self.counts:
                for total in ("n", "tombstones", "forward"):
                    self.counts[key][total] += row[total]
            else:
                self.counts[key] = row
        self.newest.append(arrow_newest(decoded, decoded.column("offset")))
        runs, self.run = arrow_runs(decoded, columns, group_rows, self.run)
        self.runs.append(runs)
        self.topics.update(arrow_topics(decoded))

    def add_groups(self, columns: dict[str, pa.Array], kept: pa.Array) -> None:
        """Keep a batch's group records, to be decoded as every type with the segment's others."""
        if not pc.any(kept).as_py():
            return
        own = pa.table({name: pc.filter(columns[name], kept) for name in (*OWN_COLUMNS, "_file", "_source",
                                                                         READ_ORDER)})
        self.undecoded.append(own)
        self.undecoded_rows += own.num_rows
        if self.undecoded_rows >= ROWS_PER_ROW_GROUP:
            self.decode_groups()

    def decode_groups(self) -> None:
        """Decode the group records kept so far, all at once: a call of ``decode_batch`` for every type costs
        far more than a batch's few group records (every type's columns are assembled), so one call per
        segment, not one per batch read (a third of the writing time at 1 GB)."""
        if not self.undecoded:
            return
        from kafka_meta.spark.offsets import decode_batch

        own = pa.concat_tables(self.undecoded).combine_chunks()
        self.undecoded, self.undecoded_rows = [], 0
        decoded = decode_batch(own.column("key").chunk(0), own.column("value").chunk(0),
                               controls=own.column("control").chunk(0))
        every = {**{name: own.column(name).chunk(0) for name in own.column_names},
                 **dict(zip(decoded.type.names, decoded.flatten(), strict=True))}
        schema = self.output.groups_schema
        self.groups.add(pa.RecordBatch.from_arrays([every[f.name] for f in schema], schema=schema))

    def flush(self, at_least: int) -> None:
        for pending in (self.offsets, self.groups):
            if pending.rows and pending.rows >= at_least:
                pending.write(os.path.join(self.output.root, TEMPORARY), self.task.index)


class Pending:
    """Batches of one file gathered into row groups, and the file they go to (opened at the first)."""

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self.batches: list[pa.RecordBatch] = []
        self.rows = 0
        self.file: str | None = None
        self.writer: pq.ParquetWriter | None = None

    def add(self, batch: pa.RecordBatch) -> None:
        self.batches.append(batch)
        self.rows += batch.num_rows

    def write(self, temporary: str, index: int) -> None:
        if self.writer is None:
            os.makedirs(temporary, exist_ok=True)
            self.file = os.path.join(temporary, f"part-{index:05d}-{uuid.uuid4().hex}.parquet")
            self.writer = pq.ParquetWriter(self.file, self.schema, compression="snappy")
        self.writer.write_table(pa.Table.from_batches(self.batches, schema=self.schema),
                                row_group_size=ROWS_PER_ROW_GROUP)
        self.batches, self.rows = [], 0

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    def publish(self, path: str) -> None:
        """Move the whole file into place (an attempt of the same task writes the same rows to ``path``)."""
        if self.file is not None:
            os.replace(self.file, path)


@dataclass(frozen=True)
class Output:
    """Where and how the records of the tasks are written."""

    root: str
    record_types: tuple[str, ...] | None
    offsets_schema: pa.Schema
    groups_schema: pa.Schema

    def path(self, table: str, index: int) -> str:
        return os.path.join(self.root, table, f"part-{index:05d}.parquet")


def write_offsets(spark: Any, logs: list[LogInput], output: str, record_types: tuple[str, ...] | None) -> list[Any]:
    """Write every record of ``logs`` decoded to ``output``/offsets (typed as ``record_types``), and the
    records that decoded as other types than the commits decoded as every type to ``output``/groups (both
    replaced), one Spark task per segment, with the other tallies of :mod:`kafka_meta.spark.tallies` under
    ``output``/_tallies; the counts tallies (rows). A table without rows is still written, as one file, so
    its columns can be read. ``output`` is absolute (the job's ``run`` resolves it): the workers' working
    directory need not be the driver's."""
    offsets_schema, groups_schema = file_schemas(record_types)
    where = Output(output, record_types, offsets_schema, groups_schema)
    tasks = segment_tasks(logs)
    for table in ("offsets", "groups", NEWEST, RUNS, TOPICS, TEMPORARY):
        shutil.rmtree(os.path.join(output, table), ignore_errors=True)
        os.makedirs(os.path.join(output, table))

    def write(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index in batch.column(0).to_pylist():
                yield pa.RecordBatch.from_pylist(SegmentWriter(tasks[index], where).write(), schema=COUNTS_SCHEMA)

    counts = (spark.range(0, len(tasks), 1, max(len(tasks), 1))
              .mapInArrow(write, spark_type(pa.struct(list(COUNTS_SCHEMA)))).collect())
    shutil.rmtree(os.path.join(output, TEMPORARY), ignore_errors=True)
    for table, schema in (("offsets", offsets_schema), ("groups", groups_schema), (NEWEST, NEWEST_SCHEMA),
                          (RUNS, RUNS_SCHEMA), (TOPICS, TOPICS_SCHEMA)):
        if not os.listdir(os.path.join(output, table)):
            pq.write_table(schema.empty_table(), where.path(table, 0))
    return counts  # type: ignore[no-any-return]

