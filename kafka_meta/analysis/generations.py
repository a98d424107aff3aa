"""Rebalance rounds from ``__consumer_offsets``: the generations and epochs the coordinator recorded.

Unlike the analyze job's group facts (the newest record of each key, what compaction keeps), the timeline
reads every record in log order: each GroupMetadata record is a generation the coordinator completed
(members, leader, protocol, each member's subscription and assignment), each ConsumerGroupMetadata record a
KIP-848 group epoch, with the members' current and target assignments recorded after it. A record that does
not decode is reported with its position and skipped; the rest of the log still counts.

Log order is the one order both faces of the project (``kafka-meta report`` here, ``kafka-meta analyze`` on
Spark) can agree on, so it is defined once (:func:`log_order`): sources one after another in the order they
were read (the inputs as given), each source's records by topic, partition and offset, and in the order they
were read where there is no offset. Never by timestamp: magic 0 records have none (-1), and within one
partition the offsets are the coordinator's own order of writing.

An offset commit counts for the generation (or epoch) in force where it was written: the last GroupMetadata
(or group epoch) record of its group before it in the same partition of the same source, which is what the
coordinator held when it appended the commit. Offsets committed in a transaction (``sendOffsetsToTransaction``)
are in force when their producer's COMMIT marker is written, so they count for the generation in force at the
marker; those of an aborted transaction never count. The commits are then counted per (group, generation,
second) and those counts given to the rounds by :func:`add_commit_counts`, the one rule both faces use (the
Spark job computes the same counts on its executors instead of collecting the commits).

The reading is incremental (:class:`OffsetsTimeline`: one row at a time, the timelines asked for whenever), so
``kafka-meta watch`` feeds the same code from a live consumer; :func:`build_generations` is a loop over it.
"""

from __future__ import annotations

import copy
import datetime as dt
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol

from kafka_meta.analysis import timeline as model
from kafka_meta.analysis.causes import Cause, ClientMemory
from kafka_meta.analysis.epoch_log import BY_RECORD_TYPE, FAMILIES, EpochGroupLog, name_topics
from kafka_meta.analysis.groups import GroupFacts, _classic
from kafka_meta.analysis.moves import moves
from kafka_meta.analysis.streams_rounds import streams_account
from kafka_meta.errors import KafkaMetaError
from kafka_meta.log.rows import OffsetsRow
from kafka_meta.log.topics import METADATA_TOPIC, holds_offsets
from kafka_meta.metadata_log import topic_names as cluster_topic_names
from kafka_meta.offsets.commit_view import CommitView, read_commit, view_of
from kafka_meta.offsets.reader import decode_record
from kafka_meta.offsets.records import ControlRecord, CoordinatorRecord, OffsetsRecord
from kafka_meta.payload_text import text_bytes

COMMITS = (0, 1)
GROUP_METADATA = 2
PARTITION_METADATA = 4
# the records the timeline reads besides commits: classic generations (2), the KIP-848 topic names of Kafka 4.0
# (4), and the epochs and member records of consumer, share and streams groups
TIMELINE_RECORD_TYPES = (GROUP_METADATA, PARTITION_METADATA, *sorted(BY_RECORD_TYPE))
# the records that set the generation in force: a classic generation, or a group epoch
GENERATION_RECORD_TYPES = (GROUP_METADATA, *sorted(f.metadata for f in FAMILIES))

Scope = tuple[Any, Any, Any]  # (source, topic, partition): one partition's log, as one source holds it
CommitCount = tuple[str, int | None, float | None, int]  # group, generation in force, second, commits


def record_bytes(value: Any) -> bytes | None:
    """Record bytes as Spark's Kafka source (bytes) or JSON Lines (hex or base64 text) carry them."""
    if value is None or isinstance(value, bytes | bytearray | memoryview):
        return None if value is None else bytes(value)
    if isinstance(value, str):
        return text_bytes(value)  # the readers' one rule (kafka_meta.payload_text); its error is a ValueError
    raise ValueError(f"bytes expected, not {type(value).__name__}")


def holds_offsets_row(row: Mapping[str, Any]) -> bool:
    """Whether a row can hold a ``__consumer_offsets`` record: not the cluster's metadata log, nor another
    internal topic of the same log directory (``__transaction_state``, ...); rows without a topic can."""
    topic = row.get("topic")
    return holds_offsets(topic if isinstance(topic, str) else None)


def read_offsets_row(row: Mapping[str, Any], nested: bool = True, counting: bool = False,
                     ) -> tuple[bytes, bytes | None, OffsetsRecord | CommitView] | None:
    """The key, value and decoded record of a row of ``__consumer_offsets`` (None: it has no key); raises
    :class:`~kafka_meta.errors.KafkaMetaError` or ``ValueError`` for bytes that do not read. ``nested``:
    also decode the members' metadata inside group records. ``counting``: an offset commit the plain readers
    are sure of is a :class:`~kafka_meta.offsets.commit_view.CommitView` (what counting commits needs, read
    several times faster than the typed record)."""
    key, value = record_bytes(row.get("key")), record_bytes(row.get("value"))
    if key is None:
        return None
    control = bool(row.get("control"))
    if counting and not control:
        view = read_commit(key, value)
        if view is not None:
            return key, value, view
    return key, value, decode_record(key, value, control=control, nested=nested)


