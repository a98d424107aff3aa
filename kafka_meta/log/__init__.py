"""Broker log segments: record batches (magic 2) and legacy message sets (magic 0/1) read from the files a
broker writes, with their damage reported and read around rather than fatal.

>>> for row in read_log("kafka-logs/__consumer_offsets-7"):     # doctest: +SKIP
...     row["offset"], row["key"], row["control"], row["_error"]

The core (``segment.SegmentReader``) takes bytes and yields :class:`Batch`, :class:`Record` and
:class:`SegmentDamage` events; ``files`` finds and maps segments; ``rows`` shapes events like Spark's Kafka source.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import partial
from itertools import groupby
from typing import Any

from kafka_meta.log.compression import DEFAULT_LIMIT, Inflater
from kafka_meta.log.events import Batch, Record, SegmentDamage
from kafka_meta.log.files import (
    LogError,
    Segment,
    find_segments,
    segment_reads,
)
from kafka_meta.log.partitions import LazyOutcomes, PartitionScan, partition_of, partition_outcomes, scan_partitions
from kafka_meta.log.rows import COLUMNS, RecordRow, segment_rows
from kafka_meta.log.segment import Read, SegmentReader, read_segment
from kafka_meta.log.summary import LogSummary
from kafka_meta.log.topics import OTHER_INTERNAL_TOPICS, holds_offsets

__all__ = [
    "COLUMNS",
    "DEFAULT_LIMIT",
    "OTHER_INTERNAL_TOPICS",
    "Batch",
    "LogError",
    "LogSummary",
    "Partition",
    "PartitionScan",
    "Record",
    "Segment",
    "SegmentDamage",
    "SegmentReader",
    "find_segments",
    "holds_offsets",
    "read_batches",
    "read_events",
    "read_log",
    "read_partitions",
    "read_segment",
    "segment_rows",
]


def read_batches(path: str | os.PathLike[str], *, limit: int = DEFAULT_LIMIT, from_offset: int | None = None
                 ) -> Iterator[tuple[Segment, tuple[Batch, list[Record]] | SegmentDamage]]:
    """(segment, (batch, its records)) or (segment, damage) for every entry under ``path``, in partition and
    offset order: the bulk form, one step per batch."""
    for segment, items in _segments(find_segments(path), limit, from_offset):
        for item in items:
            yield segment, item


def read_events(path: str | os.PathLike[str], *, limit: int = DEFAULT_LIMIT,
                from_offset: int | None = None) -> Iterator[tuple[Segment, Batch | Record | SegmentDamage]]:
    """(segment, event) for every segment under ``path``, in partition and offset order: each batch, then
    its records; damage where it is found."""
    for segment, item in read_batches(path, limit=limit, from_offset=from_offset):
        if type(item) is tuple:
            yield segment, item[0]
            for record in item[1]:
                yield segment, record
        else:
            yield segment, item


class Partition:
    """One partition under a path: its segments, whose records :meth:`rows` reads (each transactional one
    labelled by the partition's markers), and :attr:`scan`, what its batch headers say. Both scan the headers
    only when first needed (a summary asked for, or a transactional record met), and once."""

    def __init__(self, segments: list[Segment]) -> None:
        self.segments = segments
        self.topic, self.partition = segments[0].topic, segments[0].partition
        self._scan: PartitionScan | None = None
        self.outcomes = LazyOutcomes(partial(partition_outcomes, segments))

    @property
    def scan(self) -> PartitionScan:
        if self._scan is None:
            self._scan = scan_partitions(self.segments)[partition_of(self.segments[0])]
            self.outcomes = LazyOutcomes(self.outcomes.find, self._scan.outcomes)
        return self._scan

    def rows(self, *, limit: int = DEFAULT_LIMIT, from_offset: int | None = None) -> Iterator[RecordRow]:
        for segment, items in _segments(self.segments, limit, from_offset):
            yield from segment_rows(segment, items, self.outcomes)

    def batches(self, *, limit: int = DEFAULT_LIMIT) -> Iterator[tuple[Segment, Read]]:
        """(segment, (batch, its records)) or (segment, damage) in offset order: the bulk form of :meth:`rows`
        (label a batch's records with :class:`~kafka_meta.log.rows.TransactionLabels` of :attr:`outcomes`)."""
        for segment, items in _segments(self.segments, limit, None):
            for item in items:
                yield segment, item


def read_partitions(path: str | os.PathLike[str]) -> Iterator[Partition]:
    """Every partition under ``path`` (a segment, a partition directory or a log directory), in order."""
    for _key, group in groupby(find_segments(path), key=partition_of):
        yield Partition(list(group))


def read_log(path: str | os.PathLike[str], *, limit: int = DEFAULT_LIMIT,
             from_offset: int | None = None) -> Iterator[dict[str, Any]]:
    """Every record under ``path`` (a segment, a partition directory or a log directory) as a row shaped
    like Spark's Kafka source, plus ``control``, ``producerId``, ``transaction`` and ``_error``; damage comes
    as rows with ``_error`` set. A partition's transaction markers are found (a header scan) when its first
    transactional record is met, so that record already says how its transaction ended.

    ``limit`` is how many bytes one batch may inflate to; a batch beyond it is reported as damage.
    """
    for partition in read_partitions(path):
        yield from partition.rows(limit=limit, from_offset=from_offset)  # type: ignore[misc]


def _segments(segments: list[Segment], limit: int, from_offset: int | None
              ) -> Iterator[tuple[Segment, Iterator[Read]]]:
    """Each segment with the reader's batches of its bytes, which must be consumed before the next step: the
    segment stays mapped only until then."""
    reader = SegmentReader(Inflater(limit), from_offset)
    for segment in segments:
        yield segment, segment_reads(segment, reader)
