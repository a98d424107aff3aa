"""Transactions as the transaction coordinator recorded them: per transactional id, its producers and epochs,
each transaction's partitions, start, end and outcome, and what an operator must act on.

The coordinator writes a ``__transaction_state`` record (TransactionLogValue) at every step of a transactional
id's life: ``Empty`` after ``initTransactions``, ``Ongoing`` as partitions join a transaction (its start time
set by the first), ``PrepareCommit``/``PrepareAbort`` when the producer ends it (or the coordinator aborts it
on timeout or fencing), ``CompleteCommit``/``CompleteAbort`` once every partition has its marker, ``Dead``
when the id expired, ``PrepareEpochFence`` while fencing an older epoch, and a tombstone when the id is
removed. A transaction is the stretch from its ``Ongoing`` to its ``Complete*``; one never completed where the
inputs end is open.

Findings:

* **hanging transaction**: still open where the inputs end. Every partition it wrote holds its last stable
  offset at the transaction's first offset, so every ``read_committed`` consumer of those partitions (Kafka
  Streams with exactly-once, every transactional consume-transform-produce app) stops there. Open longer than
  its own ``transaction.timeout.ms`` is critical: the coordinator should have aborted it; the usual causes are a
  coordinator that cannot write its markers, or a partition whose leader cannot be reached (``kafka-transactions
  --bootstrap-server ... find-hanging`` and ``abort`` are Kafka's tools for it). Partitions whose batch
  headers show a transactional producer with no marker after its records are named with the offset they are
  held at, also when no ``__transaction_state`` was read.
* **fenced producer**: a producer epoch bumped while a transaction of the previous epoch was still ongoing: a
  second instance with the same ``transactional.id`` started (or the coordinator aborted a transaction past its
  timeout), and the first instance's writes and commits are refused from then on (ProducerFencedException /
  InvalidProducerEpochException): two instances sharing an id, or a zombie that outlived its replacement.

Sans-IO: decoded record values and partition summaries in, :class:`TransactionsReport` out (its findings are
:class:`~kafka_meta.analysis.findings.Finding` s, ranked with the groups'). What is kept grows
with transactional ids and their transactions, not with records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.analysis.findings import Finding
from kafka_meta.analysis.timeline import Evidence
from kafka_meta.internal_topics.transaction_log import state_name

EMPTY, ONGOING, PREPARE_COMMIT, PREPARE_ABORT = 0, 1, 2, 3
COMPLETE_COMMIT, COMPLETE_ABORT, PREPARE_EPOCH_FENCE = 4, 5, 7
# an Empty this soon after an abort is the initTransactions that caused it (the coordinator aborts the old
# instance's transaction and answers the new one as soon as the markers are written: milliseconds); a producer
# restarted after its own abort takes longer than this to start
FENCE_WINDOW_MS = 1000
UNDECIDED = frozenset({ONGOING, PREPARE_COMMIT, PREPARE_ABORT, PREPARE_EPOCH_FENCE})


def _state(status: int | None) -> str:
    if status is None:
        return "removed"
    return state_name(status) or f"state {status}"


@dataclass
class Transaction:
    """One transaction of a transactional id: its producer, partitions, when it started and ended, and how."""

    transactional_id: str
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    start_ms: int | None
    partitions: set[tuple[str, int]] = field(default_factory=set)
    end_ms: int | None = None
    outcome: str = "open"  # "committed", "aborted", "open"
    last_state: str = "Ongoing"
    evidence: Evidence | None = None

    @property
    def duration_ms(self) -> int | None:
        return self.end_ms - self.start_ms if self.end_ms is not None and self.start_ms is not None else None

    def to_json(self) -> dict[str, Any]:
        return {"transactionalId": self.transactional_id, "producerId": self.producer_id,
                "producerEpoch": self.producer_epoch, "timeoutMs": self.timeout_ms,
                "partitions": [f"{t}-{p}" for t, p in sorted(self.partitions)], "startMs": self.start_ms,
                "endMs": self.end_ms, "durationMs": self.duration_ms, "outcome": self.outcome,
                "lastState": self.last_state, "evidence": self.evidence.to_json() if self.evidence else None}


@dataclass
class ProducerEpoch:
    """A producer id and epoch a transactional id was given, and when it was first recorded."""

    producer_id: int
    producer_epoch: int
    since_ms: int | None

    def to_json(self) -> dict[str, Any]:
        return {"producerId": self.producer_id, "producerEpoch": self.producer_epoch, "sinceMs": self.since_ms}


@dataclass
class TransactionalId:
    """A transactional id's life: its producers and epochs, its transactions, its last recorded state."""

    transactional_id: str
    epochs: list[ProducerEpoch] = field(default_factory=list)
    transactions: list[Transaction] = field(default_factory=list)
    state: str = "Empty"
    timeout_ms: int | None = None
    # (the fenced producer, the epoch after it, where, why)
    fenced: list[tuple[ProducerEpoch, ProducerEpoch, Evidence | None, str]] = field(default_factory=list)
    last_abort: tuple[Transaction, int | None] | None = None  # an abort that a new instance's Empty may explain
    # a bounded history's (TransactionHistory(keep_transactions=N)) count of what it let go: the outcomes of the
    # older transactions, and how many older epochs and fencings there were
    older: Counter[str] = field(default_factory=Counter)
    older_epochs: int = 0
    older_fenced: int = 0

    @property
    def current(self) -> Transaction | None:
        last = self.transactions[-1] if self.transactions else None
        return last if last is not None and last.outcome == "open" else None

    @property
    def fenced_count(self) -> int:
        """Every fencing recorded, those let go by a bounded history included."""
        return len(self.fenced) + self.older_fenced

    def outcomes(self) -> Counter[str]:
        """How many transactions ended how (``committed``, ``aborted``, ``open``), the older ones included."""
        return self.older + Counter(t.outcome for t in self.transactions)

    def keep(self, newest: int) -> None:
        """Only the newest ``newest`` transactions, epochs and fencings kept, the older ones counted (only the
        newest transaction may be open, so what is let go has its outcome)."""
        while len(self.transactions) > newest:
            self.older[self.transactions.pop(0).outcome] += 1
        while len(self.epochs) > newest:
            del self.epochs[0]
            self.older_epochs += 1
        while len(self.fenced) > newest:
            del self.fenced[0]
            self.older_fenced += 1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "transactionalId": self.transactional_id, "state": self.state, "timeoutMs": self.timeout_ms,
            "epochs": [e.to_json() for e in self.epochs], "transactions": [t.to_json() for t in self.transactions],
            "fenced": [{"from": old.to_json(), "by": new.to_json(), "why": why} for old, new, _, why in self.fenced]}
        if self.older or self.older_epochs or self.older_fenced:  # only a bounded history lets any go
            out["older"] = {"transactions": dict(self.older), "epochs": self.older_epochs,
                            "fenced": self.older_fenced}
        return out


