"""Rebalance rounds from ``__consumer_offsets``: the generations and epochs the coordinator recorded.

Unlike the analyze job's group facts (the newest record of each key, what compaction keeps), the timeline
reads every record in log order: each GroupMetadata record is a generation the coordinator completed
(members, leader, protocol, each member's subscription and assignment), each ConsumerGroupMetadata record a
KIP-848 group epoch, with the members' current and target assignments recorded after it; offset commits
are counted against the generation in force when they were written; offsets committed in a transaction
(``sendOffsetsToTransaction``) count only when their producer's COMMIT marker follows them in the partition,
as a consumer of the group would see them, and those of an aborted transaction never count. A record that does
not decode is reported with its position and skipped; the rest of the log still counts.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
from collections.abc import Iterable, Mapping
from typing import Any

from kafka_meta.analysis import timeline as model
from kafka_meta.analysis.causes import Cause, ClientMemory
from kafka_meta.analysis.epoch_log import BY_RECORD_TYPE, EpochGroupLog, name_topics
from kafka_meta.analysis.groups import GroupFacts, _classic
from kafka_meta.analysis.moves import moves
from kafka_meta.analysis.streams_rounds import streams_account
from kafka_meta.errors import KafkaMetaError
from kafka_meta.log import holds_offsets
from kafka_meta.metadata_log import topic_names as cluster_topic_names
from kafka_meta.offsets.reader import decode_record
from kafka_meta.offsets.records import ControlRecord, CoordinatorRecord

METADATA_TOPIC = "__cluster_metadata"
HEX = re.compile(r"^(?:[0-9a-fA-F]{2})*$")
COMMITS = (0, 1)
GROUP_METADATA = 2
PARTITION_METADATA = 4


def _bytes(value: Any) -> bytes | None:
    """Record bytes as Spark's Kafka source (bytes) or JSON Lines (hex or base64 text) carry them."""
    if value is None or isinstance(value, bytes | bytearray | memoryview):
        return None if value is None else bytes(value)
    if isinstance(value, str):
        if HEX.match(value):
            return bytes.fromhex(value)
        try:
            return base64.b64decode(value, validate=True)
        except binascii.Error as e:
            raise ValueError("neither hex nor base64") from e
    raise ValueError(f"bytes expected, not {type(value).__name__}")


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


def _classic_member(nest: Any, meta: Any) -> model.MemberRound:
    m = model.MemberRound(nest.member_id, client_id=getattr(meta, "client_id", None),
                          client=getattr(meta, "client_host", None),
                          instance_id=getattr(meta, "group_instance_id", None))
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

    def __init__(self) -> None:
        self.groups: dict[str, model.GroupTimeline] = {}
        self.topic_ids: dict[str, str] = {}  # topic id -> name, from offset commits (ids are cluster-wide)
        self.epoch_groups: dict[str, EpochGroupLog] = {}  # KIP-848, share and streams groups
        # transactional offset commits waiting for their producer's marker, per partition and producer
        self.pending: dict[tuple[Any, int], list[tuple[CoordinatorRecord, model.Evidence]]] = {}
        self.errors: list[str] = []
        # group -> generation -> its round: a months-long log holds a group's every generation, and looking
        # each new record's generation up in the list of rounds would make reading it quadratic
        self.by_generation: dict[str, dict[int | None, model.Round]] = {}

    def settle(self, partition: tuple[Any, ...], producer: int, committed: bool) -> None:
        """A transaction marker: the offsets its producer committed in the transaction count (COMMIT) or
        never happened (ABORT: a consumer reading the group's offsets never sees them)."""
        for record, where in self.pending.pop((partition, producer), []):
            if committed:
                self.read(record, where.ts, where)
            elif record.group_id:
                self.timeline(record.group_id).aborted_commits += 1

    def timeline(self, group: str, kind: str | None = None) -> model.GroupTimeline:
        tl = self.groups.setdefault(group, model.GroupTimeline(group))
        if kind:
            tl.kind = kind
        return tl

    def last_round(self, group: str) -> model.Round | None:
        tl = self.groups.get(group)
        return tl.rounds[-1] if tl and tl.rounds else None

    def read(self, record: CoordinatorRecord, ts: float | None, where: model.Evidence) -> None:
        group, number, value = record.group_id, record.record_type, record.value
        if not group:
            return
        if number in COMMITS:
            if value is not None:
                topic_id = getattr(value, "topic_id", None)
                if topic_id is not None and getattr(record.key, "topic", None):
                    self.topic_ids[str(topic_id)] = record.key.topic
                current = self.last_round(group)
                commit = model.Commit(group, ts, generation=current.generation if current else None, partitions=1,
                                      evidence=where)
                topic, partition = getattr(record.key, "topic", None), getattr(record.key, "partition", None)
                if topic is not None and partition is not None and getattr(value, "offset", None) is not None:
                    commit.offsets[f"{topic}-{partition}"] = value.offset
                self.timeline(group).commits.append(commit)
                if current is not None:
                    current.commits += 1
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