def _seconds(ts: Any) -> float | None:
    """Epoch seconds from Kafka's milliseconds or Spark's timestamp."""
    if ts is None:
        return None
    if isinstance(ts, dt.datetime):
        return ts.timestamp()
    if not isinstance(ts, int | float) or isinstance(ts, bool):
        return None  # not a time: the record still counts, without one
    seconds = float(ts) / 1000
    return seconds if 0 <= seconds < model.LAST_SECOND else None  # -1: no timestamp (magic 0 messages)


def _tps(groups: Any, names: Mapping[str, str] | None = None) -> set[model.TopicPartition]:
    out: set[model.TopicPartition] = set()
    for g in groups or []:
        topic = getattr(g, "topic", None)
        if topic is None:  # KIP-848 records name topics by id
            topic_id = str(getattr(g, "topic_id", ""))
            topic = (names or {}).get(topic_id, topic_id[:8])
        out.update((topic, int(p)) for p in getattr(g, "partitions", None) or [])
    return out


def _positive(value: Any) -> int | None:
    """A recorded timeout in ms; -1 (a v0 record has no rebalance timeout) is none."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _classic_member(nest: Any, meta: Any) -> model.MemberRound:
    m = model.MemberRound(nest.member_id, client_id=getattr(meta, "client_id", None),
                          client=getattr(meta, "client_host", None),
                          instance_id=getattr(meta, "group_instance_id", None),
                          session_timeout_ms=_positive(getattr(meta, "session_timeout", None)),
                          rebalance_timeout_ms=_positive(getattr(meta, "rebalance_timeout", None)))
    sub, asg = nest.subscription, nest.assignment
    if sub is not None:
        m.subscription_version, m.topics = sub.version, list(sub.topics or [])
        if sub.version >= 1:
            m.owned = _tps(sub.owned_partitions)
    if asg is not None:
        m.assignment_version, m.assigned = asg.version, _tps(asg.assigned_partitions)
    sub_data, asg_data = nest.subscription_user_data, nest.assignment_user_data
    if sub_data is not None:
        kind = type(sub_data).kafka_type
        m.user_data = f"{kind} v{sub_data.version}"
        if kind in ("SubscriptionInfo", "VersionProbe"):
            m.streams_version = sub_data.version
            m.streams_latest = getattr(sub_data, "latest_supported_version", None)
    if asg_data is not None and type(asg_data).kafka_type == "AssignmentInfo":
        m.streams_assignment_version = asg_data.version
        common = getattr(asg_data, "commonly_supported_version", None)
        m.streams_common = common if common is not None and common >= 0 else None
    m.errors = list(nest.errors)
    return m


class _Log:
    """Reads records in log order, keeping each group's timeline and what the KIP-848 records said last."""

    def __init__(self, keep_commits: bool = True, seconds_without_generation: bool = False) -> None:
        self.keep_commits = keep_commits  # else only counted, per generation, and each partition's latest offset
        # counted: a commit with no generation in force keeps its second (the rounds get it by time, as the
        # Spark job's counts do); a long watch keeps none, so offsets-only groups cost nothing per second
        self.seconds_without_generation = seconds_without_generation
        self.latest: dict[str, dict[str, int]] = {}  # not keeping commits: group -> "topic-partition" -> offset
        self.groups: dict[str, model.GroupTimeline] = {}
        self.topic_ids: dict[str, str] = {}  # topic id -> name, from offset commits (ids are cluster-wide)
        self.id_texts: dict[Any, str] = {}  # a topic id as its text, made once per id
        self.epoch_groups: dict[str, EpochGroupLog] = {}  # KIP-848, share and streams groups
        # transactional offset commits waiting for their producer's marker, per partition and producer
        self.pending: dict[tuple[Scope, int], list[tuple[CoordinatorRecord | CommitView, model.Evidence]]] = {}
        self.errors: list[str] = []
        # (partition, group) -> the generation or epoch its last record there set (None: the group was deleted)
        self.in_force: dict[tuple[Scope, str], int | None] = {}
        self.commits: dict[str, list[model.Commit]] = {}  # per group, in log order
        self.counts: Counter[tuple[str, int | None, float | None]] = Counter()  # (group, generation, second)
        self.aborted: Counter[str] = Counter()
        # (group, second, outcome) -> transactional offset commits decided then: the report's marks
        self.marks: Counter[tuple[str, float | None, str]] = Counter()
        # group -> generation -> its round: a months-long log holds a group's every generation, and looking
        # each new record's generation up in the list of rounds would make reading it quadratic
        self.by_generation: dict[str, dict[int | None, model.Round]] = {}

    def touched(self) -> set[str]:
        """Every group this log holds anything of (to tell whether two logs read disjoint groups)."""
        groups = set(self.groups) | set(self.epoch_groups) | set(self.latest) | set(self.aborted)
        groups |= {k[0] for k in self.counts} | {k[0] for k in self.marks} | {k[1] for k in self.in_force}
        groups |= {record.group_id for entries in self.pending.values() for record, _ in entries}
        return groups

    def merge(self, later: _Log) -> None:
        """The state of a log fed the rows after this one's, of other groups and partitions, added to it: what
        reading all of them in turn would hold (the caller checks the groups are disjoint)."""
        for name in ("latest", "groups", "epoch_groups", "pending", "in_force", "commits", "by_generation"):
            getattr(self, name).update(getattr(later, name))
        self.topic_ids.update(later.topic_ids)
        self.counts.update(later.counts)
        self.aborted.update(later.aborted)
        self.marks.update(later.marks)
        self.errors.extend(later.errors)

    def settle(self, scope: Scope, producer: int, committed: bool) -> None:
        """A transaction marker: the offsets its producer committed in the transaction count (COMMIT), for
        the generation in force now, when the marker puts them in force; or never happened (ABORT: a consumer
        reading the group's offsets never sees them)."""
        for record, where in self.pending.pop((scope, producer), []):
            if committed:
                self.commit(record, where, scope)
            elif record.group_id:
                self.aborted[record.group_id] += 1
            if record.group_id:
                self.marks[(record.group_id, second_of(where.ts), "committed" if committed else "aborted")] += 1

    def undecided(self) -> tuple[Counter[tuple[str, float | None, str]], dict[str, dict[str, int]]]:
        """The transactional commits still waiting for a marker where the log ends: their marks (``open``) and,
        per group, the offsets they would commit (pending, never in force yet)."""
        marks: Counter[tuple[str, float | None, str]] = Counter()
        pending: dict[str, dict[str, int]] = {}
        for entries in self.pending.values():
            for record, where in entries:
                group = record.group_id
                if not group or record.value is None:
                    continue
                marks[(group, second_of(where.ts), "open")] += 1
                topic, partition = getattr(record.key, "topic", None), getattr(record.key, "partition", None)
                offset = getattr(record.value, "offset", None)
                if topic is not None and partition is not None and offset is not None:
                    pending.setdefault(group, {})[f"{topic}-{partition}"] = offset
        return marks, pending

    def set_in_force(self, group: str, record: CoordinatorRecord, scope: Scope) -> None:
        """A generation or group epoch record: the one its group's commits in this partition count for from
        here on (none after a tombstone: the group was deleted)."""
        name = "generation" if record.record_type == GROUP_METADATA else "epoch"
        self.in_force[(scope, group)] = getattr(record.value, name, None)

    def commit(self, record: CoordinatorRecord, where: model.Evidence, scope: Scope) -> None:
        """An offset commit in force: kept with its offset, and counted for the generation in force where it
        was written (the rounds get the counts at the end, by the rule the Spark job's counts follow too)."""
        if not self.keep_commits:
            self.count(record, where.ts, scope)
            return
        read = self._in_force(record, scope)
        if read is None:
            return
        group, generation, place, offset = read
        commit = model.Commit(group, where.ts, generation=generation, partitions=1, evidence=where)
        if place is not None:
            commit.offsets[place] = offset
        self.commits.setdefault(group, []).append(commit)
        self.counts[(group, generation, second_of(where.ts))] += 1

    def count(self, record: CoordinatorRecord | CommitView, ts: float | None, scope: Scope) -> None:
        """An offset commit in force, counted rather than kept (each partition's latest offset is): what a
        whole log directory and a long watch can afford (no :class:`~kafka_meta.analysis.timeline.Evidence`
        is made for it, the commonest record of all)."""
        read = self._in_force(record, scope)
        if read is None:
            return
        group, generation, place, offset = read
        if place is not None:
            self.latest.setdefault(group, {})[place] = offset
        second = second_of(ts) if generation is None and self.seconds_without_generation else None
        self.counts[(group, generation, second)] += 1

    def _in_force(self, record: CoordinatorRecord | CommitView, scope: Scope,
                  ) -> tuple[str, int | None, str | None, Any] | None:
        """What an offset commit in force says, kept or counted: its group, the generation in force where it was
        written, its ``topic-partition`` and offset (None where the record names no partition or offset);
        None for a commit of no group, or a tombstone. Its topic id, where it has one, names its topic."""
        group, value = record.group_id, record.value
        if not group or value is None:
            return None
        self._name_topic(record)
        topic, partition = getattr(record.key, "topic", None), getattr(record.key, "partition", None)
        offset = getattr(value, "offset", None) if topic is not None and partition is not None else None
        place = f"{topic}-{partition}" if offset is not None else None
        return group, self.in_force.get((scope, group)), place, offset

    def _name_topic(self, record: CoordinatorRecord | CommitView) -> None:
        """A commit naming its topic beside the topic's id: the id names it (ids are cluster-wide)."""
        topic_id = getattr(record.value, "topic_id", None)
        topic = getattr(record.key, "topic", None)
        if topic_id is not None and topic:
            text = self.id_texts.get(topic_id)
            if text is None:
                text = self.id_texts[topic_id] = str(topic_id)
            self.topic_ids[text] = topic

    def timeline(self, group: str, kind: str | None = None) -> model.GroupTimeline:
        tl = self.groups.setdefault(group, model.GroupTimeline(group))
        if kind:
            tl.kind = kind
        return tl

    def read(self, record: CoordinatorRecord, ts: float | None, where: model.Evidence) -> None:
        """A group record (not a commit: see :meth:`commit`)."""
        group, number, value = record.group_id, record.record_type, record.value
        if not group:
            return
        if number in BY_RECORD_TYPE:
            family = BY_RECORD_TYPE[number]
            log = self.epoch_groups.get(group)
            if log is None:
                log = self.epoch_groups[group] = EpochGroupLog(self.timeline(group), family)
            log.read(number, record.key, value, ts, where)
            return
        if value is None:
            return
        if number == GROUP_METADATA:
            self.generation(group, record, ts, where)
        elif number == PARTITION_METADATA:  # before Kafka 4.1: the names of the topics a KIP-848 group uses
            self.topic_ids.update({str(t.topic_id): t.topic_name for t in getattr(value, "topics", None) or []})

    def generation(self, group: str, record: CoordinatorRecord, ts: float | None, where: model.Evidence) -> None:
        value, tl = record.value, self.timeline(group)
        last = tl.rounds[-1] if tl.rounds else None
        facts = GroupFacts(group, "classic")
        _classic(facts, record)
        metas = {m.member_id: m for m in value.members}
        r = model.Round(group, "offsets", generation=value.generation, start=ts,
                  protocol_type=value.protocol_type or None, protocol=value.protocol, leader=value.leader,
                  members=[_classic_member(n, metas.get(n.member_id)) for n in record.members or []]
                  or [model.MemberRound(m.member_id, client_id=m.client_id, client=m.client_host,
                                        instance_id=m.group_instance_id) for m in value.members],
                  explanation=facts.explanation, evidence=where)
        if last is not None and last.generation is not None and value.generation > last.generation + 1:
            r.triggers.append(f"generations {last.generation + 1}-{value.generation - 1} were not recorded here")
        if value.protocol == "stream":
            tl.kind = "streams"
        self.add(tl, r)

    def add(self, tl: model.GroupTimeline, r: model.Round) -> None:
        """A generation written again (a member's metadata changed, a compaction copy) is one round: the
        newest content, from the first time it was seen."""
        known = self.by_generation.setdefault(tl.group, {})
        old = known.get(r.generation)
        known[r.generation] = r
        if old is None:
            tl.rounds.append(r)
            return
        if tl.rounds[-1] is old:  # the usual case: the generation being written again is the newest
            tl.rounds.pop()
        else:
            del tl.rounds[next(i for i, x in enumerate(tl.rounds) if x is old)]
        if old.start is not None and (r.start is None or old.start < r.start):
            r.start = old.start
        r.commits += old.commits
        r.triggers = r.triggers or old.triggers
        tl.rounds.append(r)


