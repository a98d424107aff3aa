"""Rebalance rounds from captured exchanges (the capture reader's request/response pairs).

A classic round is the set of JoinGroup exchanges whose responses carry one generation, and the SyncGroup
exchanges of that generation: it starts with the first JoinGroup request and ends with the last SyncGroup
response, which is when the last member could resume work. JoinGroup calls the coordinator refused
(MEMBER_ID_REQUIRED, REBALANCE_IN_PROGRESS...) belong to the round they were trying to reach; a JoinGroup
never answered opens a round that never completed. Each round is then compared with the one before it to
say what set it off and which partitions moved.

Exchanges are the dicts of the capture layer's contract (``Exchange.to_dict()``: camelCase names, nested
member metadata decoded in place, with ``_type``/``_version``); member metadata still in bytes is decoded
here, so rows from any reader work.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import kafka_meta as km
from kafka_meta.analysis.codes import REBALANCE_IN_PROGRESS, error_name
from kafka_meta.analysis.epochs import EpochBuilder, topic_names
from kafka_meta.analysis.timeline import (
    LAST_SECOND,
    Commit,
    Evidence,
    GroupTimeline,
    MemberRound,
    Round,
    TopicPartition,
    sort_rounds,
)

COOPERATIVE = ("cooperative-sticky",)
JOIN, SYNC, HEARTBEAT, LEAVE, COMMIT = "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit"
CONSUMER_HEARTBEAT = "ConsumerGroupHeartbeat"  # KIP-848: see kafka_meta.analysis.epochs
GROUP_APIS = (JOIN, SYNC, HEARTBEAT, LEAVE, COMMIT, CONSUMER_HEARTBEAT)


def as_dict(exchange: Any) -> dict[str, Any]:
    """An exchange as its contract dict, whether given as a dict, an ``Exchange`` or a pydantic model."""
    if isinstance(exchange, Mapping):
        return dict(exchange)
    for method in ("to_dict", "model_dump"):
        if hasattr(exchange, method):
            return dict(getattr(exchange, method)())
    raise TypeError(f"not an exchange: {type(exchange).__name__}")


def _evidence(ex: Mapping[str, Any]) -> Evidence:
    source = ex.get("source") or {}
    return Evidence(file=source.get("file"), frame=source.get("frame"), ts=ex.get("ts"))


def _nested(value: Any, type_name: str) -> dict[str, Any] | None:
    """Member metadata as a dict: decoded by the reader already, or decoded here from its bytes."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, bytes | bytearray) and value:
        try:
            msg = km.decode(type_name, bytes(value))
        except km.KafkaMetaError as e:
            return {"_type": type_name, "_error": str(e), "_raw": bytes(value)}
        return msg.model_dump(by_alias=True) | {"_type": type_name, "_version": msg.version}
    return None


def _partitions(groups: Any) -> set[TopicPartition]:
    out: set[TopicPartition] = set()
    for g in groups or []:
        if isinstance(g, Mapping):
            out.update((str(g.get("topic")), int(p)) for p in g.get("partitions") or [])
    return out


def _user_data(member: MemberRound, user_data: Any, assignment: bool) -> None:
    if isinstance(user_data, Mapping):
        kind, version = user_data.get("_type"), user_data.get("_version")
        if user_data.get("_error"):
            member.errors.append(f"{kind or 'user data'}: {user_data['_error']}")
            return
        if kind == "SubscriptionInfo" and not assignment:
            member.streams_version, member.streams_latest = version, user_data.get("latestSupportedVersion")
        elif kind == "AssignmentInfo" and assignment:
            member.streams_assignment_version = version
            member.streams_common = user_data.get("commonlySupportedVersion")
        if kind and not assignment:
            member.user_data = f"{kind} v{version}"


