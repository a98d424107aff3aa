"""Counts of what a read found, for the command line's summary and progress lines."""

from __future__ import annotations

import struct
from collections import Counter
from dataclasses import dataclass, field

from kafka_meta.log.events import Batch, Record, SegmentDamage
from kafka_meta.log.transactions import ABORT_MARKER, COMMIT_MARKER

# the transaction markers by the type in a control record's key (version int16, type int16), the summary's words
# for Kafka's ABORT and COMMIT (kafka_meta.kraft.control's table, which this layer stands below and may not import:
# tests/test_log_topics.py holds the two alike)
MARKERS = {ABORT_MARKER: "abort", COMMIT_MARKER: "commit"}


def marker(record: Record) -> str:
    """What a control record marks: ``commit``, ``abort``, or ``type N`` for types newer than these."""
    if record.key is None or len(record.key) < 4:
        return "unreadable"
    (kind,) = struct.unpack_from(">h", record.key, 2)
    return MARKERS.get(kind, f"type {kind}")


@dataclass
class LogSummary:
    segments: int = 0
    bytes: int = 0
    batches: int = 0
    records: int = 0
    codecs: Counter = field(default_factory=Counter)
    magics: Counter = field(default_factory=Counter)
    markers: Counter = field(default_factory=Counter)
    damage: int = 0

    def add(self, event: Batch | Record | SegmentDamage) -> None:
        if isinstance(event, Record):
            if event.control:
                self.markers[marker(event)] += 1
            else:
                self.records += 1
        elif isinstance(event, Batch):
            self.batches += 1
            self.codecs[event.codec_name] += 1
            self.magics[event.magic] += 1
        else:
            self.damage += 1

    def render(self) -> str:
        codecs = ", ".join(f"{n} {c}" for c, n in sorted(self.codecs.items())) or "none"
        magics = ", ".join(f"{n} magic {m}" for m, n in sorted(self.magics.items()))
        markers = ", ".join(f"{n} {m}" for m, n in sorted(self.markers.items())) or "none"
        return (f"{self.segments} segment(s), {self.bytes} bytes: {self.batches} batches ({magics or 'none'}; "
                f"codecs: {codecs}), {self.records} records, control markers: {markers}, "
                f"damage: {self.damage}")
