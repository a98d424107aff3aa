"""The sans-IO core of ``kafka-meta watch``: records, group descriptions and connection news in; events,
snapshots and the timeline out. No socket, no clock of its own (callers pass the time), so the same core runs
under the Kafka client, under tests with real record bytes, and under anything else that can read the topics.

What it keeps is bounded by the number of groups, transactional ids and partitions, not by the records read:
the timeline is :class:`~kafka_meta.analysis.generations.OffsetsTimeline` in its bounded mode, the commit rate a
window of per-second counts, the transactions a
:class:`~kafka_meta.analysis.transactional_ids.TransactionHistory` keeping the newest few per transactional id
(the older ones counted), the positions one offset per partition.

A transaction is hanging once it is open longer than its ``transaction.timeout.ms`` by the wall clock (``at``;
the newest record's time when that is later), judged only while ``__transaction_state`` is read to its end
(:meth:`LiveTimeline.on_tick`): the coordinator times transactions out by its own clock whether anything is
written or not, and a log nothing is written to has a clock that stands still; while a backlog is read, the end
of a transaction may be a record still to come.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from kafka_meta.analysis.findings import Finding
from kafka_meta.analysis.generations import COMMITS, GENERATION_RECORD_TYPES, OffsetsTimeline
from kafka_meta.analysis.lag import GroupStanding
from kafka_meta.analysis.timeline import Evidence, GroupTimeline, Round
from kafka_meta.analysis.transaction_feed import decode_state
from kafka_meta.analysis.transactional_ids import Transaction, TransactionHistory
from kafka_meta.errors import KafkaMetaError
from kafka_meta.live.catchup import CatchUp, Place
from kafka_meta.live.events import (
    CONNECTED,
    DISCONNECTED,
    FINDING,
    PROBLEM,
    ROUND,
    STATE,
    TRANSACTION,
    Event,
    GroupDescription,
)
from kafka_meta.live.standing import LiveStanding

# the topics a watch reads (kafka_meta.log.topics names them for the readers of log directories; the layers
# keep the live face from importing the log reader, so they are named here, once for the live package)
OFFSETS_TOPIC = "__consumer_offsets"
TRANSACTION_TOPIC = "__transaction_state"
WATCHED_TOPICS = (OFFSETS_TOPIC, TRANSACTION_TOPIC)
RATE_WINDOW_S = 60  # the commit rate is over the last minute of the log's own clock
KEEP_TRANSACTIONS = 10  # per transactional id, the newest transactions kept (the older ones counted)


class FetchedLike(Protocol):
    """A record as a consumer hands it over: kafka-python's ``ConsumerRecord`` is one, so is :class:`FetchedRecord`."""

    @property
    def offset(self) -> int: ...
    @property
    def timestamp(self) -> int | None: ...
    @property
    def key(self) -> bytes | None: ...
    @property
    def value(self) -> bytes | None: ...


class FetchedRecord(NamedTuple):
    offset: int
    timestamp: int | None
    key: bytes | None
    value: bytes | None


@dataclass
class GroupView:
    """One line of the live view: what the log and the coordinator say of a group now."""

    group: str
    kind: str
    state: str | None  # the coordinator's, from the last describe (None: not described yet)
    generation: int | None  # the last generation or epoch recorded, else the one described
    members: int | None
    last_round: Round | None
    commits: int  # commits read while watching
    commit_rate: float  # commits per second over the last RATE_WINDOW_S of the log's clock
    described: GroupDescription | None = None
    standing: GroupStanding | None = None  # its lag and Burrow's status, once a log end was answered

    @property
    def why(self) -> str:
        """Why the last round started, in a few words."""
        if self.last_round is None:
            return ""
        return "; ".join(self.last_round.triggers) or "-"

    def to_json(self) -> dict[str, Any]:
        r = self.last_round
        return {"group": self.group, "kind": self.kind, "state": self.state, "generation": self.generation,
                "members": self.members, "commits": self.commits, "commitRate": round(self.commit_rate, 3),
                "lastRound": None if r is None else {"generation": r.generation, "start": r.start,
                                                     "members": [m.member_id for m in r.members],
                                                     "why": r.triggers},
                "standing": None if self.standing is None else self.standing.to_json()}


