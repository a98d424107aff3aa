"""How each transaction of a partition ended, known before its records are read: the markers, found first.

A record of a transactional batch takes effect only if the next transaction marker its producer writes to the
same partition is a COMMIT; an ABORT marker undoes it, and no marker at all leaves it undecided (the
transaction is still open where the log ends: it holds back the partition's last stable offset). That is the
rule Kafka's consumers (``read_committed``) and its group coordinator apply. The marker comes after the
records it decides, maybe segments later, so a reader that prints records in offset order must know the
markers first. :mod:`kafka_meta.log.partitions` finds them without inflating any batch (only control batches,
which are small and never compressed, are read, by :func:`markers_of_batch`), and :class:`Outcomes` answers, for a
producer and an offset, ``"committed"``, ``"aborted"`` or ``"open"``.

What is kept is one offset per marker (an ``array`` of int64 per producer): it grows with the partition's
transactions, not with its records.
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from kafka_meta.log import v2
from kafka_meta.log.events import Batch

COMMITTED, ABORTED, OPEN = "committed", "aborted", "open"
ABORT_MARKER, COMMIT_MARKER = 0, 1  # the control record key's type of a transaction marker
_CONTROL_KEY = struct.Struct(">hh")  # version, type
TRANSACTIONAL = 0x10  # the batch attribute bit of a transactional batch


@dataclass(frozen=True, slots=True)
class Marker:
    """A transaction marker: the producer whose transaction it ends, at which offset, and how."""

    producer_id: int
    offset: int
    committed: bool


def markers_of_batch(data: bytes | memoryview, pos: int, end: int) -> Iterator[Marker]:
    """The transaction markers of the (CRC-checked, uncompressed) control batch at ``pos``."""
    (base_offset, _length, _epoch, _magic, _crc, attributes, last_delta, first_ts, max_ts, producer_id,
     producer_epoch, _base_sequence, count) = v2.HEADER.unpack_from(data, pos)
    batch = Batch(pos, end - pos, 2, base_offset, base_offset + last_delta, attributes & 7, count, True,
                  bool(attributes & TRANSACTIONAL), producer_id=producer_id, producer_epoch=producer_epoch)
    try:
        records = v2.records(bytes(data[pos + v2.HEADER_SIZE:end]), batch, first_ts, max_ts)
    except v2.RecordsError as e:
        records = e.records
    for record in records:
        key = record.key
        if key is not None and len(key) >= _CONTROL_KEY.size:
            _version, kind = _CONTROL_KEY.unpack_from(key)
            if kind in (ABORT_MARKER, COMMIT_MARKER):
                yield Marker(producer_id, record.offset, kind == COMMIT_MARKER)


@dataclass
class Outcomes:
    """The markers of one partition, per producer, in offset order; and the outcome of any record by them."""

    _offsets: dict[int, array] = field(default_factory=dict)
    _commits: dict[int, array] = field(default_factory=dict)

    def add(self, marker: Marker) -> None:
        """A marker, added in offset order (the order the partition's segments are read in)."""
        offsets = self._offsets.get(marker.producer_id)
        if offsets is None:
            offsets = self._offsets[marker.producer_id] = array("q")
            self._commits[marker.producer_id] = array("b")
        offsets.append(marker.offset)
        self._commits[marker.producer_id].append(marker.committed)

    def extend(self, markers: Iterable[Marker]) -> Outcomes:
        for marker in markers:
            self.add(marker)
        return self

    @property
    def markers(self) -> int:
        return sum(len(o) for o in self._offsets.values())

    def outcome(self, producer_id: int, offset: int) -> str:
        """How the transaction holding the record at ``offset`` of ``producer_id`` ended: by the producer's
        first marker after it (a marker itself is decided by its own type)."""
        offsets = self._offsets.get(producer_id)
        if offsets is None:
            return OPEN
        at = bisect_right(offsets, offset - 1)  # the first marker at or after the offset
        if at == len(offsets):
            return OPEN
        return COMMITTED if self._commits[producer_id][at] else ABORTED

    def decided_at(self, producer_id: int, offset: int) -> int | None:
        """The offset of the marker that decides the record at ``offset``, None while it is open."""
        offsets = self._offsets.get(producer_id)
        if offsets is None:
            return None
        at = bisect_right(offsets, offset - 1)
        return offsets[at] if at < len(offsets) else None

