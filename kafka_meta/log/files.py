"""The file face of the reader: segment files, partition directories and whole log directories.

A broker keeps each partition in a directory named ``<topic>-<partition>`` holding segments named after
their first offset (``00000000000000000000.log``) beside index files; a path given here may be one
segment, one partition directory or a log directory holding many. Segments are mapped into memory, so
a file of any size costs only the pages being read.

The KRaft metadata log (``__cluster_metadata-0``) also holds snapshots, ``<end offset>-<epoch>.checkpoint``
(20 and 10 digits): files of record batches like a segment, a SNAPSHOT_HEADER control record first and a
SNAPSHOT_FOOTER last, holding the whole metadata state of every offset below the end offset. They are read as
segments of their partition. Their records carry offsets of their own (from 0), not the log's, so a snapshot
is placed by its end offset: just before the segment starting there, after the segments starting below it, and,
of several snapshots, by end offset and epoch. That is the order Kafka applies them in: a node loads its newest
snapshot, the state as of its end offset, then replays the log from that offset on; an older snapshot with the
segments it covers reads as history in offset order. Snapshots being written (``.checkpoint.part``) or deleted
(``.checkpoint.deleted``) are left out, as Kafka leaves them out.
"""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from kafka_meta.errors import KafkaMetaError
from kafka_meta.log.checksums import crc32, crc32c
from kafka_meta.log.segment import Read, SegmentReader

PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)$")
SEGMENT_SUFFIX = ".log"
SNAPSHOT_SUFFIX = ".checkpoint"
SNAPSHOT_NAME = re.compile(r"^(?P<offset>\d{20})-(?P<epoch>\d{10})\.checkpoint$")  # a KRaft snapshot's name


class LogError(KafkaMetaError, ValueError):
    """A path that holds no log segment, or a segment that cannot be opened."""


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment file and the partition it belongs to (from its directory's name, when it has one)."""

    path: str
    topic: str | None
    partition: int | None

    @property
    def base_offset(self) -> int | None:
        stem = Path(self.path).name[: -len(SEGMENT_SUFFIX)] if self.path.endswith(SEGMENT_SUFFIX) else ""
        return int(stem) if stem.isdigit() else None

    @property
    def snapshot_id(self) -> tuple[int, int] | None:
        """A KRaft snapshot's end offset and epoch, from its name; None for any other file."""
        match = SNAPSHOT_NAME.match(Path(self.path).name)
        return (int(match["offset"]), int(match["epoch"])) if match else None

    @property
    def size(self) -> int:
        return os.path.getsize(self.path)


def segment_at(path: str | os.PathLike[str]) -> Segment:
    """The segment at ``path``, its topic and partition taken from its directory's name."""
    p = Path(path)
    match = PARTITION_DIR.match(p.resolve().parent.name)
    if match is None:
        return Segment(str(p), None, None)
    return Segment(str(p), match["topic"], int(match["partition"]))


def _order(segment: Segment) -> tuple:
    """Partition, then offset; a snapshot at its end offset, before the segment that starts there (module doc)."""
    base, snapshot = segment.base_offset, segment.snapshot_id
    if snapshot is not None:
        return (segment.topic or "", segment.partition or 0, snapshot[0], 0, snapshot[1], segment.path)
    return (segment.topic or "", segment.partition or 0, base if base is not None else -1, 1, 0, segment.path)


def _is_segment(name: str) -> bool:
    """Whether a file in a directory is read: a segment (``*.log``) or a KRaft snapshot."""
    return name.endswith(SEGMENT_SUFFIX) or SNAPSHOT_NAME.match(name) is not None


def find_segments(path: str | os.PathLike[str]) -> list[Segment]:
    """Every segment under ``path`` in partition order, each partition's segments in offset order.

    A file is taken as a segment whatever its name; in directories, files named ``*.log`` are (Kafka's
    ``.log.deleted``/``.cleaned``/``.swap`` leftovers and ``-delete``/``-future`` directories are not), and so
    are KRaft snapshots (``<end offset>-<epoch>.checkpoint``), placed by their end offset (module doc).
    """
    p = Path(path)
    if not p.exists():
        raise LogError(f"{path}: no such file or directory")
    if p.is_file():
        return [segment_at(p)]
    found = []
    for root, dirs, files in os.walk(p):
        dirs.sort()
        found += [segment_at(Path(root) / f) for f in files if _is_segment(f)]
    if not found:
        raise LogError(f"{path}: no log segments (*{SEGMENT_SUFFIX} files) in this directory")
    return sorted(found, key=_order)


SEGMENT_NAME = re.compile(r"^\d{20}\.log$")  # a broker's segment name: its first offset, 20 digits
SNIFFED = 5  # segment files looked at when telling whether a directory is a log directory
SNIFF_BYTES = 64 << 20  # the largest first entry read to check its CRC


def _entry_at_start(path: Path) -> bool:
    """Whether the file starts with a whole log entry whose CRC is right (or one cut off by the file's end)."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(17)
            if len(head) < 17 or head[16] not in (0, 1, 2):
                return False
            length = int.from_bytes(head[8:12], "big", signed=True)
            if length < (49 if head[16] == 2 else 14):
                return False
            if 12 + length > size:  # a lone entry cut off: only a segment's name can tell
                return SEGMENT_NAME.match(path.name) is not None
            if length > SNIFF_BYTES:
                return False
            entry = head + f.read(12 + length - 17)
    except OSError:
        return False
    stored = int.from_bytes(entry[17:21] if head[16] == 2 else entry[12:16], "big")
    return (crc32c(entry[21:]) if head[16] == 2 else crc32(entry[16:])) == stored


def looks_like_log(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` holds Kafka log segments, told by content: a file that starts with a whole log entry
    whose CRC is right, or a directory with such ``*.log`` files. An empty file has no content to tell: it is
    none (a broker's empty active segment is read with its partition directory, not on its own)."""
    p = Path(path)
    if p.is_file():
        return _entry_at_start(p)
    if not p.is_dir():
        return False
    candidates = sorted(f for f in p.rglob(f"*{SEGMENT_SUFFIX}") if f.is_file() and f.stat().st_size > 0)
    return any(_entry_at_start(f) for f in candidates[:SNIFFED])


def mapped(path: str) -> tuple[memoryview | bytes, mmap.mmap | None]:
    """The bytes of a file as a read-only memory map (and the map, to close), or b"" for an empty file."""
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                return b"", None
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as e:
        raise LogError(f"{path}: {e.strerror or e}") from None
    return memoryview(m), m


@contextmanager
def segment_bytes(segment: Segment) -> Iterator[memoryview | bytes]:
    """The segment's bytes for the ``with`` block, unmapped after it."""
    view, m = mapped(segment.path)
    try:
        yield view
    finally:
        if isinstance(view, memoryview):
            view.release()
        if m is not None:
            with suppress(BufferError):  # a slice still alive keeps the map until it is collected
                m.close()


def segment_reads(segment: Segment, reader: SegmentReader) -> Iterator[Read]:
    """``reader``'s batches and damage of one segment file, its bytes mapped while they are read and unmapped
    once they all are (or the iteration is dropped): the one loop over a segment file that every face (the
    ``log`` verb, Spark's log source, :func:`kafka_meta.log.read_log`) reads with."""
    with segment_bytes(segment) as data:
        yield from reader.batches(data)
