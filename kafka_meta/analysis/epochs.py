"""Rounds of the server-side protocols from captured heartbeats: KIP-848 consumer groups (ConsumerGroupHeartbeat),
and in the same way KIP-932 share groups and KIP-1071 streams groups: group epochs and member reconciliation.

Under the consumer rebalance protocol there is no JoinGroup/SyncGroup barrier: the coordinator bumps the
group epoch, gives each member a new target assignment in its heartbeat responses, and each member
converges on its own (it revokes what it must, reports what it owns in ``topicPartitions``, then gets the
rest). So a round here is one group epoch: it starts with the first response carrying that epoch and is
finished when every member has reported owning exactly its target at that epoch ("reconciled").
A member heartbeating with epoch -1 (or -2, static) is leaving; epoch 0 is joining.

Each member leaves once per membership, as the coordinator removes it once: a leave heartbeat, or its session
timing out (fenced), writes the member's tombstones and bumps the group epoch by one. So a member told gone in
one round is not told gone again in the rounds after it, and the last members' leaves, answered while nobody is
left to hear the new epoch, empty the group at the epoch after the last one seen.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka_meta.analysis import exchange_rows
from kafka_meta.analysis.causes import Cause, ClientMemory
from kafka_meta.analysis.codes import error_name
from kafka_meta.analysis.timeline import Evidence, GroupTimeline, MemberRound, Round, TopicPartition
from kafka_meta.protocol.shapes import ExchangeRow

LEAVING = (-1, -2)


def topic_names(exchanges: list[ExchangeRow]) -> dict[str, str]:
    """Topic id -> name, from the Metadata responses of the same capture (KIP-848 names topics by id)."""
    names: dict[str, str] = {}
    for ex in exchanges:
        if ex["apiName"] != "Metadata":
            continue
        topics = (ex["response"] or {}).get("topics")
        for t in topics if isinstance(topics, list) else []:
            if isinstance(t, Mapping) and t.get("topicId") is not None and t.get("name"):
                names[_topic_id(t["topicId"])] = t["name"]
    return names


def topic_id(value: Any) -> str:
    """A topic id in one form, ``str(uuid)``, whether given as its 16 bytes, a uuid, Kafka's URL-safe base64
    (as Kafka's JSON and the Spark columns print it) or already as text."""
    if isinstance(value, bytes | bytearray) and len(value) == 16:
        return str(uuid.UUID(bytes=bytes(value)))
    if isinstance(value, str) and len(value) == 22:
        try:
            return str(uuid.UUID(bytes=base64.urlsafe_b64decode(value + "==")))
        except (ValueError, TypeError):
            return value
    return str(value)


_topic_id = topic_id


def topic_label(topic: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """A topic of a request body by its name, or by its id where newer versions give only that (OffsetCommit
    v10, TxnOffsetCommit v6): the name the capture's Metadata gave it, else the id's first 8 characters."""
    if topic.get("name"):
        return str(topic["name"])
    ident = topic_id(topic.get("topicId"))
    return names.get(ident, ident[:8])


def _tps(groups: Any, names: Mapping[str, str]) -> set[TopicPartition] | None:
    if groups is None:
        return None
    out: set[TopicPartition] = set()
    for g in groups:
        topic_id = _topic_id(g.get("topicId"))
        topic = names.get(topic_id, topic_id[:8])
        out.update((topic, int(p)) for p in g.get("partitions") or [])
    return out


def _tasks(groups: Any) -> set[TopicPartition] | None:
    """A streams group's active tasks, (subtopology id, partition)."""
    if groups is None:
        return None
    return {(str(g.get("subtopologyId")), int(p)) for g in groups for p in g.get("partitions") or []}


@dataclass(frozen=True)
class Protocol:
    """How one server-side group protocol's heartbeat says what a member owns and what it is to get."""

    kind: str  # the timeline's kind of group
    protocol_type: str
    owned: Callable[[Mapping[str, Any], Mapping[str, str]], set[TopicPartition] | None]
    target: Callable[[Mapping[str, Any], Mapping[str, str]], set[TopicPartition] | None]


def _assignment(resp: Mapping[str, Any], names: Mapping[str, str]) -> set[TopicPartition] | None:
    return _tps((resp.get("assignment") or {}).get("topicPartitions"), names) if resp.get("assignment") else None


PROTOCOLS = {
    # KIP-848: the member reports what it owns; the response carries its target when it changes
    "ConsumerGroupHeartbeat": Protocol("consumer (KIP-848)", "consumer",
                                       lambda req, names: _tps(req.get("topicPartitions"), names), _assignment),
    # KIP-932: partitions are shared, nothing is revoked first: a member owns what it is given, at once
    "ShareGroupHeartbeat": Protocol("share (KIP-932)", "share", lambda req, names: None, _assignment),
    # KIP-1071: tasks instead of partitions; the member reports its active tasks, the response its new ones
    "StreamsGroupHeartbeat": Protocol("streams (KIP-1071)", "streams",
                                      lambda req, names: _tasks(req.get("activeTasks")),
                                      lambda resp, names: _tasks(resp.get("activeTasks"))),
}


def _handovers(m: MemberRound, held: set[TopicPartition], owned: set[TopicPartition] | None,
               target: set[TopicPartition] | None, ex: ExchangeRow) -> None:
    """When partitions left and reached the member, one heartbeat at a time: a partition it held and no longer
    reports owning it gave up when it sent that heartbeat; one its response hands it (the coordinator hands a
    partition over only once its previous owner released it) is its own from that answer."""
    if owned is not None and isinstance(ex["ts"], int | float):
        for tp in held - owned:
            m.released_at.setdefault(tp, float(ex["ts"]))
    answered = ex["responseTs"]
    if isinstance(answered, int | float):
        for tp in (target or set()) - held:
            m.gained_at.setdefault(tp, float(answered))
        for tp in (owned or set()) - held:  # reported owned with no answer seen handing it over
            m.gained_at.setdefault(tp, float(ex["ts"]))


class EpochBuilder:
    """The rounds of one group with a server-side protocol, fed its heartbeats in time order."""

    def __init__(self, timeline: GroupTimeline, names: Mapping[str, str],
                 protocol: Protocol = PROTOCOLS["ConsumerGroupHeartbeat"]) -> None:
        self.timeline = timeline
        self.names = names
        self.protocol = protocol
        self.rounds: dict[int, Round] = {}
        self.epoch = -1
        self.events: list[tuple[str, str, str]] = []  # (kind, member, detail) since the current round began
        self.joined: set[str] = set()
        self.pending: dict[str, dict[str, set[TopicPartition]]] = {}  # changes that belong to the next epoch
        self.pending_since: float | None = None
        self.last_seen: dict[str, float] = {}  # member -> its last heartbeat
        self.clients: dict[str, str | None] = {}  # member -> ClientMemory key
        self.memory = ClientMemory()
        self.left_at: float | None = None  # the newest leave heartbeat's answer

    def current(self) -> Round | None:
        return self.rounds.get(self.epoch)

    def heartbeat(self, ex: ExchangeRow) -> None:
        req, resp = ex["request"] or {}, ex["response"] or {}
        member_id = resp.get("memberId") or req.get("memberId") or ex["memberId"] or ""
        sent = req.get("memberEpoch")
        where = exchange_rows.evidence(ex)
        if isinstance(ex["ts"], int | float):
            self.last_seen[member_id] = ex["ts"]
        if sent in LEAVING:
            self.events.append(("leave", member_id, "heartbeat with epoch -1" if sent == -1 else
                                "static member leaving (epoch -2)"))
            self.memory.departure(self.clients.get(member_id), "leave")
            self.left_at = ex["responseTs"] if ex["responseTs"] is not None else ex["ts"]
            return
        if sent == 0 and member_id not in self.joined:
            self.joined.add(member_id)
            key = ClientMemory.key(req.get("instanceId"), ex["clientId"], ex["client"])
            self.clients[member_id] = key
            kind = self.memory.arrival(key)
            self.memory.arrived(key)
            self.events.append((kind, member_id, f"client {ex['clientId']}" if ex["clientId"] else ""))
        r = self.current()
        code = resp.get("errorCode") or ex["errorCode"]
        if code:
            if r is not None:
                r.error_codes[code] += 1
                m = r.member(member_id)
                if m is not None:
                    m.errors.append(f"heartbeat answered {error_name(code)}")
            return
        epoch = resp.get("memberEpoch")
        if epoch is None or epoch <= 0 or ex["responseTs"] is None:
            return  # epoch 0: the coordinator has not taken the member in yet
        if epoch > self.epoch:
            r = self.new_round(epoch, ex, where)
        if r is None:
            return
        m = r.member(member_id)
        if m is None:
            m = MemberRound(member_id, client_id=ex["clientId"], client=ex["client"], joined_at=ex["ts"],
                            evidence=where)
            r.members.append(m)
        owned = self.protocol.owned(req, self.names)
        target = self.protocol.target(resp, self.names)
        if owned is None and target is not None and self.protocol.protocol_type == "share":
            owned = target
        held = m.owned or set()
        _handovers(m, held, owned, target, ex)
        if m.reconciled and epoch == m.epoch and ((target is not None and not target >= held)
                                                  or (owned is not None and not owned >= held)):
            # a settled member told to give up partitions before its epoch moves: the next round has begun
            # (partitions given to it at the same epoch are the current round finishing: others released them)
            pending = self.pending.setdefault(member_id, {})
            pending.update({k: v for k, v in (("target", target), ("owned", owned)) if v is not None})
            self.pending_since = self.pending_since or ex["ts"]
            return
        m.epoch = epoch
        interval = req.get("rebalanceTimeoutMs")  # sent when it changes: a Java member's max.poll.interval.ms
        if isinstance(interval, int) and interval > 0:
            m.rebalance_timeout_ms = interval
        topics = req.get("subscribedTopicNames")
        if topics is not None:
            if m.topics and sorted(m.topics) != sorted(topics):
                self.events.append(("subscription changed", member_id, ", ".join(topics)))
            m.topics = list(topics)
        if owned is not None:
            m.owned = m.assigned = owned
        if target is not None:
            m.target = target
        m.reconciled = m.target is not None and m.owned == m.target and m.epoch == self.epoch
        if m.reconciled and m.synced_at is None:
            m.synced_at = ex["responseTs"]

    def new_round(self, epoch: int, ex: ExchangeRow, where: Evidence) -> Round:
        previous = self.current()
        start = min(t for t in (ex["ts"], self.pending_since) if t is not None) if ex["ts"] else None
        r = Round(self.timeline.group, "capture", generation=epoch, start=start,
                  protocol_type=self.protocol.protocol_type,
                  protocol=(ex["request"] or {}).get("serverAssignor") or (previous.protocol if previous else None)
                  or "server-side", evidence=where)
        if previous is not None:  # members carry over, with what they own, until they reconcile anew
            gone = {m for kind, m, _ in self.events if kind == "leave"}
            for pm in previous.members:
                if pm.member_id not in gone:
                    later = self.pending.get(pm.member_id, {})
                    owned = later.get("owned", pm.owned)
                    r.members.append(MemberRound(pm.member_id, client_id=pm.client_id, client=pm.client,
                                                 topics=pm.topics, owned=owned, assigned=owned,
                                                 target=later.get("target", pm.target), epoch=pm.epoch,
                                                 reconciled=False, evidence=pm.evidence,
                                                 rebalance_timeout_ms=pm.rebalance_timeout_ms))
        self.pending, self.pending_since = {}, None
        r.causes = [Cause(kind, member, detail) for kind, member, detail in self.events]
        if not r.causes:
            r.causes = [Cause("first" if previous is None else "epoch")]
        r.triggers = [str(c) for c in r.causes]
        r.trigger_member = self.events[0][1] if self.events else None
        self.events = []
        self.rounds[epoch] = r
        self.epoch = epoch
        return r

    def expire(self, rounds: list[Round]) -> None:
        """A member carried into an epoch that never heartbeats again was fenced by the coordinator when its
        session timed out (a crashed or killed client sends no leave heartbeat): that is why the epoch moved.
        It was fenced once, at the first such epoch; the later rounds it was carried into lose it silently."""
        fenced: set[str] = set()
        for r in rounds:
            gone = [m for m in r.members if self.last_seen.get(m.member_id, float("inf")) < (r.start or 0.0)]
            told = [m for m in gone if m.member_id not in fenced]
            for m in gone:
                r.members.remove(m)
            for m in told:
                fenced.add(m.member_id)
                self.memory.departure(self.clients.get(m.member_id), "expiry")
                r.causes = [c for c in r.causes if c.kind != "epoch"] + [
                    Cause("expiry", m.member_id, "no heartbeat since: its session timed out")]
            if told:
                r.triggers = [str(c) for c in r.causes]
                r.trigger_member = r.trigger_member or told[0].member_id

    def emptied(self) -> None:
        """The last members' leave heartbeats, answered after the last epoch seen: nobody is left to be told the
        group's next epoch, but the coordinator bumped it all the same (one epoch per member it removes, the
        group is then empty): the round of that epoch, with no members. Only when every member of the last
        round left and that round had settled (its epoch is the group's), so the epoch is known."""
        last = self.current()
        left = [(kind, member, detail) for kind, member, detail in self.events if kind == "leave"]
        if last is None or not left or len(left) < len(self.events) or not last.complete or self.left_at is None:
            return  # nobody left since, someone joined, the last round unsettled
        if {m.member_id for m in last.members} - {member for _, member, _ in left}:
            return  # someone stayed: the next epoch's round would have members the capture never heard of
        epoch = self.epoch + len(left)
        r = Round(self.timeline.group, "capture", generation=epoch, start=self.left_at, end=self.left_at,
                  protocol_type=self.protocol.protocol_type, protocol=last.protocol, evidence=last.evidence)
        r.causes = [Cause("emptied", None, ", ".join(str(Cause(*e)) for e in left))]
        r.triggers = [str(c) for c in r.causes]
        r.trigger_member = left[0][1]
        self.events = []
        self.rounds[epoch] = r
        self.epoch = epoch

    def finish(self) -> list[Round]:
        rounds = [self.rounds[e] for e in sorted(self.rounds)]
        self.expire(rounds)
        self.settle(rounds)
        self.emptied()
        return [self.rounds[e] for e in sorted(self.rounds)]

    def settle(self, rounds: list[Round]) -> None:
        """What each member gave up and got in each round, and whether the round finished."""
        for i, r in enumerate(rounds):
            before = {m.member_id: m for m in rounds[i - 1].members} if i else {}
            for m in r.members:
                had = (before[m.member_id].owned if m.member_id in before else None) or set()
                if m.target is not None:
                    m.revoked, m.added = had - m.target, m.target - had
                    r.moved |= m.revoked | m.added
            r.complete = bool(r.members) and all(m.reconciled for m in r.members)
            if r.complete:
                r.end = max(m.synced_at or r.start or 0.0 for m in r.members)
