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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs.items import Damage, Item, Row, Source, Unreadable
from kafka_meta.inputs.kind import Kind

if TYPE_CHECKING:
    from kafka_meta.log import PartitionScan


def recognise(path: Path, head: bytes) -> bool:
    from kafka_meta.log.files import looks_like_log  # the log reader, loaded where a file may be a segment

    return looks_like_log(path)


def read(source: Source) -> Iterator[Item]:
    from kafka_meta.inputs.topics import partition_role
    from kafka_meta.log import read_partitions

    try:
        for partition in read_partitions(str(source.path)):
            where = f"{source.path}" if partition.topic is None else f"{partition.topic}-{partition.partition}"
            if partition_role(partition) == "user":
                yield Row("partition", partition_row(partition.scan) | {"_file": where})
                continue
            for row in partition.rows():
                if row["_error"]:
                    yield Damage(row["_error"])
                    continue
                row["_file"] = where  # each row is a dict of its own (kafka_meta.log.rows.record_row)
                yield Row("record", row)
    except (KafkaMetaError, OSError, ValueError) as e:
        yield Unreadable(str(source.path), str(e))


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