def _subscription(member: MemberRound, metadata: Any) -> None:
    sub = _nested(metadata, "ConsumerProtocolSubscription")
    if sub is None:
        return
    if sub.get("_error"):
        member.errors.append(f"subscription: {sub['_error']}")
        return
    member.subscription_version = sub.get("_version")
    member.topics = list(sub.get("topics") or [])
    if member.subscription_version is not None and member.subscription_version >= 1:
        member.owned = _partitions(sub.get("ownedPartitions"))
    _user_data(member, sub.get("userData"), assignment=False)


def _assignment(member: MemberRound, value: Any) -> None:
    asg = _nested(value, "ConsumerProtocolAssignment")
    if asg is None:
        if value is not None:
            member.assigned = set()  # an empty assignment: nothing handed out
        return
    if asg.get("_error"):
        member.errors.append(f"assignment: {asg['_error']}")
        return
    member.assigned = _partitions(asg.get("assignedPartitions"))
    member.assignment_version = asg.get("_version")
    _user_data(member, asg.get("userData"), assignment=True)


class _GroupBuilder:
    """Rounds of one group, built from its exchanges in time order."""

    def __init__(self, group: str) -> None:
        self.timeline = GroupTimeline(group)
        self.by_generation: dict[int, Round] = {}
        self.refused: list[dict[str, Any]] = []  # JoinGroup calls without a generation
        self.heartbeats: list[dict[str, Any]] = []
        self.leaves: list[dict[str, Any]] = []

    def round(self, generation: int, ex: Mapping[str, Any]) -> Round:
        if generation not in self.by_generation:
            self.by_generation[generation] = Round(self.timeline.group, "capture", generation=generation,
                                                   evidence=_evidence(ex))
        return self.by_generation[generation]

    @staticmethod
    def member(r: Round, member_id: str) -> MemberRound:
        found = r.member(member_id)
        if found is None:
            found = MemberRound(member_id)
            r.members.append(found)
        return found

    def join(self, ex: dict[str, Any]) -> None:
        req, resp = ex.get("request") or {}, ex.get("response") or {}
        generation = resp.get("generationId")
        if ex.get("responseTs") is None or resp.get("errorCode") or generation is None or generation < 0:
            self.refused.append(ex)
            return
        r = self.round(generation, ex)
        r.start = ex["ts"] if r.start is None else min(r.start, ex["ts"])
        r.protocol = resp.get("protocolName") or r.protocol
        r.protocol_type = resp.get("protocolType") or req.get("protocolType") or r.protocol_type
        r.leader = resp.get("leader") or r.leader
        if r.leader:
            self.member(r, r.leader)  # the coordinator names it: a member even if its own join was not seen
        m = self.member(r, resp.get("memberId") or ex.get("memberId") or "")
        m.client_id, m.client, m.joined_at, m.evidence = ex.get("clientId"), ex.get("client"), ex["ts"], _evidence(ex)
        m.protocols = [p.get("name") for p in req.get("protocols") or []]
        chosen = next((p for p in req.get("protocols") or [] if p.get("name") == r.protocol), None)
        if chosen is not None:
            _subscription(m, chosen.get("metadata"))
        for other in resp.get("members") or []:  # the leader's view: every member's metadata
            om = self.member(r, other.get("memberId") or "")
            if om.subscription_version is None and not om.errors:
                _subscription(om, other.get("metadata"))

    def sync(self, ex: dict[str, Any]) -> None:
        req, resp = ex.get("request") or {}, ex.get("response") or {}
        generation = req.get("generationId", ex.get("generationId"))
        if generation is None:
            return
        r = self.round(generation, ex)
        m = self.member(r, req.get("memberId") or ex.get("memberId") or "")
        if ex.get("responseTs") is not None:
            m.synced_at = ex["responseTs"]
            r.end = m.synced_at if r.end is None else max(r.end, m.synced_at)
        code = ex.get("errorCode") or resp.get("errorCode")
        if code:
            r.error_codes[code] += 1
            m.errors.append(f"SyncGroup answered {error_name(code)}")
        for a in req.get("assignments") or []:  # the leader's SyncGroup: everyone's assignment
            _assignment(self.member(r, a.get("memberId") or ""), a.get("assignment"))
        if m.assigned is None and "assignment" in resp:
            _assignment(m, resp.get("assignment"))

    def place_refused(self) -> None:
        """Refused or unanswered joins go to the round they were reaching; the rest form unfinished rounds."""
        rounds = sort_rounds(list(self.by_generation.values()))
        spans = []  # each round from its start until it ended, or until the next one began
        for i, r in enumerate(rounds):
            following = rounds[i + 1].start if i + 1 < len(rounds) else None
            until = r.end if r.end is not None else following
            spans.append((r.start, float("inf") if until is None else until, r))
        for ex in self.refused:
            resp = ex.get("response") or {}
            ts = ex["ts"]
            target = next((r for start, until, r in spans if start is not None and start <= ts <= until), None) or \
                next((r for start, _, r in spans if start is not None and start > ts), None)
            if target is None:
                target = Round(self.timeline.group, "capture", start=ex["ts"], complete=False,
                               protocol_type=(ex.get("request") or {}).get("protocolType"), evidence=_evidence(ex))
                rounds.append(target)
            target.start = ex["ts"] if target.start is None else min(target.start, ex["ts"])
            m = self.member(target, ex.get("memberId") or resp.get("memberId") or "")
            m.client_id, m.client = m.client_id or ex.get("clientId"), m.client or ex.get("client")
            if m.joined_at is None or ex["ts"] < m.joined_at:
                m.joined_at, m.evidence = ex["ts"], _evidence(ex)
            if resp.get("errorCode"):
                target.error_codes[resp["errorCode"]] += 1
            if ex.get("responseTs") is None:
                m.errors.append("JoinGroup never answered")
                if m.protocols == []:
                    m.protocols = [p.get("name") for p in (ex.get("request") or {}).get("protocols") or []]
                    chosen = next(iter((ex.get("request") or {}).get("protocols") or []), None)
                    if chosen is not None:
                        _subscription(m, chosen.get("metadata"))
        self.timeline.rounds = sort_rounds(rounds)

    def finish(self, commits: list[Commit]) -> GroupTimeline:
        self.place_refused()
        previous: Round | None = None
        for r in self.timeline.rounds:
            r.complete = r.complete and bool(r.members) and all(m.synced_at is not None for m in r.members)
            if r.protocol_type is None and r.members:
                r.protocol_type = "consumer" if any(m.subscription_version is not None for m in r.members) else None
            _moves(r, previous)
            self._triggers(r, previous)
            if r.protocol == "stream":
                r.explanation = streams_account(r)
            previous = r
        self.timeline.commits = commits
        if any(r.protocol == "stream" for r in self.timeline.rounds):
            self.timeline.kind = "streams"
        return self.timeline

    def _triggers(self, r: Round, previous: Round | None) -> None:
        since = float("-inf") if previous is None else (previous.end or previous.start or float("-inf"))
        until = r.end if r.end is not None else (r.start or 0.0)
        for hb in self.heartbeats:
            if since < hb["ts"] <= until and hb.get("errorCode"):
                r.heartbeat_errors[hb["errorCode"]] += 1
        joiners = sorted((m for m in r.members if m.joined_at is not None), key=lambda m: m.joined_at or 0.0)
        first = joiners[0].member_id if joiners else None
        if previous is None:
            r.triggers.append(f"first round seen: {', '.join(_who(r, m.member_id) for m in joiners)} joined")
            r.trigger_member = first
            return
        before, now = {m.member_id for m in previous.members}, {m.member_id for m in r.members}
        culprit: str | None = None
        new = sorted(now - before, key=lambda i: r.member(i).joined_at or 0.0)  # type: ignore[union-attr]
        if new:
            r.triggers.append(f"member joined: {', '.join(_who(r, i) for i in new)}")
            culprit = new[0]
        left = {_leaver(ex) for ex in self.leaves if (previous.start or since) < ex["ts"] <= until}
        for gone in sorted(before - now):
            r.triggers.append(f"member left: {gone} (LeaveGroup)" if gone in left else
                              f"member dropped out: {gone} (session timeout or removed)")
            culprit = culprit or gone
        for m in r.members:
            old = previous.member(m.member_id)
            if old is None:
                continue
            if old.topics and m.topics and sorted(old.topics) != sorted(m.topics):
                r.triggers.append(f"subscription changed: {m.member_id} now subscribes to {', '.join(m.topics)}")
                culprit = culprit or m.member_id
            change = m.metadata_change(old)
            if change:
                r.triggers.append(change)
                culprit = culprit or m.member_id
        if r.phase == "assign":
            r.triggers.append(f"cooperative follow-up: the partitions round {previous.generation} revoked are "
                              "handed out")
        hb = r.heartbeat_errors.get(REBALANCE_IN_PROGRESS, 0)
        if hb:
            r.triggers.append(f"heartbeats answered REBALANCE_IN_PROGRESS: {hb}")
        if not culprit and r.phase != "assign":
            r.triggers.append(f"a member rejoined: {first} first")
        r.trigger_member = culprit or first