@dataclass
class CommitRate:
    """Commits per second of the log's clock, the last ``window`` seconds of them kept."""

    window: int = RATE_WINDOW_S
    seconds: deque[list[int]] = field(default_factory=deque)  # [second, commits], oldest first

    def add(self, second: int) -> None:
        if self.seconds and self.seconds[-1][0] == second:
            self.seconds[-1][1] += 1
        elif not self.seconds or second > self.seconds[-1][0]:
            self.seconds.append([second, 1])
        else:  # another partition's commit from a moment ago: counted in the newest second
            self.seconds[-1][1] += 1
        self.forget(second)

    def forget(self, now: int) -> None:
        while self.seconds and self.seconds[0][0] <= now - self.window:
            self.seconds.popleft()

    def per_second(self, now: int) -> float:
        self.forget(now)
        return sum(n for _, n in self.seconds) / self.window


@dataclass
class OpenTransaction:
    """A transaction open now: how long it has been open (by the wall clock, or the log's when that is later)
    and whether it was told hanging (open past its ``transaction.timeout.ms``)."""

    transaction: Transaction
    open_ms: int | None
    hanging: bool

    def to_json(self) -> dict[str, Any]:
        return {**self.transaction.to_json(), "openMs": self.open_ms, "hanging": self.hanging}