class RecordObserver(Protocol):
    """Whatever else wants each record the timeline reads (``kafka-meta report``'s counts,
    :class:`~kafka_meta.analysis.inventory.RecordInventory`), so a row is decoded once for both."""

    def record(self, row: OffsetsRow, position: int, record: OffsetsRecord | CommitView, key: bytes,
               value: bytes | None) -> None: ...

    def unreadable(self, row: OffsetsRow, error: Exception) -> None: ...


class OffsetsTimeline:
    """The timeline of ``__consumer_offsets`` read one row at a time: :meth:`feed` a row, ask :meth:`timelines`
    whenever (a finished copy; the state read so far is left as it is), or :meth:`finish` once at the end.

    Rows are fed in :func:`log_order` (per partition: by offset), which a consumer of the live topic hands over
    partition by partition. Two ways to keep what was read:

    * the batch way (``kafka-meta report``, the default): every commit with its offset and position, every
      error, every round, so the report can list them all;
    * ``counted`` (``kafka-meta report`` on a broker's whole log directory): every round, but the commits only
      counted per (group, generation in force), and per second where no generation is in force (as the Spark
      job counts them), with each partition's latest offset; the first ``keep_errors`` errors and a count of
      the rest. What it keeps follows the groups, their rounds and their keys, not the records;
    * ``bounded``: what a long ``kafka-meta watch`` can afford, state that follows the number of groups and
      not the number of records: commits only as counts per generation in force and each partition's latest
      offset, the newest ``keep_rounds`` rounds per group, the newest ``keep_errors`` errors.

    ``committed`` says the rows come from a ``read_committed`` consumer: it has already dropped what aborted
    transactions wrote and never hands over a transaction marker, so a transactional commit counts when read
    (held for a marker, it would wait forever). The generation it counts for is then the one in force where it
    was written, not at its marker."""

    def __init__(self, file: str | None = None, topic_names: Mapping[str, str] | None = None, *,
                 bounded: bool = False, counted: bool = False, committed: bool = False, keep_rounds: int = 100,
                 keep_errors: int = 100, observer: RecordObserver | None = None) -> None:
        self.file = file
        self.observer = observer
        self.bounded, self.counted, self.committed = bounded, counted, committed
        self.keep_rounds, self.keep_errors = keep_rounds, keep_errors
        self.log = _Log(keep_commits=not (bounded or counted), seconds_without_generation=counted)
        self.log.topic_ids.update(topic_names or {})
        self.metadata: list[OffsetsRow] = []
        self.cluster_names: dict[str, str] = {}  # counted: the metadata log's topic names, folded as read
        # (partition, key) -> the value last read: a byte-identical rewrite says nothing new, and the Spark job
        # drops the same ones on its executors (kafka_meta.spark.timeline._changes_only)
        self.last: dict[tuple[Scope, bytes], bytes | None] = {}
        self.errors_dropped = 0
        self.read = 0  # rows read, the position of the next one (for rows without an offset)

    def feed(self, row: OffsetsRow, n: int | None = None) -> OffsetsRecord | CommitView | None:
        """Read one row (``n``: its position as read, 1 on; by default the count of rows fed so far); returns
        the record it held, or None (another topic, no key, unreadable: then an error is kept)."""
        self.read += 1
        n = self.read if n is None else n
        log = self.log
        topic = row.get("topic")
        if topic == METADATA_TOPIC:
            if self.bounded:  # the cluster's TopicRecords, folded in now rather than kept
                log.topic_ids.update(cluster_topic_names([row]))
            elif self.counted:  # folded now, and still above the names the commits give (as at the end)
                self.cluster_names.update(cluster_topic_names([row]))
            else:
                self.metadata.append(row)  # they name the topics some records give by id only
            return None
        if not holds_offsets_row(row):
            return None  # another internal topic of the same log directory (__transaction_state, ...)
        try:
            read = read_offsets_row(row, counting=self.counted or self.bounded)
        except (KafkaMetaError, ValueError) as e:
            self.error(f"{self._where(row, n)}: {e}")
            if self.observer is not None:
                self.observer.unreadable(row, e)
            return None
        if read is None:
            return None
        key, value, record = read
        if self.observer is not None:
            self.observer.record(row, n, record, key, value)
        producer = row.get("producerId")
        transactional = producer if isinstance(producer, int) and producer >= 0 and not self.committed else None
        scope = scope_of(row, self.file)
        if type(record) is CommitView and transactional is None:  # the commonest record: counted at once
            log.count(record, _seconds(row.get("timestamp")), scope)
            return record
        where = self._where(row, n)
        if isinstance(record, ControlRecord):
            if transactional is not None:
                log.settle(scope, transactional, committed=record.marker == "COMMIT")
        elif isinstance(record, CoordinatorRecord | CommitView):
            self.coordinator_record(record, key, value, where, scope, transactional)
        return record

    def merge(self, later: OffsetsTimeline) -> None:
        """A timeline fed the rows that follow this one's (in log order, in another process) added to this one,
        exactly as if this one had read them too; :class:`NotMergeable` when both read something of the same
        group or partition, where the order of reading would matter (then read them in one timeline)."""
        shared = self.log.touched() & later.log.touched()
        if shared or set(self.last) & set(later.last):
            raise NotMergeable(f"both read group(s) {', '.join(sorted(shared)[:3]) or '(a partition)'}")
        self.log.merge(later.log)
        kept = self.log.errors
        if self.counted and len(kept) > self.keep_errors:
            self.errors_dropped += len(kept) - self.keep_errors
            del kept[self.keep_errors:]
        self.errors_dropped += later.errors_dropped
        self.metadata.extend(later.metadata)
        self.cluster_names.update(later.cluster_names)
        self.last.update(later.last)
        self.read += later.read

    def _where(self, row: OffsetsRow, n: int) -> model.Evidence:
        """Where a row was read, as the report cites it."""
        return model.Evidence(file=row.get("_file", self.file), offset=row.get("offset"),
                              line=row.get("_line", n if row.get("offset") is None else None),
                              ts=_seconds(row.get("timestamp")))

    def coordinator_record(self, record: CoordinatorRecord | CommitView, key: bytes, value: bytes | None,
                           where: model.Evidence, scope: Scope, transactional: int | None) -> None:
        log, number = self.log, record.record_type
        if number in COMMITS:
            if record.value is None:
                return  # a tombstone: the offset expired or the group was deleted, nothing committed
            if transactional is not None:  # counted: the commit's few fields, not the typed record, wait
                waiting = view_of(record) if self.counted and isinstance(record, CoordinatorRecord) else record
                log.pending.setdefault((scope, transactional), []).append((waiting, where))
            else:
                log.commit(record, where, scope)
            return
        if number in GENERATION_RECORD_TYPES and record.group_id:
            log.set_in_force(record.group_id, record, scope)
        if number in TIMELINE_RECORD_TYPES:
            seen = self.last.get((scope, key), _UNSEEN)
            if self.bounded and value is None:
                # a tombstone rewritten reads as nothing either way: forgetting the key keeps the map to the
                # keys alive (members come and go under new ids)
                self.last.pop((scope, key), None)
            else:
                self.last[(scope, key)] = value
            if seen is not _UNSEEN and seen == value:
                return
        log.read(record, where.ts, where)
        if self.bounded and record.group_id:
            self.trim(record.group_id)

    def error(self, text: str) -> None:
        errors = self.log.errors
        if self.counted and len(errors) >= self.keep_errors:
            self.errors_dropped += 1  # the first ones kept: the report says how many more there were
            return
        errors.append(text)
        if self.bounded and len(errors) > self.keep_errors:
            del errors[0]
            self.errors_dropped += 1

    def trim(self, group: str) -> None:
        """Bounded: the group's oldest rounds beyond ``keep_rounds`` go, and the commits counted for them stay
        counted for the group alone."""
        log = self.log
        tl = log.groups.get(group)
        while tl is not None and len(tl.rounds) > self.keep_rounds:
            old = tl.rounds.pop(0)
            tl.earlier_rounds += 1
            log.by_generation.get(group, {}).pop(old.generation, None)
            epochs = log.epoch_groups.get(group)
            if epochs is not None and old.generation is not None:
                epochs.rounds.pop(old.generation, None)
            for counted in [k for k in log.counts if k[0] == group and k[1] == old.generation]:
                log.counts[(group, None, None)] += log.counts.pop(counted)

    def timelines(self, groups: Iterable[str] | None = None) -> dict[str, model.GroupTimeline]:
        """The timelines as they stand (of ``groups`` only, when given), each a finished copy: reading goes
        on unchanged."""
        log, chosen = self.log, None if groups is None else set(groups)

        def wanted(group: str) -> bool:
            return chosen is None or group in chosen

        timelines, epochs = copy.deepcopy(({g: tl for g, tl in log.groups.items() if wanted(g)},
                                           {g: e for g, e in log.epoch_groups.items() if wanted(g)}))
        topic_ids = {**log.topic_ids, **self.cluster_names, **cluster_topic_names(self.metadata)}
        groups = _finished(timelines, epochs, topic_ids,
                           Counter({k: n for k, n in log.counts.items() if wanted(k[0])}),
                           Counter({g: n for g, n in log.aborted.items() if wanted(g)}),
                           {g: list(c) for g, c in log.commits.items() if wanted(g)} if log.keep_commits else None,
                           {g: dict(o) for g, o in log.latest.items() if wanted(g)})
        _add_marks(groups, log)
        return groups

    def finish(self) -> tuple[dict[str, model.GroupTimeline], list[str]]:
        """The timelines and the records that could not be read; the state read so far becomes them (call
        once, at the end)."""
        log = self.log
        log.topic_ids.update({**self.cluster_names, **cluster_topic_names(self.metadata)})
        groups = _finished(log.groups, log.epoch_groups, log.topic_ids, log.counts, log.aborted,
                           log.commits if log.keep_commits else None, log.latest)
        _add_marks(groups, log)
        if self.counted and self.errors_dropped:
            log.errors.append(f"{self.errors_dropped:,} more record(s) could not be read; the first "
                              f"{self.keep_errors:,} are listed")
        return groups, log.errors