def _who(r: Round, member_id: str) -> str:
    """A member by its id, or by its client id while the coordinator has not given it one yet."""
    if member_id:
        return member_id
    m = r.member(member_id)
    return f"{m.client_id} (no member id yet)" if m is not None and m.client_id else "(no member id yet)"


def streams_account(r: Round) -> list[str]:
    """The negotiation layer's account of a captured Kafka Streams round: which version the leader can
    use, who is probing, who must switch and rejoin (see docs/negotiation.md)."""
    from kafka_meta.negotiation import NegotiationError, StreamsAssignment, StreamsSubscription, explain_streams
    from kafka_meta.negotiation.facts import UNKNOWN

    subs = [StreamsSubscription(m.member_id, m.streams_version, m.streams_latest if m.streams_latest is not None
                                else UNKNOWN) for m in r.members if m.streams_version is not None]
    if not subs:
        return []
    assignments = {m.member_id: StreamsAssignment(m.streams_assignment_version, m.streams_common
                                                  if m.streams_common is not None else UNKNOWN)
                   for m in r.members if m.streams_assignment_version is not None}
    try:
        explanation = explain_streams(subs, assignments or None, leader=r.leader)
    except (NegotiationError, ValueError, KeyError) as e:  # versions no release knows: said, not raised
        return [f"(no account: {e})"]
    return [explanation.summary, *(f"- {d}" for d in explanation.details)]


