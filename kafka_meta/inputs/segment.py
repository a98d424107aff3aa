"""Kafka log segments: a file that starts with a whole log entry whose CRC is right, or a broker's partition
directory (found by :mod:`kafka_meta.inputs.detect`); read as ``__consumer_offsets`` records shaped like
Spark's Kafka source, each damaged stretch as damage naming file, byte and offsets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs.items import Damage, Item, Row, Source, Unreadable
from kafka_meta.inputs.kind import Kind


def recognise(path: Path, head: bytes) -> bool:
    from kafka_meta.log.files import looks_like_log  # the log reader, loaded where a file may be a segment

    return looks_like_log(path)


def read(source: Source) -> Iterator[Item]:
    from kafka_meta.log import read_log

    try:
        for row in read_log(str(source.path)):
            if row.get("_error"):
                yield Damage(row["_error"])
                continue
            where = f"{source.path}" if row.get("topic") is None else f"{row['topic']}-{row['partition']}"
            yield Row("record", dict(row) | {"_file": where})
    except (KafkaMetaError, OSError, ValueError) as e:
        yield Unreadable(str(source.path), str(e))


KIND = Kind("log", "a Kafka log segment", recognise, read)
