"""Records and damage as rows shaped like Spark's Kafka source, so the offsets readers take them unchanged.

Columns: ``topic``, ``partition``, ``offset``, ``timestamp`` (epoch milliseconds here; a timestamp in
Spark), ``timestampType`` (0 CreateTime, 1 LogAppendTime, -1 none, as Kafka's ids), ``key``, ``value``,
``headers`` (list of ``{"key", "value"}``), then ``control`` (the record is a transaction marker of a
control batch), ``producerId`` (the producer of a transactional batch, whose records count only once a COMMIT
marker of that producer follows them in the partition; -1 for any other batch), ``transaction`` (for a record
of a transactional batch, how its transaction ended: ``"committed"``, ``"aborted"``, or ``"open"`` when no
marker of its producer follows it in what was read; null for any other record; a marker says which it wrote)
and ``_error`` (null, or what was damaged and where: file, byte position, offsets).

The rows' shapes are declared here, where they are produced: :class:`RecordRow` is what this module writes,
:class:`OffsetsRow` what the timeline (``kafka_meta.analysis.generations``) takes from any reader of the
topic (these rows, JSON Lines, Parquet, Spark), which may leave all but ``key`` out and adds where each row
was read. Both are ``TypedDict``s: the rows stay plain dicts, and a type checker holds producers and readers
to one set of names (``tests/test_shapes.py``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, TypedDict

from kafka_meta.log.events import Batch, Record, SegmentDamage
from kafka_meta.log.files import Segment
from kafka_meta.log.segment import Read
from kafka_meta.log.transactions import COMMITTED, Outcomes

if TYPE_CHECKING:
    from kafka_meta.log.partitions import LazyOutcomes


class Header(TypedDict):
    key: str
    value: bytes | None


class RecordRow(TypedDict):
    """One record (or one stretch of damage, ``_error`` set) as this module writes it: every column always."""

    topic: str | None
    partition: int | None
    offset: int | None
    timestamp: int | None  # epoch milliseconds
    timestampType: int | None
    key: bytes | None
    value: bytes | None
    headers: list[Header]
    control: bool
    producerId: int
    transaction: str | None
    _error: str | None


class _Keyed(TypedDict):
    key: bytes | str | None  # JSON Lines carry the bytes as hex or base64 text


class OffsetsRow(_Keyed, total=False):
    """A ``__consumer_offsets`` record as the timeline reads it, whoever read it: ``key`` always, the rest of
    :class:`RecordRow`'s columns when the reader has them, and where it was read: ``_file``/``_line``, and
    ``_source``, the input it came from."""

    value: bytes | str | None
    timestamp: int | float | dt.datetime | None  # epoch milliseconds, or Spark's timestamp
    topic: str | None
    partition: int | None
    offset: int | None
    timestampType: int | None
    headers: list[Header]
    control: bool
    producerId: int | None
    transaction: str | None
    _error: str | None
    _file: str | None
    _line: int
    _source: str | None  # the input given (a file or directory) that the row was read from


COLUMNS = ("topic", "partition", "offset", "timestamp", "timestampType", "key", "value", "headers", "control",
           "producerId", "transaction", "_error")


def transactional_producer(batch: Batch) -> int:
    """The producer id of a transactional batch, -1 for any other (whose records count as they are)."""
    return batch.producer_id if batch.transactional else -1


def in_force(transaction: str | None) -> bool:
    """Whether a record stands as written, by its ``transaction``: a record of no transaction (None), or of one
    that committed. An aborted transaction's records never do, an open one's not yet: so a group's committed
    offsets never include an aborted commit, nor the pending commit of a transaction still open."""
    return transaction is None or transaction == COMMITTED


NOT_TRANSACTIONAL: dict[str, int | str | None] = {}  # the transaction fields of a record of no transaction: none


class TransactionLabels:
    """How each record of a partition says its transaction: ``producerId`` (the producer of a transactional
    batch, -1 for any other) and ``transaction`` (``committed``, ``aborted`` or ``open`` by the partition's
    markers, null for a record of no transaction). The one labelling every reader of segments gives its rows:
    :func:`segment_rows`, the lines of ``kafka-meta log`` and Spark's log source; call :meth:`batch` for each
    batch before its records.

    ``outcomes`` (the partition's markers) may be found lazily: they are asked for only at the first
    transactional record. Without them, every transactional record is ``open`` (nothing after it was read)."""

    __slots__ = ("outcomes", "producer")

    def __init__(self, outcomes: Outcomes | LazyOutcomes | None = None) -> None:
        self.outcomes = outcomes if outcomes is not None else Outcomes()
        self.producer = -1

    def batch(self, batch: Batch) -> int:
        """A batch begins: its producer when it is transactional, else -1."""
        self.producer = transactional_producer(batch)
        return self.producer

    def outcome(self, offset: int) -> str | None:
        """The ``transaction`` of the current batch's record at ``offset``."""
        return None if self.producer < 0 else self.outcomes.outcome(self.producer, offset)

    def outcomes_of(self, records: list[Record]) -> list[str | None]:
        """The ``transaction`` of each of the current batch's records."""
        if self.producer < 0:
            return [None] * len(records)
        outcome, producer = self.outcomes.outcome, self.producer
        return [outcome(producer, r.offset) for r in records]

    def fields(self, offset: int) -> dict[str, int | str | None]:
        """A JSON line's transaction fields for the current batch's record at ``offset``: none for a record of
        no transaction."""
        if self.producer < 0:
            return NOT_TRANSACTIONAL
        return {"producerId": self.producer, "transaction": self.outcomes.outcome(self.producer, offset)}


def record_row(segment: Segment, record: Record, producer_id: int = -1, transaction: str | None = None
               ) -> RecordRow:
    return {"topic": segment.topic, "partition": segment.partition, "offset": record.offset,
            "timestamp": record.timestamp, "timestampType": record.timestamp_type, "key": record.key,
            "value": record.value, "headers": [{"key": k, "value": v} for k, v in record.headers],
            "control": record.control, "producerId": producer_id, "transaction": transaction, "_error": None}


def damage_row(segment: Segment, damage: SegmentDamage) -> RecordRow:
    return {"topic": segment.topic, "partition": segment.partition, "offset": damage.first_offset,
            "timestamp": None, "timestampType": None, "key": None, "value": None, "headers": [],
            "control": False, "producerId": -1, "transaction": None, "_error": damage.describe(segment.path)}


def segment_rows(segment: Segment, items: Iterable[Read], outcomes: Outcomes | LazyOutcomes | None = None
                 ) -> Iterator[RecordRow]:
    """The rows of one segment's batches and damage (``SegmentReader.batches`` of its bytes): a record
    row per record, a damage row per damaged stretch. ``outcomes``, the markers of the segment's partition,
    says how each transactional record's transaction ended; without them every transactional record is
    ``"open"`` (nothing after it was read)."""
    labels = TransactionLabels(outcomes)
    for item in items:
        if type(item) is tuple:
            producer = labels.batch(item[0])
            if producer < 0:
                for record in item[1]:
                    yield record_row(segment, record)
                continue
            for record in item[1]:
                yield record_row(segment, record, producer, labels.outcome(record.offset))
        else:
            yield damage_row(segment, item)  # type: ignore[arg-type]