def _leaver(ex: Mapping[str, Any]) -> str | None:
    req = ex.get("request") or {}
    if req.get("memberId"):
        return req["memberId"]
    members = req.get("members") or []
    return members[0].get("memberId") if members else ex.get("memberId")


def _moves(r: Round, previous: Round | None) -> None:
    """Each member's revoked and newly assigned partitions, the partitions that changed owner, and, for a
    cooperative group, which of its two phases the round is."""
    before_owner: dict[TopicPartition, str] = {}
    if previous is not None:
        for pm in previous.members:
            for tp in pm.assigned or set():
                before_owner[tp] = pm.member_id
    now_owner: dict[TopicPartition, str] = {}
    for m in r.members:
        previous_member = previous.member(m.member_id) if previous is not None else None
        before = m.owned if m.owned is not None else (
            previous_member.assigned if previous_member is not None and previous_member.assigned is not None
            else set())
        if m.assigned is not None:
            m.revoked = before - m.assigned
            m.added = m.assigned - before
            for tp in m.assigned:
                now_owner[tp] = m.member_id
    if previous is not None and all(m.assigned is not None for m in r.members):
        r.moved = {tp for tp in set(before_owner) | set(now_owner) if before_owner.get(tp) != now_owner.get(tp)}
    else:
        r.moved = {tp for m in r.members for tp in m.revoked | m.added}
    if r.protocol in COOPERATIVE:
        withheld = {tp for m in r.members for tp in m.revoked} - set(now_owner)
        if withheld:
            r.phase = "revoke"
        elif previous is not None and previous.phase == "revoke":
            r.phase = "assign"