def build_generations(rows: Iterable[Mapping[str, Any]], file: str | None = None,
                      topic_names: Mapping[str, str] | None = None,
                      ) -> tuple[dict[str, model.GroupTimeline], list[str]]:
    """Timelines from ``__consumer_offsets`` rows in log order (``key``, ``value`` and, when known,
    ``timestamp`` in ms, ``offset``, ``partition``, ``_file``/``_line`` where it was read), and the records that could
    not be read."""
    log = _Log()
    log.topic_ids.update(topic_names or {})
    metadata: list[Mapping[str, Any]] = []
    for n, row in enumerate(rows, 1):
        topic = row.get("topic")
        if topic == METADATA_TOPIC:
            metadata.append(row)  # the cluster's TopicRecords name the topics some records give by id only
            continue
        if isinstance(topic, str) and not holds_offsets(topic):
            continue  # another internal topic of the same log directory (__transaction_state, ...)
        where = model.Evidence(file=row.get("_file", file), offset=row.get("offset"),
                         line=row.get("_line", n if row.get("offset") is None else None),
                         ts=_seconds(row.get("timestamp")))
        try:
            key, value = _bytes(row.get("key")), _bytes(row.get("value"))
            if key is None:
                continue
            record = decode_record(key, value, control=bool(row.get("control")))
        except (KafkaMetaError, ValueError) as e:
            log.errors.append(f"{where}: {e}")
            continue
        producer = row.get("producerId")
        partition = (row.get("topic"), row.get("partition"), row.get("_file", file))
        if isinstance(record, ControlRecord):
            if isinstance(producer, int) and producer >= 0:
                log.settle(partition, producer, committed=record.marker == "COMMIT")
        elif isinstance(record, CoordinatorRecord):
            if isinstance(producer, int) and producer >= 0 and record.record_type in COMMITS:
                log.pending.setdefault((partition, producer), []).append((record, where))
            else:
                log.read(record, where.ts, where)
    for name, tl in log.groups.items():
        tl.rounds = model.sort_rounds(tl.rounds)
        if name in log.epoch_groups:
            log.epoch_groups[name].finish()
        else:
            _triggers(tl.rounds)
    log.topic_ids.update(cluster_topic_names(metadata))
    name_topics([log.groups[name] for name in log.epoch_groups], log.topic_ids)
    return dict(sorted(log.groups.items())), log.errors


def _triggers(rounds: list[model.Round]) -> None:
    """What changed from one recorded generation to the next. The log does not say why (no LeaveGroup
    reasons, no heartbeats): a member gone is "left or expired", except a static member, which never sends
    LeaveGroup on close, so its going is always its session timing out. Clients coming back are told from new
    ones as in captures (kafka_meta.analysis.causes.ClientMemory)."""
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
                kind = "expiry" if static else "departure"
                causes.append(Cause(kind, member_id, f"static member {old.instance_id}: no LeaveGroup on close, "  # type: ignore[union-attr]
                                    "so its session timed out" if static else ""))
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


def add_commit_counts(groups: dict[str, model.GroupTimeline], counts: Iterable[tuple[str, float | None, int]]) -> None:
    """Commits counted elsewhere (Spark counts them per group and second): each count goes to the
    generation in force at its time, the group's last one when the time is unknown."""
    for group, ts, n in counts:
        if not group:
            continue
        tl = groups.setdefault(group, model.GroupTimeline(group, kind="offsets only"))
        timed = [r for r in tl.rounds if r.start is not None and (ts is None or r.start <= ts)]
        current = timed[-1] if timed else (tl.rounds[-1] if tl.rounds and ts is None else None)
        tl.commits.append(model.Commit(group, ts, generation=current.generation if current else None, partitions=n))
        if current is not None:
            current.commits += n