@dataclass
class OpenPartition:
    """A partition whose batch headers show a transactional producer's records with no marker after them."""

    topic: str
    partition: int
    producer_id: int
    producer_epoch: int
    first_offset: int
    first_ms: int | None
    last_stable_offset: int | None
    log_end_offset: int | None

    def to_json(self) -> dict[str, Any]:
        return {"partition": f"{self.topic}-{self.partition}", "producerId": self.producer_id,
                "producerEpoch": self.producer_epoch, "firstOffset": self.first_offset, "sinceMs": self.first_ms,
                "lastStableOffset": self.last_stable_offset, "logEndOffset": self.log_end_offset}


@dataclass
class TransactionsReport:
    """Every transactional id read, the partitions held open, the findings, and where the inputs end."""

    ids: dict[str, TransactionalId] = field(default_factory=dict)
    open_partitions: list[OpenPartition] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    end_ms: int | None = None  # the latest time the inputs recorded: "now", for what is still open

    @property
    def transactions(self) -> list[Transaction]:
        return sorted((t for i in self.ids.values() for t in i.transactions),
                      key=lambda t: (t.start_ms is None, t.start_ms or 0, t.transactional_id))

    def to_json(self) -> dict[str, Any]:
        return {"endMs": self.end_ms, "transactionalIds": [i.to_json() for _, i in sorted(self.ids.items())],
                "openPartitions": [p.to_json() for p in self.open_partitions],
                "findings": [f.to_json() for f in self.findings]}


