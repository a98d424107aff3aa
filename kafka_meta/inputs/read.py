"""Reading inputs of any kind, without Spark: the rows every face of the project works from.

Each source goes to the one reader of its kind, and what comes out is sorted into the kinds of row the
project knows: captured **exchanges** (the capture layer's ``Exchange.to_dict()`` contract),
``__consumer_offsets`` **records** (rows shaped like Spark's Kafka source: ``key``, ``value``, ``timestamp``
in milliseconds, ``topic``, ``partition``, ``offset``, ``control``, ``producerId``, and ``_file``/``_line``
saying where each was read), **payloads** (a type name and its bytes, as JSON Lines carry them) and
**members** (a group member's subscription and assignment bytes, the form ``kafka-meta explain`` documents).
Damage inside an input that was read (a cut-off packet, a batch with a wrong CRC, a line that is not JSON) is
:class:`Damage` with its place; an input that cannot be read at all is :class:`Unreadable`.

:func:`rows` streams all of it, one input after another, holding one row at a time (a dump of millions of
records reads in constant memory); :func:`read` collects it into :class:`Inputs`. ``-`` names standard
input, recognised by content like a file: a capture piped in, or JSON Lines.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Literal

from kafka_meta.capture.containers import sniff as capture_magic
from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs.detect import Source, Unreadable, classify
from kafka_meta.inputs.kinds import CAPTURE, JSONL, PARQUET, SEGMENT

PAYLOAD_KEYS = ("hex", "base64", "blob")
STDIN = "-"

RowKind = Literal["exchange", "record", "payload", "member"]


@dataclass(frozen=True)
class Row:
    """One row read: its kind and its fields."""

    kind: RowKind
    data: dict[str, Any]


@dataclass(frozen=True)
class Damage:
    """Damage inside an input that was read around, as one line naming its place."""

    text: str

    def __str__(self) -> str:
        return self.text


Item = Row | Damage | Unreadable


@dataclass
class Inputs:
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    offsets: list[dict[str, Any]] = field(default_factory=list)
    payloads: list[dict[str, Any]] = field(default_factory=list)
    members: list[dict[str, Any]] = field(default_factory=list)
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
    """Every row of every input, collected (see :func:`rows` to stream them)."""
    inputs = Inputs()
    lists = {"exchange": inputs.exchanges, "record": inputs.offsets, "payload": inputs.payloads,
             "member": inputs.members}
    for item in rows(names, inputs.sources):
        if isinstance(item, Row):
            lists[item.kind].append(item.data)
        elif isinstance(item, Damage):
            inputs.problems.append(item.text)
        else:
            inputs.unreadable.append(item)
    return inputs


def rows(names: Iterable[str], sources: list[Source] | None = None) -> Iterator[Item]:
    """The rows, damage and unreadable inputs of ``names``, in input order; each source found is appended to
    ``sources`` when given."""
    for name in names:
        if name == STDIN:
            yield from _stdin()
            continue
        found, unreadable = classify(name)
        yield from unreadable
        for source in found:
            if sources is not None:
                sources.append(source)
            yield from READERS[source.kind](source)


def _capture(source: Source) -> Iterator[Item]:
    yield from _capture_stream(str(source.path), str(source.path))


def _capture_stream(path: str | BinaryIO, name: str) -> Iterator[Item]:
    from kafka_meta.capture import Problem, iter_capture

    try:
        for item in iter_capture(path):
            if isinstance(item, Problem):
                yield Damage(f"{name}: {item}")
            else:
                yield Row("exchange", item.to_dict())
    except (KafkaMetaError, OSError, ValueError) as e:
        yield Unreadable(name, str(e))


def _log(source: Source) -> Iterator[Item]:
    from kafka_meta.log import read_log

    try:
        for row in read_log(str(source.path)):
            if row.get("_error"):
                yield Damage(row["_error"])
                continue
            where = f"{source.path}" if row.get("topic") is None else f"{row['topic']}-{row['partition']}"
            yield Row("record", row | {"_file": where})
    except (KafkaMetaError, OSError, ValueError) as e:
        yield Unreadable(str(source.path), str(e))


def _json_lines(source: Source) -> Iterator[Item]:
    try:
        stream = source.path.open(encoding="utf-8", errors="replace")
    except OSError as e:
        yield Unreadable(str(source.path), f"cannot be read ({e.strerror or e})")
        return
    with stream:
        yield from _lines(stream, str(source.path))


def _lines(stream: Iterable[str], name: str) -> Iterator[Item]:
    neither, first = 0, 0
    for n, line in enumerate(stream, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            yield Damage(f"{name} line {n}: not JSON ({e.msg})")
            continue
        row = _sort(data, name, n)
        if row is None:
            neither += 1
            first = first or n
        else:
            yield row
    if neither:
        more = f" (nor are {neither - 1} more lines)" if neither > 1 else ""
        yield Damage(f"{name} line {first}: neither an exchange, a __consumer_offsets record, a payload nor a "
                     f"member{more}")


def _sort(data: Any, file: str, line: int) -> Row | None:
    """The kind of one row; None when it is no row the project knows."""
    if not isinstance(data, dict):
        return None
    if "apiKey" in data:
        return Row("exchange", data)
    if "key" in data:
        return Row("record", data | {"_file": file, "_line": line})
    if "type" in data and any(k in data for k in PAYLOAD_KEYS):
        return Row("payload", data | {"_file": file, "_line": line})
    if "subscription" in data:
        return Row("member", data | {"_file": file, "_line": line})
    return None


def _parquet(source: Source) -> Iterator[Item]:
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
                row = _sort(data, str(source.path), n)
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


def _stdin() -> Iterator[Item]:
    """Standard input, told by its first bytes: a capture piped in (read as it arrives), else JSON Lines."""
    raw = sys.stdin.buffer
    head = raw.read(4)
    stream = io.BufferedReader(_Rewound(head, raw))  # type: ignore[arg-type]
    if capture_magic(head) is not None:
        yield from _capture_stream(stream, "<stdin>")
    else:
        yield from _lines(io.TextIOWrapper(stream, encoding="utf-8", errors="replace"), "<stdin>")


class _Rewound(io.RawIOBase):
    """A pipe with the bytes read to recognise it put back in front (a pipe cannot seek back)."""

    def __init__(self, head: bytes, raw: BinaryIO) -> None:
        self.head = head
        self.raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n], self.head = self.head[:n], self.head[n:]
            return n
        chunk = self.raw.read1(len(buffer)) if hasattr(self.raw, "read1") else self.raw.read(len(buffer))
        buffer[:len(chunk)] = chunk
        return len(chunk)


READERS = {CAPTURE: _capture, SEGMENT: _log, JSONL: _json_lines, PARQUET: _parquet}