def _shape_error(ex: Mapping[str, Any]) -> str | None:
    """What makes an exchange unusable here (rows from JSON files can hold anything), or None."""
    if not isinstance(ex.get("ts"), int | float) or isinstance(ex.get("ts"), bool):
        return "no numeric ts"
    for name in ("ts", "responseTs"):
        if isinstance(ex.get(name), int | float) and not 0 <= ex[name] < LAST_SECOND:
            return f"{name} {ex[name]} is not a time"
    for name in ("request", "response", "source"):
        if ex.get(name) is not None and not isinstance(ex[name], Mapping):
            return f"{name} is not an object"
    if ex.get("responseTs") is not None and not isinstance(ex["responseTs"], int | float):
        return "responseTs is not a number"
    group = ex.get("groupId")
    return None if group is None or isinstance(group, str) else "groupId is not a string"


INT_FIELDS = ("generationId", "errorCode", "memberEpoch", "generationIdOrMemberEpoch", "stream", "apiKey",
              "apiVersion", "correlationId", "frame")
STR_FIELDS = ("memberId", "leader", "protocolName", "protocolType", "groupId", "clientId", "client", "broker",
              "apiName", "name", "file")
LIST_FIELDS = ("protocols", "members", "assignments", "topics", "partitions", "topicPartitions",
               "assignedPartitions", "ownedPartitions", "subscribedTopicNames")


def _clean(value: Any, depth: int = 0) -> Any:
    """The exchange with every field this module reads in the type the contract gives it: a wrong type
    becomes None (a list keeps only its well-formed items), so nothing later trips over it. (Plain ``dict``
    checks, not ``Mapping``: this runs over every body, and JSON and the readers give dicts.)"""
    if depth > 12 or not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, v in value.items():
        if key in INT_FIELDS:
            v = v if isinstance(v, int) and not isinstance(v, bool) else None
        elif key in STR_FIELDS:
            v = v if isinstance(v, str) else None
        elif key in ("ts", "responseTs"):
            v = v if isinstance(v, int | float) and not isinstance(v, bool) else None
        elif key in LIST_FIELDS:
            v = _clean_list(v, depth) if isinstance(v, list) else None
        elif isinstance(v, dict):
            v = _clean(v, depth + 1)
        out[key] = v
    return out


def _clean_list(items: list[Any], depth: int) -> list[Any]:
    """A list of objects (cleaned), of integers (partition numbers) or of strings (topic names): whichever
    the list holds; items of another kind are dropped."""
    objects = [_clean(i, depth + 1) for i in items if isinstance(i, dict)]
    numbers = [i for i in items if isinstance(i, int) and not isinstance(i, bool)]
    if objects and not numbers:
        return objects
    if numbers:
        return numbers
    return [i for i in items if isinstance(i, str)]


def _group_of(ex: Mapping[str, Any]) -> str | None:
    group = ex.get("groupId") or (ex.get("request") or {}).get("groupId")
    return group if isinstance(group, str) and group else None


def _frame(ex: Mapping[str, Any]) -> int:
    frame = (ex.get("source") or {}).get("frame")
    return frame if isinstance(frame, int) else 0


def _where(ex: Mapping[str, Any], n: int) -> str:
    source = ex.get("source") if isinstance(ex.get("source"), Mapping) else {}
    if source.get("file") is not None:
        return f"{source['file']} packet {source.get('frame')}"
    return f"exchange {n}"


