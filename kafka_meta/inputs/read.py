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

import io
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from kafka_meta.capture.containers import sniff as capture_magic
from kafka_meta.inputs import capture, jsonl, segment
from kafka_meta.inputs.detect import classify
from kafka_meta.inputs.items import Damage, Item, Row, Source, Unreadable
from kafka_meta.inputs.kinds import BY_NAME

STDIN = "-"


@dataclass
class Inputs:
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    offsets: list[dict[str, Any]] = field(default_factory=list)
    payloads: list[dict[str, Any]] = field(default_factory=list)
    members: list[dict[str, Any]] = field(default_factory=list)
    partitions: list[dict[str, Any]] = field(default_factory=list)  # user topics' partitions, by their headers
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
             "member": inputs.members, "partition": inputs.partitions}
    for item in rows(names, inputs.sources):
        if isinstance(item, Row):
            lists[item.kind].append(item.data)
        elif isinstance(item, Damage):
            inputs.problems.append(item.text)
        else:
            inputs.unreadable.append(item)
    return inputs


def rows(names: Iterable[str], sources: list[Source] | None = None, batches: bool = False) -> Iterator[Item]:
    """The rows, damage and unreadable inputs of ``names``, in input order; each source found is appended to
    ``sources`` when given. A ``__consumer_offsets`` record also says the input it came from (``_source``, the
    name as given, as the Spark job tags its rows): the timeline reads inputs one after another, each
    partition's records in their own order (kafka_meta.analysis.generations.log_order). ``batches``: a log's
    batches of ``__consumer_offsets`` that no transaction wrote come whole (:func:`source_rows`)."""
    for name in names:
        if name == STDIN:
            yield from _tagged(_stdin(), name)
            continue
        found, unreadable = classify(name)
        yield from unreadable
        for source in found:
            if sources is not None:
                sources.append(source)
            yield from source_rows(source, name, batches)


def source_rows(source: Source, name: str, batches: bool = False) -> Iterator[Item]:
    """The rows, damage and unreadable parts of one ``source`` found under the input ``name``, as :func:`rows`
    reads them (a reader of many partitions may read its sources in parallel). ``batches``: a log's batches
    of ``__consumer_offsets`` that no transaction wrote come whole, as
    :class:`~kafka_meta.inputs.segment.RecordBatch` (their rows untagged: the reader says their input)."""
    if batches and source.kind == "log":
        return _tagged(segment.read_batches(source), name)  # type: ignore[arg-type]
    return _tagged(BY_NAME[source.kind].read(source), name)


def _tagged(items: Iterator[Item], name: str) -> Iterator[Item]:
    for item in items:
        if isinstance(item, Row) and item.kind == "record":
            item.data["_source"] = name  # the readers made this dict for this row alone
        yield item


def _stdin() -> Iterator[Item]:
    """Standard input, told by its first bytes: a capture piped in (read as it arrives), else JSON Lines."""
    raw = sys.stdin.buffer
    head = raw.read(4)
    stream = io.BufferedReader(_Rewound(head, raw))  # type: ignore[arg-type]
    if capture_magic(head) is not None:
        yield from capture.read_stream(stream, "<stdin>")
    else:
        yield from jsonl.read_lines(io.TextIOWrapper(stream, encoding="utf-8", errors="replace"), "<stdin>")


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

