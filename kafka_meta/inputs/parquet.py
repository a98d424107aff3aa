"""Parquet files (``PAR1`` at their start): each row sorted by its fields into an exchange, a record, a
payload or a member; Spark's TIMESTAMP read back as epoch milliseconds, as JSON Lines carry it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

from kafka_meta.inputs.items import Damage, Item, Source, Unreadable, sort_row
from kafka_meta.inputs.kind import Kind


def recognise(path: Path, head: bytes) -> bool:
    return head[:4] == b"PAR1"


def read(source: Source) -> Iterator[Item]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        yield Unreadable(str(source.path), "reading Parquet needs pyarrow (pip install 'kafka-meta[spark]')")
        return
    try:
        batches = pq.ParquetFile(source.path).iter_batches()
        neither, n = 0, 0
        for batch in batches:
            for data in batch.to_pylist():
                n += 1
                if isinstance(data.get("timestamp"), dt.datetime):
                    data["timestamp"] = int(data["timestamp"].timestamp() * 1000)  # Spark's TIMESTAMP -> ms
                row = sort_row(data, str(source.path), n)
                if row is None:
                    neither += 1
                else:
                    yield row
    except (OSError, ValueError) as e:  # pyarrow's errors are both
        yield Unreadable(str(source.path), f"not a readable Parquet file ({e})")
        return
    if neither:
        yield Damage(f"{source.path}: {neither} row(s) are neither exchanges, __consumer_offsets records, "
                     "payloads nor members")


KIND = Kind("parquet", "a Parquet file", recognise, read)
