"""The report read in one pass over its inputs' rows, keeping what the report shows and not the rows.

``kafka-meta report`` on a broker's log directory meets millions of ``__consumer_offsets`` records; the report
needs each group's rounds, the commits' counts per round, the newest record per key and each partition's
latest offset, none of which needs every record kept. :class:`ReportReader` is handed the rows as the
readers make them (sans-IO: the rows in, the report out) and feeds each to the timeline, the record counts
and the transaction history at once (:class:`~kafka_meta.analysis.generations.OffsetsTimeline` counting
commits, :class:`~kafka_meta.analysis.inventory.RecordInventory`,
:class:`~kafka_meta.analysis.transaction_feed.TransactionFeed`).

The timeline reads records in log order (:func:`~kafka_meta.analysis.generations.log_order`). A broker's
directory is read in that order (each partition by offset, partitions by topic and number), so its rows are
fed as they come. Rows that come in another order (a JSON Lines dump of partitions interleaved, a segment
copied twice) cannot be put back in order once fed: the reader then raises :class:`NotInLogOrder`, and a
reader made with ``ordered=False`` collects the rows and sorts them first, which costs memory in proportion
to the records (said in the report's ``memory`` note).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka_meta.analysis.assemble import timeline_of
from kafka_meta.analysis.findings import Thresholds
from kafka_meta.analysis.generations import NotMergeable, OffsetsTimeline, log_order, scope_of, sort_key
from kafka_meta.analysis.inventory import RecordInventory, count_exchanges, count_payloads
from kafka_meta.analysis.lag_feed import LagFeed, Observers
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.analysis.transaction_feed import TransactionFeed
from kafka_meta.errors import KafkaMetaError

KEEP_ERRORS = 10_000  # records that could not be read, listed; the rest are counted


class NotInLogOrder(KafkaMetaError):
    """A row came before one already fed in log order: the inputs must be collected and sorted first."""


class ReportReader:
    """Rows of every kind in, one :class:`~kafka_meta.analysis.report.AnalysisReport` out (:meth:`finish`).

    ``ordered`` (the default) feeds each record row as it comes and raises :class:`NotInLogOrder` on the
    first that breaks log order; ``ordered=False`` collects them and feeds them sorted at the end."""

    def __init__(self, thresholds: Thresholds | None = None, ordered: bool = True) -> None:
        self.thresholds = thresholds
        self.ordered = ordered
        self.report = AnalysisReport()
        self.inventory = RecordInventory(self.report)
        self.lag = LagFeed()  # each group's committed offsets and lag, by partition
        self.offsets = OffsetsTimeline(counted=True, keep_errors=KEEP_ERRORS,
                                       observer=Observers(self.inventory, self.lag))
        self.transaction_errors: list[str] = []
        self.transactions = TransactionFeed(self.transaction_errors)
        self.exchanges: list[Mapping[str, Any]] = []  # captures: small beside logs, and the rounds need them all
        self.payload_rows: list[Mapping[str, Any]] = []  # counted after the exchanges, as their samples are
        self.collected: list[Mapping[str, Any]] = []  # not ordered: every record row, sorted at the end
        self.last: dict[Any, tuple[Any, ...]] = {}  # source -> the log-order key of its last row fed
        self.source: Any = None  # the source of the last row fed: log order reads one source after another
        self.place: tuple[Any, Any, Any, Any] | None = None  # the last row's source, topic, partition and offset
        self.records = 0

    def record(self, row: Mapping[str, Any]) -> None:
        """A record row of any topic (``__consumer_offsets``, the metadata log, ``__transaction_state``...)."""
        self.records += 1
        if not self.ordered:
            self.collected.append(row)
            return
        source, topic, partition = scope_of(row)
        offset = row.get("offset")
        same = self.place
        if (same is not None and source == same[0] and topic == same[1] and partition == same[2]
                and type(offset) is int and type(same[3]) is int):  # the common case: the next offset
            if offset < same[3]:
                self._out_of_order(row, source)
        else:
            key = sort_key(row)
            before = self.last.get(source)
            if before is not None and (key < before or source != self.source):
                self._out_of_order(row, source)
            self.last[source], self.source = key, source
        self.place = (source, topic, partition, offset)
        self._feed(row, self.records)

    def _out_of_order(self, row: Mapping[str, Any], source: Any) -> None:
        raise NotInLogOrder(f"{row.get('_file') or source}: offset {row.get('offset')} of {row.get('topic')}-"
                            f"{row.get('partition')} comes after a record later in log order")

    def _feed(self, row: Mapping[str, Any], n: int) -> None:
        self.offsets.feed(row, n)  # type: ignore[arg-type]
        self.transactions.row(row)

    def partition(self, row: Mapping[str, Any]) -> None:
        """A user topic's partition summary."""
        self.transactions.partition(row)
        self.lag.partition(row)

    def exchange(self, row: Mapping[str, Any]) -> None:
        self.exchanges.append(row)

    def payload(self, row: Mapping[str, Any]) -> None:
        self.payload_rows.append(row)

    def damage(self, text: str) -> None:
        self.report.damage.append(text)

    def unreadable(self, text: str) -> None:
        self.report.unreadable.append(text)

    def merge(self, later: ReportReader) -> None:
        """A reader fed the rows that follow this one's (other partitions, in another process) added to this
        one, as if this one had read them; :class:`~kafka_meta.analysis.generations.NotMergeable` when both read
        something of one group, key or transactional id (this reader is then part-merged: discard it)."""
        if self.collected or later.collected:
            raise NotMergeable("a reader that collects its rows sorts them all at the end")
        self.offsets.merge(later.offsets)
        self.lag.merge(later.lag)
        if not self.inventory.merge(later.inventory) or not self.transactions.merge(later.transactions):
            raise NotMergeable("both read the same key or transactional id")
        self.exchanges.extend(later.exchanges)
        self.payload_rows.extend(later.payload_rows)
        self.report.damage.extend(later.report.damage)
        self.report.unreadable.extend(later.report.unreadable)
        self.records += later.records
        self.last.update(later.last)
        self.source, self.place = later.source or self.source, later.place or self.place

    def finish(self) -> AnalysisReport:
        """The report: the timeline, the counts, the groups' state and the transactions (call once)."""
        for n, row in log_order(self.collected):
            self._feed(row, n)
        self.collected = []
        logged, errors = self.offsets.finish()
        report = self.report
        report.timeline = timeline_of(self.exchanges, logged, errors, self.thresholds)
        report.timeline.transactions = self.transactions.finish()
        report.timeline.errors.extend(self.transaction_errors)
        report.stand(self.lag.finish(report.timeline))
        self.inventory.finish()
        count_exchanges(report, self.exchanges)
        count_payloads(report, self.payload_rows)
        return report
