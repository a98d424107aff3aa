"""Parquet files (``PAR1`` at their start): each row sorted by its fields into an exchange, a record, a
payload or a member; Spark's TIMESTAMP read back as epoch milliseconds, as JSON Lines carry it. An exchange's
bodies are read back from either form the Spark face writes them in: the capture source's structs
(:mod:`kafka_meta.inputs.struct_bodies`), or its ``bodies=json`` text."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

from kafka_meta.inputs.items import NEITHER, Damage, Item, Row, Source, Unreadable, sort_row
from kafka_meta.inputs.kind import Kind
from kafka_meta.inputs.struct_bodies import body_value


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
                row = sort_row(data, str(source.path), n, unit="row")
                if row is None:
                    neither += 1
                else:
                    yield exchange_bodies(row) if isinstance(row, Row) and row.kind == "exchange" else row
    except (OSError, ValueError) as e:  # pyarrow's errors are both
        yield Unreadable(str(source.path), f"not a readable Parquet file ({e})")
        return
    if neither:
        yield Damage(f"{source.path}: {neither} row(s) are {NEITHER}")


def exchange_bodies(row: Row) -> Row:
    """An exchange row with its bodies in the protocol layer's form, whichever form the Parquet holds."""
    for side in ("request", "response"):
        body = row.data.get(side)
        if isinstance(body, str):
            try:
                row.data[side] = json.loads(body)
            except ValueError:
                row.data[side] = None
                row.data["_error"] = "; ".join(filter(None, [row.data.get("_error"), f"{side}: not JSON"]))
        elif isinstance(body, dict):
            row.data[side] = body_value(body)
    return row


KIND = Kind("parquet", "a Parquet file", recognise, read)
