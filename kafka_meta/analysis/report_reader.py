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

A broker's ``__consumer_offsets`` is nearly all offset commits, and the report only counts them (per round,
with each partition's latest offset and each key's newest record), so :meth:`ReportReader.commits` takes a
batch of them as the segment reader gives it: a commit written outside a transaction is counted straight
from its key's reading (looked up: a log names few keys) and its value's bytes
(:func:`~kafka_meta.offsets.commit_view.commit_value`), into the same state :meth:`ReportReader.record` would
have left, without a row, a view or a record; any other record of the batch is fed as its row.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from kafka_meta.analysis.assemble import timeline_of
from kafka_meta.analysis.findings import Thresholds
from kafka_meta.analysis.generations import (
    NotMergeable,
    OffsetsTimeline,
    log_order,
    scope_of,
    sort_key,
)
from kafka_meta.analysis.inventory import RecordInventory, count_exchanges, count_payloads
from kafka_meta.analysis.lag_feed import LagFeed, Observers
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.analysis.timeline import LAST_SECOND
from kafka_meta.analysis.transaction_feed import TransactionFeed
from kafka_meta.errors import KafkaMetaError
from kafka_meta.log.events import Record
from kafka_meta.offsets.commit_view import CommitKeyFields, commit_key, commit_value

KEEP_ERRORS = 10_000  # records that could not be read, listed; the rest are counted
LAST_MS = LAST_SECOND * 1000  # a record's time from then on is none (kafka_meta.analysis.generations._seconds)
KEEP_KEYS = 100_000  # commit keys' readings remembered (a log names fewer); past it, forgotten and read again