def build_timelines(exchanges: Iterable[Any], errors: list[str] | None = None) -> dict[str, GroupTimeline]:
    """Per group, its rounds from captured exchanges (any order; they are sorted by time). Exchanges not in
    the contract's shape are skipped and, when ``errors`` is given, listed there with their place."""
    errors = [] if errors is None else errors
    rows = []
    for n, e in enumerate(exchanges, 1):
        ex = as_dict(e)
        problem = _shape_error(ex)
        if problem is None:
            rows.append(_clean(ex) if ex.get("apiName") in GROUP_APIS or ex.get("apiName") == "Metadata" else ex)
        elif ex.get("apiName") in GROUP_APIS:
            errors.append(f"{_where(ex, n)}: {ex.get('apiName')} exchange skipped: {problem}")
    rows.sort(key=lambda e: (e["ts"], _frame(e)))
    builders: dict[str, _GroupBuilder] = {}
    epochs: dict[str, EpochBuilder] = {}
    names = topic_names(rows)
    commits: dict[str, list[Commit]] = defaultdict(list)
    coordinators: dict[str, set[str | None]] = defaultdict(set)
    for ex in rows:
        if ex.get("apiName") in GROUP_APIS and _group_of(ex):
            coordinators[_group_of(ex)].add(ex.get("broker"))  # type: ignore[index]
    for n, ex in enumerate(rows, 1):
        api, group = ex.get("apiName"), _group_of(ex)
        if not group or api not in GROUP_APIS:
            continue
        if len(coordinators[group]) > 1:  # one group id on several coordinators: other clusters, or a move
            group = f"{group} @ {ex.get('broker') or '?'}"
        try:
            _feed(builders, epochs, commits, names, api, group, ex)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:  # a body not in the specs' shape
            errors.append(f"{_where(ex, n)}: {api} body not understood ({type(exc).__name__}: {exc})")
    out = {}
    for name, b in sorted(builders.items()):
        try:
            out[name] = b.finish(commits.get(name, []))
            if name in epochs:
                out[name].rounds = sort_rounds(out[name].rounds + epochs[name].finish())
                out[name].kind = "consumer (KIP-848)"
        except (TypeError, ValueError, AttributeError, KeyError) as exc:  # a shape _clean does not know
            errors.append(f"group {name}: its exchanges could not be put in order ({type(exc).__name__}: {exc})")
            out[name] = GroupTimeline(name)
    for tl in out.values():
        by_generation: dict[int, int] = defaultdict(int)
        for c in tl.commits:
            if isinstance(c.generation, int):
                by_generation[c.generation] += 1
        for r in tl.rounds:
            r.commits = by_generation.get(r.generation, 0) if r.generation is not None else 0
    return out


def _feed(builders: dict[str, _GroupBuilder], epochs: dict[str, EpochBuilder], commits: dict[str, list[Commit]],
          names: Mapping[str, str], api: str, group: str, ex: dict[str, Any]) -> None:
    b = builders.setdefault(group, _GroupBuilder(group))
    if api == CONSUMER_HEARTBEAT:
        epochs.setdefault(group, EpochBuilder(b.timeline, names)).heartbeat(ex)
    elif api == JOIN:
        b.join(ex)
    elif api == SYNC:
        b.sync(ex)
    elif api == HEARTBEAT:
        b.heartbeats.append(ex)
    elif api == LEAVE:
        b.leaves.append(ex)
    else:
        commits[group].append(_commit(group, ex))


def _commit(group: str, ex: Mapping[str, Any]) -> Commit:
    req, resp = ex.get("request") or {}, ex.get("response") or {}
    generation = req.get("generationIdOrMemberEpoch", req.get("generationId", ex.get("generationId")))
    c = Commit(group, ex.get("ts"), member_id=req.get("memberId") or ex.get("memberId"),
               generation=generation if isinstance(generation, int) else None, evidence=_evidence(ex))
    for topic in req.get("topics") or []:
        c.partitions += len(topic.get("partitions") or [])
    for topic in resp.get("topics") or []:
        for p in topic.get("partitions") or []:
            if p.get("errorCode"):
                c.error_codes[p["errorCode"]] += 1
    return c


__all__ = ["as_dict", "build_timelines", "streams_account"]