def _add_marks(groups: dict[str, model.GroupTimeline], log: _Log) -> None:
    """Each group's transactional commits, decided and still open, as marks per second; and the offsets its
    open transactions would commit, beside (never among) the committed ones."""
    open_marks, pending = log.undecided()
    for (group, second, outcome), n in (log.marks + open_marks).items():
        tl = groups.get(group)
        if tl is not None:
            tl.transaction_marks[(second, outcome)] += n
    for group, offsets in pending.items():
        tl = groups.get(group)
        if tl is not None:
            tl.pending_commits.update(offsets)


def _finished(groups: dict[str, model.GroupTimeline], epoch_groups: dict[str, EpochGroupLog],
              topic_ids: dict[str, str], counts: Counter[tuple[str, int | None, float | None]],
              aborted: Counter[str], commits: dict[str, list[model.Commit]] | None,
              latest: Mapping[str, Mapping[str, int]]) -> dict[str, model.GroupTimeline]:
    """The rounds in order, why each started, the topics named and the commits counted in."""
    for name, tl in groups.items():
        tl.rounds = model.sort_rounds(tl.rounds)
        if name in epoch_groups:
            epoch_groups[name].finish()
        else:
            _triggers(tl.rounds)
    name_topics([groups[name] for name in epoch_groups if name in groups], topic_ids)
    add_commit_counts(groups, [(g, generation, second, n) for (g, generation, second), n in counts.items()],
                      aborted, commits)
    for group, offsets in latest.items():  # bounded: the offsets in force, on the group's last commit
        tl = groups.get(group)
        if tl is not None and tl.commits:
            tl.commits[-1].offsets.update(offsets)
    return dict(sorted(groups.items()))