def _partitions(value: Mapping[str, Any]) -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    for entry in value.get("transactionPartitions") or []:
        found.update((entry["topic"], p) for p in entry.get("partitionIds") or [])
    return found


class TransactionHistory:
    """Fed the decoded ``__transaction_state`` records in log order (per partition of that topic: a transactional
    id always lives in one) and the partitions' summaries; :meth:`finish` tells the story.

    ``keep_transactions`` bounds it for a reader that never ends (``kafka-meta watch``): per transactional id
    only the newest N transactions, epochs and fencings are kept and the older ones counted
    (:attr:`TransactionalId.older`), and an id removed (its tombstone) is let go, counted in :attr:`removed`.
    What it holds then grows with the transactional ids, not with their transactions. None (the report's) keeps
    everything."""

    def __init__(self, keep_transactions: int | None = None) -> None:
        if keep_transactions is not None and keep_transactions < 1:
            raise ValueError(f"keep_transactions must be at least 1, not {keep_transactions}")
        self.keep_transactions = keep_transactions
        self.ids: dict[str, TransactionalId] = {}
        self.open_partitions: list[OpenPartition] = []
        self.end_ms: int | None = None
        self.removed = 0  # bounded: transactional ids removed and let go

    def merge(self, later: TransactionHistory) -> bool:
        """The history of the rows after this one's (other partitions of the topic, read in parallel) added to
        it; False, and nothing added, when both read the same transactional id (the order would matter)."""
        if set(self.ids) & set(later.ids):
            return False
        self.ids.update(later.ids)
        self.open_partitions.extend(later.open_partitions)
        self.seen(later.end_ms)
        self.removed += later.removed
        return True

    def seen(self, ms: int | float | None) -> None:
        """A time the inputs recorded (any record's timestamp): the latest is where they end."""
        if ms is not None and ms >= 0 and (self.end_ms is None or ms > self.end_ms):
            self.end_ms = int(ms)

    def state(self, transactional_id: str, value: Mapping[str, Any] | None, ts_ms: int | None,
              where: Evidence | None = None) -> None:
        """One TransactionLogValue of ``transactional_id`` (None: a tombstone, the id removed)."""
        self.seen(ts_ms)
        life = self.ids.get(transactional_id)
        if life is None:
            life = self.ids[transactional_id] = TransactionalId(transactional_id)
        if value is None:
            life.state = "removed"
            if self.keep_transactions is not None:
                del self.ids[transactional_id]
                self.removed += 1
            return
        producer, epoch = value["producerId"], value["producerEpoch"]
        status, updated = value["transactionStatus"], value.get("transactionLastUpdateTimestampMs")
        self.seen(updated)
        life.state, life.timeout_ms = _state(status), value.get("transactionTimeoutMs")
        previous = life.epochs[-1] if life.epochs else None
        now = ProducerEpoch(producer, epoch, updated)
        if previous is None or (previous.producer_id, previous.producer_epoch) != (producer, epoch):
            life.epochs.append(now)
        self._fencing(life, value, now, where)
        current = life.current
        if status == ONGOING:
            if current is None or (value.get("transactionStartTimestampMs") not in (None, -1, current.start_ms)):
                if current is not None:  # a new start while one was open: the old one's end was never recorded
                    current.outcome, current.last_state = "aborted", f"{current.last_state}, then restarted"
                current = Transaction(transactional_id, producer, epoch, value.get("transactionTimeoutMs", 0),
                                      value.get("transactionStartTimestampMs"), evidence=where)
                life.transactions.append(current)
            current.partitions |= _partitions(value)
            current.producer_id, current.producer_epoch = producer, epoch
        elif status in UNDECIDED and current is not None:
            current.partitions |= _partitions(value)
            current.last_state = _state(status)
        elif status in (COMPLETE_COMMIT, COMPLETE_ABORT) and current is not None:
            current.outcome = "committed" if status == COMPLETE_COMMIT else "aborted"
            current.last_state, current.end_ms = _state(status), updated
        elif status in (PREPARE_COMMIT, PREPARE_ABORT) and current is None:
            # its Ongoing records lie before what was read (an older segment deleted): known from here on
            current = Transaction(transactional_id, producer, epoch, value.get("transactionTimeoutMs", 0),
                                  value.get("transactionStartTimestampMs"), _partitions(value),
                                  last_state=_state(status), evidence=where)
            life.transactions.append(current)
        if self.keep_transactions is not None:
            life.keep(self.keep_transactions)

    def _fencing(self, life: TransactionalId, value: Mapping[str, Any], now: ProducerEpoch,
                 where: Evidence | None) -> None:
        """Whether this record fences the producer of the transaction it ends.

        A producer's own abort keeps its epoch under transaction version 1 and bumps it under version 2 (which
        bumps it at every end), so the epoch alone cannot tell. What does: an abort under version 1 with a newer
        epoch, an abort past the transaction's timeout (the coordinator's), or an abort followed at once by an
        ``Empty`` of a newer epoch: a new instance's ``initTransactions``, which made the coordinator abort the
        old instance's transaction first (:data:`FENCE_WINDOW_MS`).
        """
        status, updated = value["transactionStatus"], value.get("transactionLastUpdateTimestampMs")
        current = life.current
        if status == PREPARE_EPOCH_FENCE and current is not None:
            life.fenced.append((_epoch_of(current), now, where, "the coordinator fenced its epoch"))
        elif status == PREPARE_ABORT and current is not None and current.last_state == "Ongoing":
            started, timeout = current.start_ms, current.timeout_ms
            if started not in (None, -1) and updated is not None and timeout > 0 and updated - started >= timeout:
                life.fenced.append((_epoch_of(current), now, where,
                                    f"the coordinator aborted its transaction past transaction.timeout.ms "
                                    f"({timeout / 1000:g} s)"))
            elif value.get("clientTransactionVersion", 0) < 2 and now.producer_epoch > current.producer_epoch:
                life.fenced.append((_epoch_of(current), now, where, "a newer epoch aborted its transaction"))
            else:
                life.last_abort = (current, updated)
            return
        elif status == EMPTY and life.last_abort is not None:
            aborted, at = life.last_abort
            if (updated is not None and at is not None and 0 <= updated - at <= FENCE_WINDOW_MS
                    and (now.producer_id, now.producer_epoch) != (aborted.producer_id, aborted.producer_epoch)):
                life.fenced.append((_epoch_of(aborted), now, where,
                                    "another instance with the same transactional.id started (initTransactions) "
                                    "while its transaction was ongoing"))
        if status != PREPARE_ABORT and status not in (COMPLETE_ABORT,):
            life.last_abort = None

    def open_partition(self, row: Mapping[str, Any]) -> None:
        """A partition's summary (the ``partition`` rows of a log directory's user topics): its transactional
        producers with records and no marker after them."""
        self.seen(row.get("lastTimestamp"))
        for txn in row.get("openTransactions") or []:
            self.open_partitions.append(OpenPartition(
                row["topic"], row["partition"], txn["producerId"], txn["producerEpoch"], txn["firstOffset"],
                txn.get("firstTimestamp"), row.get("lastStableOffset"), row.get("logEndOffset")))

    def finish(self) -> TransactionsReport:
        report = TransactionsReport(self.ids, self.open_partitions, end_ms=self.end_ms)
        producers = {t.producer_id: t for i in self.ids.values() for t in i.transactions}
        named: set[tuple[str, int]] = set()
        for life in self.ids.values():
            txn = life.current
            if txn is not None:
                held = [p for p in self.open_partitions if p.producer_id == txn.producer_id]
                named.update((p.topic, p.partition) for p in held)
                report.findings.append(self._hanging(txn, held))
            for old, new, where, why in life.fenced:
                report.findings.append(Finding(
                    "fenced-producer", "warning", _id_label(life.transactional_id),
                    f"producer {old.producer_id} epoch {old.producer_epoch} was fenced ({why}); its transaction was "
                    f"aborted and its writes and offset commits are refused from epoch {new.producer_epoch}"
                    f"{_producer_text(old, new)} on (ProducerFencedException): two instances sharing an id, or a "
                    "zombie that outlived its replacement", _seconds(new.since_ms),
                    evidence=[where] if where else [], transactional_id=life.transactional_id))
        for p in self.open_partitions:
            if (p.topic, p.partition) in named:
                continue
            owner = producers.get(p.producer_id)
            label = f"{p.topic}-{p.partition}"
            report.findings.append(Finding(
                "hanging-transaction", "critical" if owner is None else "warning", label,
                f"producer {p.producer_id} (epoch {p.producer_epoch}) has an open transaction since offset "
                f"{p.first_offset}{_since(p.first_ms)}; the partition's last stable offset is held there "
                f"({_behind(p)}), so read_committed consumers of it stop at offset {p.first_offset}",
                _seconds(p.first_ms), transactional_id=owner.transactional_id if owner else None,
                partitions=[label]))
        report.findings.sort(key=lambda f: (f.severity != "critical", f.ts if f.ts is not None else float("inf")))
        return report

    def _hanging(self, txn: Transaction, held: list[OpenPartition]) -> Finding:
        age = self.end_ms - txn.start_ms if self.end_ms is not None and txn.start_ms not in (None, -1) else None
        past = age is not None and txn.timeout_ms > 0 and age > txn.timeout_ms
        partitions = sorted({f"{t}-{p}" for t, p in txn.partitions} | {f"{p.topic}-{p.partition}" for p in held})
        where = "; ".join(f"{p.topic}-{p.partition} held at offset {p.first_offset} ({_behind(p)})" for p in held)
        age_text = f"open {age / 1000:.0f} s" if age is not None else "open"
        limit = (f", past its transaction.timeout.ms of {txn.timeout_ms / 1000:g} s: the coordinator should have "
                 "aborted it" if past else f" (transaction.timeout.ms {txn.timeout_ms / 1000:g} s)")
        return Finding(
            "hanging-transaction", "critical" if past else "warning", _id_label(txn.transactional_id),
            f"the transaction of producer {txn.producer_id} epoch {txn.producer_epoch} is {txn.last_state} where the "
            f"inputs end, {age_text}{limit}; it holds back the last stable offset of "
            f"{', '.join(partitions) or 'its partitions'}, so read_committed consumers of them wait"
            + (f" ({where})" if where else ""), _seconds(txn.start_ms),
            evidence=[txn.evidence] if txn.evidence else [], transactional_id=txn.transactional_id,
            partitions=partitions)