def _tagged(row: dict[str, Any], source: Any) -> dict[str, Any]:
    row["_source"] = source
    return row


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
        self.keys: dict[bytes, CommitKeyFields | None] = {}  # a commit key's reading (None: not the lane's)
        self.id_texts: dict[bytes, str] = {}  # a topic id's bytes as its text

    def __getstate__(self) -> dict[str, Any]:
        """What a worker process hands back: not the keys' readings (remembered to go faster, not needed)."""
        return {**self.__dict__, "keys": {}, "id_texts": {}}

    def record(self, row: Mapping[str, Any]) -> None:
        """A record row of any topic (``__consumer_offsets``, the metadata log, ``__transaction_state``...)."""
        self.records += 1
        if not self.ordered:
            self.collected.append(row)
            return
        source, topic, partition = scope_of(row)
        offset = row.get("offset")
        self._in_order(source, topic, partition, offset, row)
        self.place = (source, topic, partition, offset)
        self._feed(row, self.records)

    def _in_order(self, source: Any, topic: Any, partition: Any, offset: Any, row: Mapping[str, Any]) -> None:
        """Raises :class:`NotInLogOrder` when a record at ``offset`` of this partition breaks log order."""
        same = self.place
        if (same is not None and source == same[0] and topic == same[1] and partition == same[2]
                and type(offset) is int and type(same[3]) is int):  # the common case: the next offset
            if offset < same[3]:
                self._out_of_order(row, source)
        else:
            key = sort_key(row)  # type: ignore[arg-type]
            before = self.last.get(source)
            if before is not None and (key < before or source != self.source):
                self._out_of_order(row, source)
            self.last[source], self.source = key, source

    def commits(self, source: Any, where: str, topic: str, partition: int, records: list[Record],
                row_of: Callable[[Record], dict[str, Any]]) -> None:
        """The records of one batch of ``__consumer_offsets`` (``topic``) that no transaction wrote, read from
        the input ``source``'s partition ``where``: each offset commit the counting lane reads
        (:func:`~kafka_meta.offsets.commit_view.commit_key` and
        :func:`~kafka_meta.offsets.commit_view.commit_value`) counted at once, as :meth:`record` would count
        its row; every other record fed as its row (``row_of``, tagged with ``source``)."""
        if not self.ordered or not records:
            for record in records:
                self.record(_tagged(row_of(record), source))
            return
        first = records[0].offset
        self._in_order(source, topic, partition, first, {"topic": topic, "partition": partition,
                                                          "offset": first, "_file": where})
        scope = (source, topic, partition)
        keys, read_key = self.keys, commit_key
        offsets = self.offsets
        log = offsets.log
        counts, latest, in_force, topic_ids = log.counts, log.latest, log.in_force, log.topic_ids
        newest, names, id_texts = self.inventory.newest, self.report.records, self.id_texts
        lag_state, lag_generations = self.lag.state, self.lag.in_force  # each group's committed offsets, for lag
        last, seen, n, fast, tombstones = first, -1, self.records, 0, 0
        # runs of alike commits (a batch is one group's, mostly of one second) are counted once per run
        name_now, name_n = None, 0
        group_now: str | None = None
        generation: int | None = None
        offsets_of: dict[str, int] = {}
        run_group, run_generation, run_second, run_n = None, None, None, 0
        raw_now, topic_now = None, None
        for record in records:
            key, value, offset = record.key, record.value, record.offset
            fields = keys.get(key, False) if key is not None else None
            if fields is False:
                if len(keys) >= KEEP_KEYS:
                    keys.clear()
                fields = keys[key] = read_key(key)  # type: ignore[index,arg-type]
            read = None
            if fields is not None and (value is None or (read := commit_value(value)) is not None):
                if offset < last:
                    self.place = (source, topic, partition, last)
                    self._out_of_order({"topic": topic, "partition": partition, "offset": offset,
                                        "_file": where}, source)
                last = offset
                n += 1
                fast += 1
                name, group, key_topic, key_partition, place = fields  # type: ignore[misc]
                if name is not name_now:
                    if name_n:
                        names[name_now] += name_n  # type: ignore[index]
                    name_now, name_n = name, 0
                name_n += 1
                rank = (offset, n)
                old = newest.get(key)  # type: ignore[arg-type]
                if old is None or rank >= old[0]:
                    newest[key] = (rank, value)  # type: ignore[index]
                ts = record.timestamp
                if ts > seen:
                    seen = ts
                if read is None:
                    tombstones += 1
                    if group:
                        lag_state.forget(group, key_topic, key_partition)
                    continue
                if not group:
                    continue
                raw = read[2]
                if key_topic and (raw != raw_now or key_topic != topic_now):
                    text = id_texts.get(raw)
                    if text is None:
                        text = id_texts[raw] = str(uuid.UUID(bytes=raw))
                    topic_ids[text] = key_topic
                    raw_now, topic_now = raw, key_topic
                if group != group_now:
                    group_now, generation = group, in_force.get((scope, group))
                    offsets_of = latest.get(group)  # type: ignore[assignment]
                    if offsets_of is None:
                        offsets_of = latest[group] = {}
                offsets_of[place] = read[1]
                lag_state.commit(group, key_topic, key_partition, read[1], ts if ts >= 0 else None,
                                 lag_generations.get((scope, group)))
                # the second is counted where no generation is in force (0 <= ts / 1000 < LAST_SECOND)
                second = float(ts // 1000) if generation is None and 0 <= ts < LAST_MS else None
                if group != run_group or second != run_second or generation != run_generation:
                    if run_n:
                        counts[(run_group, run_generation, run_second)] += run_n  # type: ignore[index]
                    run_group, run_generation, run_second, run_n = group, generation, second, 0
                run_n += 1
                continue
            if run_n:  # a record fed as its row may change what is in force: the runs so far are counted
                counts[(run_group, run_generation, run_second)] += run_n  # type: ignore[index]
                run_group, run_n = None, 0
            if name_n:
                names[name_now] += name_n  # type: ignore[index]
                name_now, name_n = None, 0
            group_now, raw_now = None, None
            self.records, self.place = n, (source, topic, partition, last)
            self.record(_tagged(row_of(record), source))
            n, last = self.records, self.place[3]
        if run_n:
            counts[(run_group, run_generation, run_second)] += run_n  # type: ignore[index]
        if name_n:
            names[name_now] += name_n  # type: ignore[index]
        offsets.read += fast
        self.records, self.place = n, (source, topic, partition, last)
        self.report.tombstones += tombstones
        if seen >= 0:
            self.transactions.history.seen(seen)

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