def build_generations(rows: Iterable[OffsetsRow], file: str | None = None,
                      topic_names: Mapping[str, str] | None = None, ordered: bool = False,
                      observer: RecordObserver | None = None) -> tuple[dict[str, model.GroupTimeline], list[str]]:
    """Timelines from ``__consumer_offsets`` rows (``key``, ``value`` and, when known, ``timestamp`` in ms,
    ``topic``, ``partition``, ``offset``, ``control``, ``producerId``, ``_source`` the input it came from,
    ``_file``/``_line`` where it was read), and the records that could not be read.

    The rows are read in :func:`log_order`; ``ordered`` says they already are (the Spark job streams them so,
    and holding them all to sort them again would undo that). ``observer`` is handed each record as it is
    read (each row's position as read with it)."""
    timeline = OffsetsTimeline(file, topic_names, observer=observer)
    for n, row in (enumerate(rows, 1) if ordered else log_order(rows)):
        timeline.feed(row, n)
    return timeline.finish()


_UNSEEN = object()


class NotMergeable(KafkaMetaError):
    """Two timelines read in parallel that cannot be added up exactly: read their rows in one."""


def scope_of(row: OffsetsRow, file: str | None = None) -> Scope:
    """The partition log a row belongs to: its input (``_source``; else the file it was read from), topic and
    partition. The generation in force is a partition's own: the same group in another source (a dump beside
    the log directory it was taken from) or another partition (a copy) is another log."""
    return row.get("_source", row.get("_file", file)), row.get("topic"), row.get("partition")


