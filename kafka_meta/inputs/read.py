"""Reading inputs of any kind, without Spark: the rows every face of the project works from.

Each source goes to the one reader of its kind, and what comes out is sorted into the three kinds of row
the project knows: captured **exchanges** (the capture layer's ``Exchange.to_dict()`` contract),
``__consumer_offsets`` **records** (rows shaped like Spark's Kafka source: ``key``, ``value``, ``timestamp``
in milliseconds, ``topic``, ``partition``, ``offset``, ``control``, ``producerId``, and ``_file``/``_line``
saying where each was read) and **payloads** (a type name and its bytes, as JSON Lines carry them).
Damage inside an input that was read (a cut-off packet, a batch with a wrong CRC, a line that is not JSON) is
a problem with its place; an input that cannot be read at all is :class:`Unreadable`, and
:attr:`Inputs.complete` says whether there was any.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs.detect import Source, Unreadable, classify
from kafka_meta.inputs.kinds import CAPTURE, JSONL, PARQUET, SEGMENT

PAYLOAD_KEYS = ("hex", "base64", "blob")


@dataclass
class Inputs:
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    offsets: list[dict[str, Any]] = field(default_factory=list)
    payloads: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # damage read around, each with its place
    unreadable: list[Unreadable] = field(default_factory=list)  # inputs that could not be read at all
    sources: list[Source] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether every input could be read (damage inside one that was read is reported, not this)."""
        return not self.unreadable

    @property
    def errors(self) -> list[str]:
        """Everything that went wrong, unreadable inputs first, as lines naming their place."""
        return [str(u) for u in self.unreadable] + self.problems


def read(names: Iterable[str]) -> Inputs:
    inputs = Inputs()
    for name in names:
        sources, unreadable = classify(name)
        inputs.unreadable += unreadable
        for source in sources:
            inputs.sources.append(source)
            READERS[source.kind](source, inputs)
    return inputs


def _capture(source: Source, inputs: Inputs) -> None:
    from kafka_meta.capture import Problem, iter_capture

    try:
        for item in iter_capture(str(source.path)):
            if isinstance(item, Problem):
                inputs.problems.append(f"{source.path}: {item}")
            else:
                inputs.exchanges.append(item.to_dict())
    except (KafkaMetaError, OSError, ValueError) as e:
        inputs.unreadable.append(Unreadable(str(source.path), str(e)))


def _log(source: Source, inputs: Inputs) -> None:
    from kafka_meta.log import read_log

    try:
        for row in read_log(str(source.path)):
            if row.get("_error"):
                inputs.problems.append(row["_error"])
                continue
            where = f"{source.path}" if row.get("topic") is None else f"{row['topic']}-{row['partition']}"
            inputs.offsets.append(row | {"_file": where})
    except (KafkaMetaError, OSError, ValueError) as e:
        inputs.unreadable.append(Unreadable(str(source.path), str(e)))


def _json_lines(source: Source, inputs: Inputs) -> None:
    try:
        text = source.path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        inputs.unreadable.append(Unreadable(str(source.path), f"cannot be read ({e.strerror or e})"))
        return
    neither = 0
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            inputs.problems.append(f"{source.path} line {n}: not JSON ({e.msg})")
            continue
        neither += not _sort(row, str(source.path), n, inputs)
    if neither:
        inputs.problems.append(f"{source.path}: {neither} line(s) are neither exchanges, __consumer_offsets "
                               "records nor payloads")


def _sort(row: Any, file: str, line: int, inputs: Inputs) -> bool:
    """Put one row where it belongs; False when it is no row the project knows."""
    if not isinstance(row, dict):
        return False
    if "apiKey" in row:
        inputs.exchanges.append(row)
    elif "key" in row:
        inputs.offsets.append(row | {"_file": file, "_line": line})
    elif "type" in row and any(k in row for k in PAYLOAD_KEYS):
        inputs.payloads.append(row | {"_file": file, "_line": line})
    else:
        return False
    return True


def _parquet(source: Source, inputs: Inputs) -> None:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        inputs.unreadable.append(Unreadable(str(source.path), "reading Parquet needs pyarrow "
                                                              "(pip install 'kafka-meta[spark]')"))
        return
    try:
        table = pq.read_table(source.path)
    except (OSError, ValueError) as e:  # pyarrow's errors are both
        inputs.unreadable.append(Unreadable(str(source.path), f"not a readable Parquet file ({e})"))
        return
    neither = 0
    for n, row in enumerate(table.to_pylist(), 1):
        if isinstance(row.get("timestamp"), dt.datetime):
            row["timestamp"] = int(row["timestamp"].timestamp() * 1000)  # Spark's TIMESTAMP -> milliseconds
        neither += not _sort(row, str(source.path), n, inputs)
    if neither:
        inputs.problems.append(f"{source.path}: {neither} row(s) are neither exchanges, __consumer_offsets "
                               "records nor payloads")


READERS = {CAPTURE: _capture, SEGMENT: _log, JSONL: _json_lines, PARQUET: _parquet}
