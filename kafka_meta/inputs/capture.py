"""Packet captures (pcap or pcapng, maybe gzipped): told by their magic number, read as the Kafka exchanges
they carry (the capture layer's ``Exchange.to_dict()`` contract), each problem found inside as damage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from kafka_meta.capture.containers import sniff as capture_magic
from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs.items import Damage, Item, Row, Source, Unreadable
from kafka_meta.inputs.kind import Kind


def recognise(path: Path, head: bytes) -> bool:
    return capture_magic(head) is not None


def read(source: Source) -> Iterator[Item]:
    yield from read_stream(str(source.path), str(source.path))


def read_stream(path: str | BinaryIO, name: str) -> Iterator[Item]:
    """A capture's exchanges from a file or an open stream (a capture piped in), ``name`` naming it."""
    from kafka_meta.capture import Problem, iter_capture

    try:
        for item in iter_capture(path):
            if isinstance(item, Problem):
                yield Damage(f"{name}: {item}")
            else:
                yield Row("exchange", item.to_dict())
    except (KafkaMetaError, OSError, ValueError) as e:
        yield Unreadable(name, str(e))


KIND = Kind("capture", "a packet capture (pcap or pcapng, maybe gzipped)", recognise, read)