def _ascending(value: Any) -> tuple[int, Any]:
    """A sort key as Spark's ascending order has it: nulls first, then numbers, then text."""
    if value is None:
        return (0, 0)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (1, value)
    return (2, str(value))


def sort_key(row: OffsetsRow) -> tuple[tuple[int, Any], tuple[int, Any], tuple[int, Any]]:
    """Where a row stands in its source's log order: topic, partition, offset (rows of equal keys: as read)."""
    return _ascending(row.get("topic")), _ascending(row.get("partition")), _ascending(row.get("offset"))


def log_order(rows: Iterable[OffsetsRow]) -> Iterator[tuple[int, OffsetsRow]]:
    """The rows in log order, each with its position as read (1 on): sources in the order they were first
    read (the inputs' order), each source's rows by topic, partition and offset, and where those are equal or
    missing in the order they were read. The Spark job orders the same way (the position there is its
    ``monotonically_increasing_id`` over the rows as read), so both faces read the same story."""
    ranks: dict[Any, int] = {}
    keyed = []
    for n, row in enumerate(rows, 1):
        source = scope_of(row)[0]
        rank = ranks.setdefault(source, len(ranks))
        keyed.append(((rank, *sort_key(row), n), row))
    keyed.sort(key=lambda pair: pair[0])
    return ((k[-1], row) for k, row in keyed)


