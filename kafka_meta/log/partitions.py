"""What a partition holds, told by its batch headers alone: offsets, sizes, times, and its transactions.

A broker's log directory holds the partitions of every topic. Those whose records kafka_meta decodes are read
record by record; for the others (a user topic's gigabytes) an operator needs only what the batch headers say:
how many records, the first and the log end offset, the first and last timestamps, and which transactions are
still open (each holds back the partition's last stable offset, so every ``read_committed`` consumer of it
waits). One walk over the headers gives that, and the transaction markers every partition's records are
labelled by (:class:`~kafka_meta.log.transactions.Outcomes`), without inflating a single batch.

The walk goes entry by entry by their length fields, checks each magic 2 batch's CRC (as the record reader
does, so both see the same batches) and resumes after damage where the record reader would
(:func:`~kafka_meta.log.segment.resync`). What it keeps grows with the partition's producers and transactions,
never with its records.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kafka_meta.log import v2
from kafka_meta.log.checksums import crc32c
from kafka_meta.log.files import Segment, segment_bytes
from kafka_meta.log.offset_times import OffsetTimes
from kafka_meta.log.segment import ENTRY_HEAD, MIN_LENGTH, resync
from kafka_meta.log.transactions import TRANSACTIONAL, Outcomes, markers_of_batch

CONTROL = 0x20  # the batch attribute bit of a control batch
PartitionKey = tuple[str | None, int | None, str | None]


@dataclass(frozen=True, slots=True)
class OpenTransaction:
    """A transaction with records and no marker yet: its producer, its first offset and when it began."""

    producer_id: int
    producer_epoch: int
    first_offset: int
    first_timestamp: int


@dataclass
class PartitionScan:
    """One partition as its batch headers tell it, and the markers its records are labelled by."""

    topic: str | None
    partition: int | None
    outcomes: Outcomes = field(default_factory=Outcomes)
    segments: int = 0
    bytes: int = 0
    batches: int = 0
    records: int = 0  # of magic 2 batches their count; a legacy entry counts one (a wrapper is not inflated)
    damaged: int = 0  # stretches passed over
    first_offset: int | None = None
    log_end_offset: int | None = None
    first_timestamp: int | None = None
    last_timestamp: int | None = None
    transactions: int = 0  # markers written
    open: dict[int, OpenTransaction] = field(default_factory=dict)  # producer id -> its undecided transaction
    times: OffsetTimes = field(default_factory=OffsetTimes)  # when its records were written, bounded (lag in time)

    @property
    def last_stable_offset(self) -> int | None:
        """The first offset a ``read_committed`` consumer cannot read yet: the start of the earliest open
        transaction, else the log end offset."""
        if self.open:
            return min(t.first_offset for t in self.open.values())
        return self.log_end_offset

    def add_segment(self, data: bytes | memoryview) -> None:
        self.segments += 1
        self.bytes += len(data)
        pos, end = 0, len(data)
        while pos + 17 <= end:
            base, length = ENTRY_HEAD.unpack_from(data, pos)
            magic = data[pos + 16]
            following = pos + 12 + length
            if magic not in MIN_LENGTH or length < MIN_LENGTH[magic] or following > end:
                if length == 0 and base == 0 and not any(data[pos:end]):
                    return  # zeros after the last entry: space the broker preallocated
                self.damaged += 1
                pos = resync(data, pos + 1, end)
                continue
            if magic == 2:
                (stored,) = struct.unpack_from(">I", data, pos + 17)
                if crc32c(data[pos + v2.CRC_START:following]) != stored:
                    self.damaged += 1
                    pos = resync(data, pos + 1, end)
                    continue
                self._batch(data, pos, following)
            else:  # a legacy message (or wrapper): never transactional; its offset is its last one
                self._extent(base, base, None)
                self.batches += 1
                self.records += 1  # a compressed wrapper's inner messages are not counted without inflating it
            pos = following

    def _batch(self, data: bytes | memoryview, pos: int, following: int) -> None:
        (base, _length, _epoch, _magic, _crc, attributes, last_delta, first_ts, max_ts, producer_id,
         producer_epoch, _sequence, count) = v2.HEADER.unpack_from(data, pos)
        last = base + last_delta
        self.batches += 1
        if attributes & CONTROL:
            if attributes & TRANSACTIONAL:
                for marker in markers_of_batch(data, pos, following):
                    self.outcomes.add(marker)
                    self.transactions += 1
                    self.open.pop(marker.producer_id, None)
            self._extent(base, last, max_ts)
            return
        self.records += count
        self._extent(base, last, max_ts, first_ts)
        self.times.add(last, max_ts)
        if attributes & TRANSACTIONAL and producer_id not in self.open:
            self.open[producer_id] = OpenTransaction(producer_id, producer_epoch, base, first_ts)

    def _extent(self, base: int, last: int, max_ts: int | None, first_ts: int | None = None) -> None:
        if self.first_offset is None:
            self.first_offset = base
        self.log_end_offset = last + 1
        if first_ts is not None and first_ts >= 0 and self.first_timestamp is None:
            self.first_timestamp = first_ts
        if max_ts is not None and max_ts >= 0:
            self.last_timestamp = max(max_ts, self.last_timestamp or max_ts)


def partition_of(segment: Segment) -> PartitionKey:
    """Which partition a segment belongs to: its topic and partition, or, for a lone file outside a partition
    directory, the file itself."""
    if segment.topic is None:
        return None, None, segment.path
    return segment.topic, segment.partition, None


def scan_partitions(segments: Iterable[Segment]) -> dict[PartitionKey, PartitionScan]:
    """Every partition the segments belong to (given in partition and offset order, as
    :func:`~kafka_meta.log.files.find_segments` gives them), scanned."""
    table: dict[PartitionKey, PartitionScan] = {}
    for segment in segments:
        key = partition_of(segment)
        scan = table.get(key)
        if scan is None:
            scan = table[key] = PartitionScan(segment.topic, segment.partition)
        with segment_bytes(segment) as data:
            scan.add_segment(data)
    return table


def outcomes_of(segments: Iterable[Segment]) -> dict[PartitionKey, Outcomes]:
    """The transaction markers of every partition the segments belong to."""
    return {key: scan.outcomes for key, scan in scan_partitions(segments).items()}


def deciding_outcomes(segment: Segment, later: Iterable[Segment]) -> Outcomes:
    """The markers that decide the transactions of one segment's records: its own, then those of the
    partition's ``later`` segments (in offset order), read only while a transaction with records in this
    segment is still undecided. A reader of one segment at a time (a Spark task) needs no more: a marker always
    follows the records it decides, and it usually lies in the same segment or the next."""
    scan = PartitionScan(segment.topic, segment.partition)
    with segment_bytes(segment) as data:
        scan.add_segment(data)
    end = scan.log_end_offset
    for following in later:
        if end is None or not any(t.first_offset < end for t in scan.open.values()):
            break
        with segment_bytes(following) as data:
            scan.add_segment(data)
    return scan.outcomes


def partition_outcomes(segments: list[Segment]) -> Outcomes:
    """The markers of one partition's segments (all of one partition, in offset order)."""
    return outcomes_of(segments).get(partition_of(segments[0]), Outcomes()) if segments else Outcomes()


class LazyOutcomes:
    """Outcomes found only when a transactional record first asks (``find`` finds them, once): most partitions
    of ``__consumer_offsets`` hold no transaction, and their records are read without any scan. Picklable when
    ``find`` is (a ``functools.partial`` of a module's function): a worker process given one finds them, if it
    must, on its own."""

    def __init__(self, find: Callable[[], Outcomes], found: Outcomes | None = None) -> None:
        self.find = find
        self._outcomes = found

    def outcome(self, producer_id: int, offset: int) -> str:
        if self._outcomes is None:
            self._outcomes = self.find()
        return self._outcomes.outcome(producer_id, offset)