def _epoch_of(txn: Transaction) -> ProducerEpoch:
    return ProducerEpoch(txn.producer_id, txn.producer_epoch, txn.start_ms)


def _id_label(transactional_id: str) -> str:
    return f"transactional id {transactional_id}"


def _producer_text(old: ProducerEpoch, new: ProducerEpoch) -> str:
    return f" of producer {new.producer_id}" if new.producer_id != old.producer_id else ""


def _since(ms: int | None) -> str:
    return "" if ms is None or ms < 0 else f" (its first record at {ms} ms)"


def _behind(p: OpenPartition) -> str:
    if p.log_end_offset is None:
        return "log end unknown"
    return f"{p.log_end_offset - p.first_offset} records behind the log end offset {p.log_end_offset}"


def _seconds(ms: int | None) -> float | None:
    return ms / 1000 if ms is not None and ms >= 0 else None


def history_of(states: Iterable[tuple[str, Mapping[str, Any] | None, int | None, Evidence | None]],
               partitions: Iterable[Mapping[str, Any]] = ()) -> TransactionsReport:
    """The story of decoded ``(transactional id, value, timestamp, evidence)`` states and partition summaries."""
    history = TransactionHistory()
    for transactional_id, value, ts, where in states:
        history.state(transactional_id, value, ts, where)
    for row in partitions:
        history.open_partition(row)
    return history.finish()