EXPIRY_SLACK_S = 1.0  # a generation's record follows its members' last JoinGroup answers by the leader's assignor


def _gone_too_soon_to_expire(old: model.MemberRound | None, previous: model.Round, r: model.Round) -> str:
    """Why a member gone from ``r`` must have left rather than expired, or "" when the log cannot tell. Every
    member of a classic generation joined it, so the coordinator heard from it when that generation formed,
    just before its record; it expires no sooner than its session timeout after that. A member gone from a
    generation recorded sooner left: a LeaveGroup (a static member closed with leave-group, Kafka 4.1's
    CloseOptions, or removed by an admin; any dynamic member closing)."""
    timeout = old.session_timeout_ms if old is not None else None
    if not timeout or previous.start is None or r.start is None or previous.source != "offsets":
        return ""
    gone_after = r.start - previous.start
    if gone_after >= timeout / 1000 - EXPIRY_SLACK_S:
        return ""
    who = f"static member {old.instance_id}: " if old is not None and old.instance_id else ""
    return (f"{who}gone {gone_after:.1f} s after generation {previous.generation}, before its session timeout "
            f"({timeout} ms) could expire it")


def _triggers(rounds: list[model.Round]) -> None:
    """What changed from one recorded generation to the next. The log does not say why (no LeaveGroup
    reasons, no heartbeats): a member gone is "left or expired", except a static member, which by default sends
    no LeaveGroup on close, so its going is its session timing out; and except a member gone sooner than its
    session timeout could expire it, which left. Clients coming back are told from new ones as in captures
    (kafka_meta.analysis.causes.ClientMemory)."""
    memory = ClientMemory()
    for i, r in enumerate(rounds):
        previous = rounds[i - 1] if i else None
        moves(r, previous)
        causes: list[Cause] = []
        if previous is None:
            for m in r.members:
                memory.arrived(_client_key(m))
            causes.append(Cause("first", ", ".join(m.member_id for m in r.members) or None,
                                "" if r.members else "the group's first record: no members yet"))
        else:
            before, now = {m.member_id for m in previous.members}, {m.member_id for m in r.members}
            earlier = {_client_key(m): m.member_id for m in previous.members if m.member_id not in now}
            restarted = set()
            for member_id in sorted(now - before):
                m = r.member(member_id)
                key = _client_key(m)  # type: ignore[arg-type]
                kind = memory.arrival(key, present=key is not None and key in earlier)
                if kind == "restart" and key in earlier:
                    restarted.add(earlier[key])
                memory.arrived(key)
                causes.append(Cause(kind, member_id, f"static member {m.instance_id}" if m.instance_id else  # type: ignore[union-attr]
                                    f"client {m.client_id}" if m.client_id else ""))  # type: ignore[union-attr]
            for member_id in sorted(before - now):
                old = previous.member(member_id)
                if member_id in restarted:
                    causes.append(Cause("restart", member_id, "its old member id, replaced by its restarted client"))
                    continue
                static = old is not None and old.instance_id
                early = _gone_too_soon_to_expire(old, previous, r)
                kind = "leave" if early else "expiry" if static else "departure"
                causes.append(Cause(kind, member_id, early or (
                    f"static member {old.instance_id}: no LeaveGroup on close, so its session timed out"  # type: ignore[union-attr]
                    if static else "")))
                memory.departure(_client_key(old) if old is not None else None, kind)
            for m in r.members:
                old = previous.member(m.member_id)
                change = None if old is None else m.metadata_change(old)
                if change:
                    causes.append(Cause("metadata", m.member_id, f"was {old.versions}, now {m.versions}"))  # type: ignore[union-attr]
            if r.phase == "assign":
                causes.append(Cause("follow-up", None, f"the partitions generation {previous.generation} "
                                    "revoked are handed out"))
            if previous.rejoin_expected and now == before:
                causes = [c for c in causes if c.kind != "metadata"] + [
                    Cause("probing", None, f"the members switch Kafka Streams metadata versions after generation "
                          f"{previous.generation}'s version probing and rejoin")]
            if not r.members and before:
                causes = [Cause("emptied", None, "no members: " + ", ".join(str(c) for c in causes))]
            if not causes:
                causes.append(Cause("no-change", None, "same members: a member rejoined"))
        if r.protocol == "stream":
            r.rejoin_expected = streams_account(r)[1]
        r.causes = [*r.causes, *causes]
        r.triggers = [*r.triggers, *(str(c) for c in causes)]
        r.trigger_member = next((c.member for c in causes if c.member and c.kind != "first"), None)