class LiveTimeline:
    """Everything a watch knows, fed as it learns it.

    * :meth:`on_record`: one record of ``__consumer_offsets`` as a ``read_committed`` consumer hands it over
      (aborted transactions' offsets never arrive, transaction markers neither), or of ``__transaction_state``
      (the coordinator's, written outside transactions); a record at an offset already read (a consumer that
      resumed a little early) is counted once only;
    * :meth:`on_description`: a group as its coordinator describes it;
    * :meth:`on_connection`: the cluster answered, or stopped answering;
    * :meth:`on_tick`: the time now, for the transactions open past their timeout;
    * :meth:`on_offsets`: the reader's positions and the log ends, for how far behind it is
      (:class:`~kafka_meta.live.catchup.CatchUp`).

    Each returns the events it caused. :attr:`positions` is where to resume reading after the cluster comes
    back; :meth:`groups`, :meth:`timelines` and :meth:`open_transactions` are the state now."""

    def __init__(self, source: str = "live", keep_rounds: int = 100, only: Iterable[str] | None = None,
                 keep_transactions: int | None = KEEP_TRANSACTIONS) -> None:
        self.source = source
        self.only = set(only) if only else None  # the groups asked about (None: every group)
        self.standing = LiveStanding()  # each group's lag and Burrow's status (ListOffsets, on_log_ends)
        self.ends_at: float | None = None  # when the log ends were last answered
        self.offsets = OffsetsTimeline(source, bounded=True, committed=True, keep_rounds=keep_rounds,
                                       observer=self.standing.feed)
        self.transactions = TransactionHistory(keep_transactions=keep_transactions)
        self.ended: Counter[str] = Counter()  # transactions ended while watching, per outcome
        self.fenced = 0  # fenced producers told
        self.hanging: dict[str, Transaction] = {}  # transactional id -> its open transaction told hanging
        self.positions: dict[Place, int] = {}  # (topic, partition) -> the next offset to read
        self.records: Counter[str] = Counter()  # per record type name
        self.repeated = 0  # records at offsets already read, not counted again
        self.commits: Counter[str] = Counter()  # per group, while watching
        self.rates: dict[str, CommitRate] = {}
        self.clock = 0  # the newest record's second (the log's clock)
        self.described: dict[str, GroupDescription] = {}
        self.last_round: dict[str, int | None] = {}  # group -> the generation of its newest round, as last told
        self.connected: bool | None = None
        self.problems = 0
        self.catchup = CatchUp()

    def on_record(self, partition: int, offset: int, timestamp_ms: int | None, key: bytes | None,
                  value: bytes | None, at: float, topic: str = OFFSETS_TOPIC) -> list[Event]:
        """One record of partition ``partition`` of ``topic`` (``__consumer_offsets`` or
        ``__transaction_state``); ``at`` is the wall-clock now."""
        return self.on_batch(topic, partition, (FetchedRecord(offset, timestamp_ms, key, value),), at)

    def on_batch(self, topic: str, partition: int, records: Iterable[FetchedLike], at: float) -> list[Event]:
        """The records of one partition of ``topic`` as a fetch handed them over, in offset order (anything with
        ``offset``, ``timestamp``, ``key`` and ``value``: kafka-python's records as they are, no copy); ``at`` is
        the wall-clock now. What is the same for the whole batch (the partition's place, the topic's kind) is
        looked at once: a backlog of millions of records is read in batches of thousands."""
        place = (topic, partition)
        events: list[Event] = []
        read = self._transaction_record if topic == TRANSACTION_TOPIC else self._offsets_record
        position = self.positions.get(place, 0)
        try:
            for r in records:
                offset = r.offset
                if offset < position:
                    self.repeated += 1
                    continue
                position = offset + 1
                told = read(partition, offset, r.timestamp, r.key, r.value, at)
                if told:
                    events += told
        finally:  # the next offset, once for the batch
            if position or place in self.positions:
                self.positions[place] = position
        return events

    def _offsets_record(self, partition: int, offset: int, timestamp_ms: int | None, key: bytes | None,
                        value: bytes | None, at: float) -> list[Event]:
        """A record of ``__consumer_offsets``: a commit counted, a round told."""
        offsets = self.offsets
        before = len(offsets.log.errors) + offsets.errors_dropped
        record = offsets.feed({"topic": OFFSETS_TOPIC, "partition": partition, "offset": offset,
                               "timestamp": timestamp_ms, "key": key, "value": value, "_source": self.source})
        if record is None:
            if len(offsets.log.errors) + offsets.errors_dropped > before:
                self.problems += 1
                return [Event(PROBLEM, at, detail={"problem": offsets.log.errors[-1]})]
            return []
        self.records[getattr(record, "record_name", None) or type(record).__name__] += 1
        group, number = getattr(record, "group_id", None), getattr(record, "record_type", None)
        second = timestamp_ms // 1000 if timestamp_ms is not None and timestamp_ms >= 0 else None
        if second is not None and second > self.clock:
            self.clock = second
        if not group or not self.wanted(group):
            return []
        if number in COMMITS and getattr(record, "value", None) is not None:
            self.commits[group] += 1
            rate = self.rates.get(group)
            if rate is None:
                rate = self.rates[group] = CommitRate()
            rate.add(self.clock if second is None else second)
            return []
        if number in GENERATION_RECORD_TYPES:
            return self._new_round(group, at)
        return []

    def _transaction_record(self, partition: int, offset: int, timestamp_ms: int | None, key: bytes | None,
                            value: bytes | None, at: float) -> list[Event]:
        """A transactional id's new state: a transaction that ended, a producer fenced."""
        where = Evidence(file=f"{TRANSACTION_TOPIC}-{partition}", offset=offset,
                         ts=timestamp_ms / 1000 if timestamp_ms is not None and timestamp_ms >= 0 else None)
        try:
            state = decode_state(key, value)
        except (KafkaMetaError, ValueError) as e:
            self.problems += 1
            return [Event(PROBLEM, at, detail={"problem": f"{where}: {e}"})]
        if state is None:  # a record type of a newer Kafka
            self.records["UnknownRecord"] += 1
            return []
        self.records["TransactionLog"] += 1
        transactional_id = state[0]
        life = self.transactions.ids.get(transactional_id)
        current, fenced = (life.current, life.fenced_count) if life is not None else (None, 0)
        self.transactions.state(*state, timestamp_ms, where)
        life = self.transactions.ids.get(transactional_id)
        events = []
        if current is not None and current.outcome != "open":
            self.ended[current.outcome] += 1
            if self.hanging.get(transactional_id) is current:
                del self.hanging[transactional_id]
            events.append(Event(TRANSACTION, at, detail=current.to_json()))
        if life is None:  # removed (a tombstone): nothing of it is kept
            self.hanging.pop(transactional_id, None)
            return events
        for old, new, place, why in life.fenced[len(life.fenced) - (life.fenced_count - fenced):]:
            self.fenced += 1
            events.append(Event(FINDING, at, detail={
                "finding": "fenced-producer", "severity": "warning", "transactionalId": transactional_id,
                "producerId": old.producer_id, "producerEpoch": old.producer_epoch, "byProducerId": new.producer_id,
                "byProducerEpoch": new.producer_epoch, "why": why, "evidence": place.to_json() if place else None,
                "summary": f"transactional id {transactional_id}: producer {old.producer_id} epoch "
                           f"{old.producer_epoch} was fenced ({why}) by epoch {new.producer_epoch}; its writes and "
                           "offset commits are refused from then on"}))
        return events

    def on_offsets(self, positions: Mapping[Place, int], ends: Mapping[Place, int], at: float) -> list[Event]:
        """The reader's position and the log end of each partition read, at ``at``: ``catching-up`` when behind
        at first or fallen behind again, ``caught-up`` once it reaches the end."""
        return self.catchup.update(positions, ends, at)

    def on_log_ends(self, ends: Mapping[Place, int], at: float) -> list[Event]:
        """The log ends of the groups' partitions (:meth:`lag_partitions`) as ListOffsets answered them at
        ``at``: each group's lag, and a finding for each group newly falling behind, stopped, stalled or
        rewound, judged once the watch has caught up (:mod:`kafka_meta.live.standing`)."""
        self.ends_at = at
        return self.standing.on_log_ends(ends, at, self.timelines(), self.caught_up, self.wanted)

    @property
    def caught_up(self) -> bool:
        """Whether the watch has read its topics to their ends (what is behind is under a second's reading)."""
        state = self.catchup.state
        return state is not None and state.caught_up

    def standings(self, timelines: dict[str, GroupTimeline] | None = None) -> dict[str, GroupStanding]:
        """Each group's lag and status as of the last log ends answered; none before, or while catching up."""
        if self.ends_at is None or not self.caught_up:
            return {}
        return self.standing.standings(self.ends_at, self.timelines() if timelines is None else timelines)

    def lag_partitions(self) -> list[Place]:
        """The user topics' partitions whose log ends tell the groups' lag."""
        return self.standing.partitions(self.wanted)

    def on_tick(self, at: float, settled: bool = True) -> list[Event]:
        """The wall clock at ``at``: a finding for each transaction that is open past its
        ``transaction.timeout.ms`` now, told once. ``settled``: whether ``__transaction_state`` has been read to
        its end (while a backlog is read, what ends a transaction may be still to come, so nothing is judged)."""
        if not settled:
            return []
        events = []
        for entry in self.open_transactions(at):
            txn = entry.transaction
            if not entry.hanging and _past_timeout(txn, entry.open_ms):
                self.hanging[txn.transactional_id] = txn
                finding = hanging_finding(txn, entry.open_ms)
                events.append(Event(FINDING, at, detail={
                    "finding": finding.kind, "severity": finding.severity, "transactionalId": txn.transactional_id,
                    "producerId": txn.producer_id, "producerEpoch": txn.producer_epoch,
                    "partitions": finding.partitions, "startMs": txn.start_ms, "timeoutMs": txn.timeout_ms,
                    "openMs": entry.open_ms, "summary": finding.summary}))
        return events

    def overdue(self, at: float) -> bool:
        """Whether a transaction not told hanging is open past its timeout at ``at``: only then is it worth
        asking the source whether ``__transaction_state`` is read to its end (:meth:`on_tick`)."""
        return any(not e.hanging and _past_timeout(e.transaction, e.open_ms) for e in self.open_transactions(at))

    def open_transactions(self, at: float) -> list[OpenTransaction]:
        """Every transaction open now, the oldest first, with how long it has been open at ``at``."""
        now = max(int(at * 1000), self.transactions.end_ms or 0)
        found = []
        for transactional_id, life in self.transactions.ids.items():
            txn = life.current
            if txn is None:
                continue
            open_ms = now - txn.start_ms if txn.start_ms is not None and txn.start_ms >= 0 else None
            found.append(OpenTransaction(txn, open_ms, self.hanging.get(transactional_id) is txn))
        return sorted(found, key=lambda e: (e.transaction.start_ms is None, e.transaction.start_ms or 0,
                                            e.transaction.transactional_id))

    def hanging_findings(self, at: float) -> list[Finding]:
        """The transactions told hanging and still open, as findings of the report (the live HTML page)."""
        return [hanging_finding(e.transaction, e.open_ms) for e in self.open_transactions(at) if e.hanging]

    def transaction_counts(self) -> dict[str, int]:
        """The transactions ended while watching, by outcome, and the producers fenced."""
        return {"committed": self.ended["committed"], "aborted": self.ended["aborted"], "fenced": self.fenced}

    def _new_round(self, group: str, at: float) -> list[Event]:
        tl = self.offsets.log.groups.get(group)
        newest = tl.rounds[-1].generation if tl is not None and tl.rounds else None
        if tl is None or not tl.rounds or self.last_round.get(group, -1) == newest:
            return []
        self.last_round[group] = newest
        finished = self.offsets.timelines([group]).get(group)
        r = next((x for x in reversed(finished.rounds) if x.generation == newest), None) if finished else None
        if r is None:
            return []
        return [Event(ROUND, at, group, {
            "kind": finished.kind, "generation": r.generation, "start": r.start, "protocol": r.protocol,
            "leader": r.leader, "members": [{"memberId": m.member_id, "clientId": m.client_id,
                                             "instanceId": m.instance_id} for m in r.members],
            "why": r.triggers})]

    def wanted(self, group: str) -> bool:
        return self.only is None or group in self.only

    def on_description(self, description: GroupDescription, at: float) -> list[Event]:
        """A group as described now; an event when that differs from what was described before."""
        if not self.wanted(description.group):
            return []
        before = self.described.get(description.group)
        if description.members is None and before is not None and before.members is not None \
                and before.state == description.state:
            description.members = before.members  # listed again, not described: what it had still stands
        self.described[description.group] = description
        if description.same_as(before):
            return []
        events = [Event(STATE, at, description.group, description.to_json())]
        if description.error:
            self.problems += 1
            events.append(Event(PROBLEM, at, description.group, {"problem": description.error}))
        return events

    def on_connection(self, up: bool, at: float, address: str, reason: str = "") -> list[Event]:
        """The cluster answering (``up``) or not; an event only when that changes."""
        if self.connected == up:
            return []
        self.connected = up
        detail: dict[str, Any] = {"bootstrap": address}
        if up:
            detail["resumeFrom"] = self.positions_json()
        else:
            detail["reason"] = reason
        return [Event(CONNECTED if up else DISCONNECTED, at, detail=detail)]

    def positions_json(self) -> dict[str, dict[str, int]]:
        """The next offset of each partition read, per topic: ``{"__consumer_offsets": {"0": 12}, ...}``."""
        out: dict[str, dict[str, int]] = {}
        for (topic, partition), offset in sorted(self.positions.items()):
            out.setdefault(topic, {})[str(partition)] = offset
        return out

    def group_names(self) -> list[str]:
        """Every group seen, in the log or described."""
        seen = set(self.offsets.log.groups) | set(self.commits) | set(self.described)
        return sorted(g for g in seen if self.wanted(g))

    def timelines(self) -> dict[str, GroupTimeline]:
        """Each group's timeline as it stands (a finished copy)."""
        return self.offsets.timelines(None if self.only is None else sorted(self.only))

    def groups(self, timelines: dict[str, GroupTimeline] | None = None) -> list[GroupView]:
        """What the live view shows of each group."""
        timelines = self.timelines() if timelines is None else timelines
        standings = self.standings(timelines)
        views = []
        for name in self.group_names():
            tl, described = timelines.get(name), self.described.get(name)
            last = tl.rounds[-1] if tl is not None and tl.rounds else None
            generation = last.generation if last is not None else None
            if described is not None and described.epoch is not None and (
                    generation is None or described.epoch > generation):
                generation = described.epoch
            members = len(described.members) if described is not None and described.members is not None else (
                len(last.members) if last is not None else None)
            kind = described.kind if described is not None else (tl.kind if tl is not None else "?")
            rate = self.rates[name].per_second(self.clock) if name in self.rates else 0.0
            views.append(GroupView(name, kind, described.state if described is not None else None, generation,
                                   members, last, self.commits[name], rate, described, standings.get(name)))
        return views

    def state_size(self) -> int:
        """How many things the core holds (keys, rounds, members, counts): what must not grow with records."""
        log = self.offsets.log
        rounds = sum(len(tl.rounds) for tl in log.groups.values())
        members = sum(len(r.members) for tl in log.groups.values() for r in tl.rounds)
        return (len(self.positions) + len(self.records) + len(self.commits) + len(self.last_round)
                + sum(len(r.seconds) for r in self.rates.values()) + len(self.described)
                + len(log.groups) + rounds + members + len(log.counts) + len(log.in_force) + len(log.pending)
                + sum(len(c) for c in log.commits.values()) + sum(len(o) for o in log.latest.values())
                + len(log.errors) + len(log.topic_ids) + len(self.offsets.last)
                + sum(len(e.rounds) + len(e.members) for e in log.epoch_groups.values())
                + len(self.catchup.positions) + len(self.catchup.ends) + len(self.catchup.samples)
                + self.standing.size()
                + self._transactions_size())

    def _transactions_size(self) -> int:
        """What the transaction history holds: ids, their transactions (and partitions), epochs, fencings."""
        ids = self.transactions.ids.values()
        return (len(self.transactions.ids) + len(self.transactions.open_partitions) + len(self.ended)
                + len(self.hanging) + sum(len(i.epochs) + len(i.fenced) + len(i.older) for i in ids)
                + sum(1 + len(t.partitions) for i in ids for t in i.transactions))


