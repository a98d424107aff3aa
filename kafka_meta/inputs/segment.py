"""Kafka log segments: a file that starts with a whole log entry whose CRC is right, or a broker's partition
directory (found by :mod:`kafka_meta.inputs.detect`).

The records of ``__consumer_offsets`` and of Kafka's other internal topics are read as rows shaped like
Spark's Kafka source (each verb takes the topics it reads by their ``topic``), each damaged stretch as damage
naming file, byte and offsets. A user topic's partition is not read record by record: it is one
``partition`` row of what its batch headers say (records, first and log end offsets, timestamps, last stable
offset, open transactions), which is all an operator's report needs of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs.items import Damage, Item, Row, Source, Unreadable
from kafka_meta.inputs.kind import Kind

if TYPE_CHECKING:
    from kafka_meta.log import Partition, PartitionScan, Record, Segment

OFFSETS_TOPIC = "__consumer_offsets"


def recognise(path: Path, head: bytes) -> bool:
    from kafka_meta.log.files import looks_like_log  # the log reader, loaded where a file may be a segment

    return looks_like_log(path)


@dataclass(frozen=True, slots=True)
class RecordBatch:
    """The records of one batch of ``__consumer_offsets`` that no transaction wrote (not a control batch), as
    the segment reader gives them: what a reader that takes whole batches (``kafka-meta report``'s) reads
    without a row per record. :meth:`row` is a record's row, as :func:`read` gives it."""

    segment: Segment
    where: str
    records: list[Record]

    def row(self, record: Record) -> dict[str, Any]:
        from kafka_meta.log.rows import record_row

        row: dict[str, Any] = record_row(self.segment, record)  # type: ignore[assignment]
        row["_file"] = self.where
        return row


def read(source: Source) -> Iterator[Item]:
    """The partitions of a segment or directory: a user topic's as one ``partition`` row, every other
    record as a ``record`` row, damage as :class:`Damage`."""
    return _read(source, batches=False)


def read_batches(source: Source) -> Iterator[Item | RecordBatch]:
    """As :func:`read`, but a batch of ``__consumer_offsets`` that no transaction wrote comes whole, as a
    :class:`RecordBatch` (every other record as its row, in log order)."""
    return _read(source, batches=True)


def _read(source: Source, batches: bool) -> Iterator[Any]:
    from kafka_meta.inputs.topics import partition_role
    from kafka_meta.log import read_partitions

    try:
        for partition in read_partitions(str(source.path)):
            where = f"{source.path}" if partition.topic is None else f"{partition.topic}-{partition.partition}"
            if partition_role(partition) == "user":
                yield Row("partition", partition_row(partition.scan) | {"_file": where})
                continue
            if batches and partition.topic == OFFSETS_TOPIC:
                yield from _batches(partition, where)
                continue
            for row in partition.rows():
                if row["_error"]:
                    yield Damage(row["_error"])
                    continue
                row["_file"] = where  # each row is a dict of its own (kafka_meta.log.rows.record_row)
                yield Row("record", row)
    except (KafkaMetaError, OSError, ValueError) as e:
        yield Unreadable(str(source.path), str(e))


def _batches(partition: Partition, where: str) -> Iterator[Row | Damage | RecordBatch]:
    """A partition of ``__consumer_offsets``: each batch of no transaction whole, the records of the others
    as rows labelled by their transaction (as :meth:`~kafka_meta.log.Partition.rows` labels them)."""
    from kafka_meta.log.rows import TransactionLabels, damage_row, record_row

    labels = TransactionLabels(partition.outcomes)
    for segment, item in partition.batches():
        if type(item) is not tuple:
            yield Damage(damage_row(segment, item)["_error"] or "")  # type: ignore[arg-type]
            continue
        batch, records = item
        producer = labels.batch(batch)
        if producer < 0 and not batch.control:
            if records:
                yield RecordBatch(segment, where, records)
            continue
        for record in records:
            row: dict[str, Any] = record_row(segment, record, producer, labels.outcome(record.offset))  # type: ignore[assignment]
            row["_file"] = where
            yield Row("record", row)


def partition_row(scan: PartitionScan) -> dict[str, Any]:
    """A user topic's partition as one row: what its batch headers say."""
    return {"topic": scan.topic, "partition": scan.partition, "records": scan.records, "batches": scan.batches,
            "bytes": scan.bytes, "segments": scan.segments, "firstOffset": scan.first_offset,
            "logEndOffset": scan.log_end_offset, "lastStableOffset": scan.last_stable_offset,
            "firstTimestamp": scan.first_timestamp, "lastTimestamp": scan.last_timestamp,
            "transactions": scan.transactions, "damaged": scan.damaged,
            "openTransactions": [{"producerId": t.producer_id, "producerEpoch": t.producer_epoch,
                                  "firstOffset": t.first_offset, "firstTimestamp": t.first_timestamp}
                                 for t in scan.open.values()],
            "offsetTimes": scan.times.to_json()}


KIND = Kind("log", "a Kafka log segment", recognise, read)
