"""What the inputs held, counted without Spark the way the analyze job counts it on Spark: records per type,
tombstones, unknown types and errors; each group's current state from the newest record of each key; captured
exchanges per API and group; captured payloads per type and version.

``kafka-meta report`` fills its :class:`~kafka_meta.analysis.report.AnalysisReport` here, the analyze job fills the
same fields with Spark aggregations (:mod:`kafka_meta.spark.job`), so both verbs print one document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from kafka_meta.analysis.generations import COMMITS, holds_offsets_row, read_offsets_row, record_bytes
from kafka_meta.analysis.groups import GROUP_RECORD_TYPES, add_committed, analyze_groups
from kafka_meta.analysis.report import ERROR_SAMPLES, AnalysisReport
from kafka_meta.api import decode, types
from kafka_meta.errors import KafkaMetaError
from kafka_meta.log.rows import in_force
from kafka_meta.offsets.commit_view import CommitView
from kafka_meta.offsets.reader import decode_record
from kafka_meta.offsets.records import ControlRecord, CoordinatorRecord, OffsetsRecord, UnknownRecord
from kafka_meta.payload_text import text_bytes


def take_inputs(report: AnalysisReport, offsets: Iterable[Mapping[str, Any]] = (),
                exchanges: Iterable[Mapping[str, Any]] = (),
                payloads: Iterable[Mapping[str, Any]] = ()) -> AnalysisReport:
    """Count every kind of row into ``report`` (returned, for chaining)."""
    count_records(report, offsets)
    count_exchanges(report, exchanges)
    count_payloads(report, payloads)
    return report


def _sample(report: AnalysisReport, text: str) -> None:
    if len(report.error_samples) < ERROR_SAMPLES:
        report.error_samples.append(text)


def _place(row: Mapping[str, Any]) -> str:
    """Where a row was read, as every bad line is said: ``FILE line N`` for a line (its offset after it, when the
    line gives one), else ``FILE offset N`` (a log segment's record), else the file."""
    where = row.get("_file") or row.get("_source") or "?"
    offset = row.get("offset")
    if row.get("_line") is not None:
        return f"{where} line {row['_line']}" + (f" (offset {offset})" if offset is not None else "")
    return f"{where} offset {offset}" if offset is not None else str(where)


class RecordInventory:
    """Records per type and the groups as the newest record of each key leaves them (what compaction keeps:
    the highest offset of a key; rows without offsets in the order read), counted as a reader hands each
    record over: the timeline's reading (its :class:`~kafka_meta.analysis.generations.RecordObserver`), so
    ``kafka-meta report`` decodes every row once, or :func:`count_records` alone."""

    def __init__(self, report: AnalysisReport) -> None:
        self.report = report
        self.newest: dict[bytes, tuple[tuple[int, int], bytes | None]] = {}

    def record(self, row: Mapping[str, Any], position: int, record: OffsetsRecord | CommitView, key: bytes,
               value: bytes | None) -> None:
        _count(self.report, record)
        # an aborted transaction's commit never took effect, an open one's not yet: not the key's newest
        if isinstance(record, CoordinatorRecord | CommitView) and in_force(row.get("transaction")):
            offset = row.get("offset")
            rank = (offset if isinstance(offset, int) else -1, position)
            if key not in self.newest or rank >= self.newest[key][0]:
                self.newest[key] = (rank, value)

    def merge(self, later: RecordInventory) -> bool:
        """The counts of the rows after this one's added to it; False, and nothing added, when both saw a key
        (whose newest record would depend on the order)."""
        if set(self.newest) & set(later.newest):
            return False
        self.newest.update(later.newest)
        mine, theirs = self.report, later.report
        mine.records.update(theirs.records)
        mine.unknown_types.update(theirs.unknown_types)
        mine.tombstones += theirs.tombstones
        mine.read_forward += theirs.read_forward
        mine.errors += theirs.errors
        mine.error_samples = (mine.error_samples + theirs.error_samples)[:ERROR_SAMPLES]
        return True

    def unreadable(self, row: Mapping[str, Any], error: Exception) -> None:
        self.report.errors += 1
        _sample(self.report, f"{_place(row)}: {error}")

    def finish(self) -> AnalysisReport:
        """The groups' state from the newest records, into the report (returned)."""
        report = self.report
        group_records: list[OffsetsRecord] = []
        commits: Counter[str] = Counter()
        for key, (_, value) in self.newest.items():
            number = int.from_bytes(key[:2], "big", signed=True)
            if number in GROUP_RECORD_TYPES:
                group_records.append(decode_record(key, value))
            elif number in COMMITS and value is not None:
                group = decode_record(key, None).group_id
                if group is not None:
                    commits[group] += 1
        if group_records or commits:
            groups = analyze_groups(group_records) | report.groups
            add_committed(groups, commits)
            report.groups = dict(sorted(groups.items()))
        return report


def count_records(report: AnalysisReport, rows: Iterable[Mapping[str, Any]]) -> None:
    """Count ``rows`` into ``report`` by :class:`RecordInventory`, decoding each (without its nest: the counts
    and the newest records need none)."""
    inventory = RecordInventory(report)
    for n, row in enumerate(rows, 1):
        if not holds_offsets_row(row):
            continue
        try:
            read = read_offsets_row(row, nested=False)
        except (KafkaMetaError, ValueError) as e:
            inventory.unreadable(row, e)
            continue
        if read is not None:
            key, value, record = read
            inventory.record(row, n, record, key, value)
    inventory.finish()


def _count(report: AnalysisReport, record: OffsetsRecord | CommitView) -> None:
    if isinstance(record, UnknownRecord):
        report.unknown_types[record.record_type if record.record_type is not None else -1] += 1
    elif isinstance(record, CoordinatorRecord | CommitView):
        report.records[record.record_name] += 1
        report.tombstones += record.value is None
        report.read_forward += record.read_forward
    elif isinstance(record, ControlRecord):
        report.records[f"control {record.marker}"] += 1  # a transaction marker, counted as the analyze job does


def count_exchanges(report: AnalysisReport, exchanges: Iterable[Mapping[str, Any]]) -> None:
    """Captured exchanges per API and group; those with something undecodable counted and sampled."""
    for e in exchanges:
        api = e.get("apiName") or "(unreadable)"
        report.exchanges.setdefault(api, Counter())[e.get("groupId") or "-"] += 1
        if e.get("_error"):
            report.exchange_errors += 1
            source = e.get("source") or {}
            _sample(report, f"{source.get('file', '?')}: {e['_error']}")


def payload_bytes(row: Mapping[str, Any]) -> bytes:
    """A payload's bytes, from whichever of its fields carries them (``hex``, ``base64`` or ``blob``)."""
    for field, encoding in (("hex", "hex"), ("base64", "base64")):  # the readers' rule (kafka_meta.payload_text)
        if row.get(field) is not None:
            return text_bytes(str(row[field]), encoding, field)
    data = record_bytes(row.get("blob"))
    if data is None:
        raise ValueError("no bytes")
    return data


def count_payloads(report: AnalysisReport, payloads: Iterable[Mapping[str, Any]]) -> None:
    """Captured payloads per type and version; unknown types and undecodable bytes are errors."""
    known = set(types())
    for row in payloads:
        name = str(row.get("type"))
        if name not in known:
            report.blob_errors += 1
            _sample(report, f"{_place(row)}: payload of unknown type {name!r}")
            continue
        report.blobs[name] += 1
        try:
            version = decode(name, payload_bytes(row)).version
        except (KafkaMetaError, ValueError) as e:
            report.blob_errors += 1
            _sample(report, f"{_place(row)}: {name} payload: {e}")
            continue
        report.blob_versions.setdefault(name, Counter())[version] += 1