def _past_timeout(txn: Transaction, open_ms: int | None) -> bool:
    return open_ms is not None and txn.timeout_ms > 0 and open_ms > txn.timeout_ms


def hanging_finding(txn: Transaction, open_ms: int | None) -> Finding:
    """A transaction open past its timeout as the report's ``hanging-transaction`` finding (critical: the
    coordinator should have aborted it), seen live."""
    partitions = sorted(f"{t}-{p}" for t, p in txn.partitions)
    seconds = (open_ms or 0) / 1000
    age = f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    return Finding(
        "hanging-transaction", "critical", f"transactional id {txn.transactional_id}",
        f"the transaction of producer {txn.producer_id} epoch {txn.producer_epoch} is {txn.last_state}, open {age}"
        f", past its transaction.timeout.ms of {txn.timeout_ms / 1000:g} s: the coordinator aborts it at its next "
        "check (transaction.abort.timed.out.transaction.cleanup.interval.ms, 10 s by default), and one open long "
        "after that is one it cannot abort; until it ends it holds back the last stable offset of "
        f"{', '.join(partitions) or 'its partitions'}, so read_committed consumers of them wait",
        txn.start_ms / 1000 if txn.start_ms is not None and txn.start_ms >= 0 else None,
        evidence=[txn.evidence] if txn.evidence else [], transactional_id=txn.transactional_id,
        partitions=partitions)
