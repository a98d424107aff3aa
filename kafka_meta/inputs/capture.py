"""Packet captures (pcap or pcapng, maybe gzipped): told by their magic number, read as the Kafka exchanges
they carry (the capture layer's ``Exchange.to_dict()`` contract), each problem found inside as damage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from kafka_meta.capture.containers import sniff as capture_magic
from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs.items import Damage, Item, Row, Source, Unreadable
from kafka_meta.inputs.kind import Kind

if TYPE_CHECKING:
    from kafka_meta.capture import Exchange


STDIN_NAME = "<stdin>"  # what the capture reader calls a capture piped in


def recognise(path: Path, head: bytes) -> bool:
    return capture_magic(head) is not None


def read(source: Source) -> Iterator[Item]:
    yield from read_stream(str(source.path), str(source.path))


def read_stream(path: str | BinaryIO, name: str) -> Iterator[Item]:
    """A capture's exchanges from a file or an open stream (a capture piped in), ``name`` naming it."""
    for item in exchanges(path, name):
        yield item if isinstance(item, Damage | Unreadable) else Row("exchange", item.to_dict())


def exchanges(path: str | BinaryIO, name: str, **options: Any) -> Iterator[Exchange | Damage | Unreadable]:
    """A capture's exchanges as the capture reader makes them (for a face that filters or prints them before
    they become rows: the ``capture`` verb), its damage as :class:`Damage` naming the file, and a file that
    cannot be read (opened, or read past its start) as one :class:`Unreadable` after whatever was read.
    ``options`` are :func:`kafka_meta.capture.iter_capture`'s (ports, apis, summary, progress, shared_bodies).
    """
    from kafka_meta.capture import Problem, iter_capture

    try:
        for item in iter_capture(path, **options):
            yield Damage(f"{name}: {item}") if isinstance(item, Problem) else item
    except (KafkaMetaError, OSError, ValueError) as e:
        said = STDIN_NAME if str(path) == "-" else name  # the capture reader names the file in its errors
        yield Unreadable(name, str(e).removeprefix(f"{said}: "))


KIND = Kind("capture", "a packet capture (pcap or pcapng, maybe gzipped)", recognise, read)
