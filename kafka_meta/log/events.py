"""What reading a segment yields: a batch (its header), its records, or damage found between them.

A reader of a segment emits, in file order, a :class:`Batch` followed by its :class:`Record` s, and a
:class:`SegmentDamage` wherever bytes could not be read; reading then goes on with the next readable batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka_meta.log.compression import CODEC_NAMES

NO_TIMESTAMP_TYPE, CREATE_TIME, LOG_APPEND_TIME = -1, 0, 1  # the ids of Kafka's TimestampType


@dataclass(slots=True)
class Batch:
    """One entry of the log: a magic 2 record batch or a legacy (magic 0/1) message, maybe a wrapper."""

    position: int  # byte position of the entry in its segment
    size: int  # bytes the entry takes in the segment, its offset and length fields included
    magic: int
    base_offset: int
    last_offset: int
    codec: int
    count: int  # records it holds (for a legacy wrapper: its inner messages)
    control: bool = False
    transactional: bool = False
    timestamp_type: int = CREATE_TIME
    producer_id: int = -1
    producer_epoch: int = -1
    base_sequence: int = -1
    partition_leader_epoch: int = -1

    @property
    def codec_name(self) -> str:
        return CODEC_NAMES.get(self.codec, f"codec {self.codec}")


@dataclass(slots=True)
class Record:
    """One record, as a consumer sees it; ``control`` for the markers of a control batch."""

    offset: int
    timestamp: int
    timestamp_type: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]] = field(default_factory=list)
    control: bool = False


@dataclass(slots=True)
class SegmentDamage:
    """Bytes that could not be read: where, which offsets they held (as far as known), and why.

    ``size`` is how many bytes were passed over before reading resumed (0 when nothing was skipped: a
    batch whose records could not all be read, the rest of it having been read).
    """

    position: int
    reason: str
    kind: str  # crc, cut-off, length, magic, decompression, too-big, records, trailing
    first_offset: int | None = None
    last_offset: int | None = None
    size: int = 0

    def describe(self, source: str = "") -> str:
        where = f"{source}, byte {self.position}" if source else f"byte {self.position}"
        if self.first_offset is not None:
            last = self.last_offset if self.last_offset is not None else "?"
            where += f", offsets {self.first_offset}..{last}"
        skipped = f" ({self.size} bytes skipped)" if self.size else ""
        return f"{where}: {self.reason}{skipped}"