def _client_key(m: model.MemberRound) -> str | None:
    return ClientMemory.key(m.instance_id, m.client_id, m.client)


def second_of(ts: float | None) -> float | None:
    """The second a commit is counted in (the Spark job's ``floor(ms / 1000)``)."""
    return None if ts is None else float(math.floor(ts))


def add_commit_counts(groups: dict[str, model.GroupTimeline], counts: Iterable[CommitCount],
                      aborted: Mapping[str, int] | None = None,
                      commits: Mapping[str, list[model.Commit]] | None = None) -> None:
    """Commits counted per (group, generation in force, second), given to the rounds; the one rule both faces
    use (``build_generations`` counts the commits it reads, the Spark job counts them on its executors).

    A count goes to the round of its generation. Only a count with no generation (commits written before any
    generation record of their group in their partition, or after the group was deleted) falls back to time:
    the latest round started at or before its second (rounds of the same group read from other sources, whose
    clock may be another); with no time either, nothing says which round it was, and it counts for the group
    alone.
    ``commits`` are the commits themselves, when they were read one by one (with their offsets and where
    each was read); otherwise each count stands as one commit of ``n`` partitions at its second, which is what
    the per-second commit charts draw. ``aborted`` counts per group the offsets of aborted transactions.
    A group known by its commits alone is an "offsets only" group."""
    def timeline(group: str) -> model.GroupTimeline:
        return groups.setdefault(group, model.GroupTimeline(group, kind="offsets only"))

    for group, kept in sorted((commits or {}).items()):
        timeline(group).commits.extend(kept)
    for group, n in sorted((aborted or {}).items()):
        if group:
            timeline(group).aborted_commits += n
    by_generation: dict[str, dict[int, model.Round]] = {}
    for group, generation, second, n in sorted(counts, key=lambda c: (c[0] or "", _ascending(c[1]),
                                                                      _ascending(c[2]))):
        if not group:
            continue
        tl = timeline(group)
        if commits is None:
            tl.commits.append(model.Commit(group, second, generation=generation, partitions=n))
        if group not in by_generation:
            by_generation[group] = {r.generation: r for r in tl.rounds if r.generation is not None}
        r = by_generation[group].get(generation) if generation is not None else None
        if r is None and second is not None:
            started = [x for x in tl.rounds if x.start is not None and x.start <= second]
            r = started[-1] if started else None
        if r is not None:
            r.commits += n
