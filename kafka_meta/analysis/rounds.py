"""Rebalance rounds from captured exchanges (the capture reader's request/response pairs).

A classic round is the set of JoinGroup exchanges whose responses carry one generation, and the SyncGroup
exchanges of that generation: it starts with the first JoinGroup request and ends with the last SyncGroup
response, which is when the last member could resume work. JoinGroup calls the coordinator refused
(KIP-394's MEMBER_ID_REQUIRED, COORDINATOR_LOAD_IN_PROGRESS...) belong to the round their member was trying
to reach (:mod:`~kafka_meta.analysis.joins` says whose they are); a JoinGroup never answered opens a round
that never completed. Each round is then compared with the one before it to say what set it off
(:mod:`~kafka_meta.analysis.causes`) and which partitions moved (:mod:`~kafka_meta.analysis.moves`). Groups
with a server-side protocol are built from their heartbeats (:mod:`~kafka_meta.analysis.epochs`), offsets
committed in transactions by :mod:`~kafka_meta.analysis.transactions`.

Exchanges are the dicts of the protocol layer's contract (:class:`~kafka_meta.protocol.shapes.ExchangeRow`),
made safe to read, and brought to that shape, by :mod:`~kafka_meta.analysis.exchange_rows`; member metadata
still in bytes is decoded by :mod:`~kafka_meta.analysis.member_metadata`, so rows from any reader work.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from kafka_meta.analysis import exchange_rows
from kafka_meta.analysis import member_metadata as metadata
from kafka_meta.analysis.causes import Cause, ClientMemory, is_poll_timeout
from kafka_meta.analysis.codes import (
    COORDINATOR_LOAD_IN_PROGRESS,
    COORDINATOR_NOT_AVAILABLE,
    MEMBER_ID_REQUIRED,
    NOT_COORDINATOR,
    REBALANCE_IN_PROGRESS,
    error_name,
)
from kafka_meta.analysis.epochs import PROTOCOLS, EpochBuilder, topic_names
from kafka_meta.analysis.joins import resolve_member_ids
from kafka_meta.analysis.moves import moves
from kafka_meta.analysis.streams_rounds import streams_account
from kafka_meta.analysis.timeline import (
    Commit,
    GroupTimeline,
    MemberRound,
    Round,
    sort_rounds,
)
from kafka_meta.analysis.transactions import END_TXN, TXN_COMMIT, Transactions, committed
from kafka_meta.protocol.shapes import ExchangeRow

JOIN, SYNC, HEARTBEAT, LEAVE, COMMIT = "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit"
EPOCH_HEARTBEATS = tuple(PROTOCOLS)  # KIP-848, KIP-932, KIP-1071: see kafka_meta.analysis.epochs
GROUP_APIS = (JOIN, SYNC, HEARTBEAT, LEAVE, COMMIT, *EPOCH_HEARTBEATS, TXN_COMMIT, END_TXN)
# how long the coordinator may hold a JoinGroup: the largest rebalance timeout a Java consumer asks for by
# default (max.poll.interval.ms, 5 minutes); a capture ending sooner after a join may just have cut it off
REBALANCE_TIMEOUT_S = 300.0

# a JoinGroup answered so went to a broker that was not the coordinator: the client finds it and joins again
NOT_THE_COORDINATOR = frozenset({COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR})


def _timeout(value: object) -> int | None:
    """A timeout in ms as a request carries it; -1 (JoinGroup v0 has no rebalance timeout) is none."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


class _GroupBuilder:
    """Rounds of one group, built from its exchanges (collected first: a JoinGroup's member id may only be
    known from a later exchange on the same connection, see :mod:`kafka_meta.analysis.joins`)."""

    def __init__(self, group: str) -> None:
        self.timeline = GroupTimeline(group)
        self.by_generation: dict[int, Round] = {}
        self.exchanges: list[ExchangeRow] = []  # JoinGroup and SyncGroup, in time order
        self.refused: list[tuple[ExchangeRow, str]] = []  # JoinGroup calls without a generation, and whose
        self.heartbeats: list[ExchangeRow] = []
        self.leaves: list[ExchangeRow] = []
        self.capture_end: dict[str | None, float] = {}  # per capture file, the last time it saw anything

    def round(self, generation: int, ex: ExchangeRow) -> Round:
        if generation not in self.by_generation:
            self.by_generation[generation] = Round(self.timeline.group, "capture", generation=generation,
                                                   evidence=exchange_rows.evidence(ex))
        return self.by_generation[generation]

    @staticmethod
    def member(r: Round, member_id: str) -> MemberRound:
        found = r.member(member_id)
        if found is None:
            found = MemberRound(member_id)
            r.members.append(found)
        return found

    def replay(self) -> None:
        joins = [ex for ex in self.exchanges if ex["apiName"] == JOIN]
        ids = dict(zip(map(id, joins), resolve_member_ids(joins), strict=True))
        for ex in self.exchanges:
            if ex["apiName"] == JOIN:
                self.join(ex, ids[id(ex)])
            else:
                self.sync(ex)

    def join(self, ex: ExchangeRow, member_id: str) -> None:
        req, resp = ex["request"] or {}, ex["response"] or {}
        generation = resp.get("generationId")
        if not member_id and resp.get("errorCode") in NOT_THE_COORDINATOR:
            return  # a broker that is not (yet) the group's coordinator turned an anonymous join away: no member
        if ex["responseTs"] is None or resp.get("errorCode") or generation is None or generation < 0:
            self.refused.append((ex, member_id))
            return
        r = self.round(generation, ex)
        if r.end is not None and ex["ts"] > r.end and r.member(member_id) is None:
            self.joined_finished_round(r, ex, member_id)
        r.start = ex["ts"] if r.start is None else min(r.start, ex["ts"])
        r.protocol = resp.get("protocolName") or r.protocol
        r.protocol_type = resp.get("protocolType") or req.get("protocolType") or r.protocol_type
        r.leader = resp.get("leader") or r.leader
        if r.leader:
            self.member(r, r.leader)  # the coordinator names it: a member even if its own join was not seen
        m = self.member(r, member_id)
        m.client_id, m.client, m.joined_at = ex["clientId"], ex["client"], ex["ts"]
        m.evidence = exchange_rows.evidence(ex)
        m.instance_id = req.get("groupInstanceId") or m.instance_id
        m.join_reason = req.get("reason") or m.join_reason
        m.join_steps += 1
        m.session_timeout_ms = _timeout(req.get("sessionTimeoutMs")) or m.session_timeout_ms
        m.rebalance_timeout_ms = _timeout(req.get("rebalanceTimeoutMs")) or m.rebalance_timeout_ms
        m.protocols = [p.get("name") for p in req.get("protocols") or []]
        chosen = next((p for p in req.get("protocols") or [] if p.get("name") == r.protocol), None)
        if chosen is not None:
            metadata.subscription(m, chosen.get("metadata"))
        for other in resp.get("members") or []:  # the leader's view: every member's metadata
            om = self.member(r, other.get("memberId") or "")
            om.instance_id = other.get("groupInstanceId") or om.instance_id
            if om.subscription_version is None and not om.errors:
                metadata.subscription(om, other.get("metadata"))

    def joined_finished_round(self, r: Round, ex: ExchangeRow, member_id: str) -> None:
        """A JoinGroup answered with a generation that had already completed: the coordinator took the member
        in without a rebalance. For a static member (KIP-345) restarting within its session timeout, the new
        member id replaces the old one, which leaves the round."""
        instance = (ex["request"] or {}).get("groupInstanceId")
        old = next((m for m in r.members if instance and m.instance_id == instance), None)
        if old is not None:
            r.members.remove(old)
            if r.leader == old.member_id:
                r.leader = member_id
            r.notes.append(f"static member {instance} restarted within its session timeout: {old.member_id} "
                           f"replaced by {member_id}, no rebalance")
            placeholder = self.member(r, member_id)
            placeholder.assigned, placeholder.owned, placeholder.replaces = old.assigned, old.owned, old.member_id
        else:
            r.notes.append(f"{member_id} rejoined generation {r.generation} without a rebalance")

    def sync(self, ex: ExchangeRow) -> None:
        req, resp = ex["request"] or {}, ex["response"] or {}
        generation = req.get("generationId", ex["generationId"])
        if generation is None:
            return
        r = self.round(generation, ex)
        m = self.member(r, req.get("memberId") or ex["memberId"] or "")
        code = ex["errorCode"] or resp.get("errorCode")
        if ex["responseTs"] is not None and not code:  # refused (the next round began): not synced
            m.synced_at = ex["responseTs"]
            r.end = m.synced_at if r.end is None else max(r.end, m.synced_at)
        if code:
            r.error_codes[code] += 1
            m.errors.append(f"SyncGroup answered {error_name(code)}")
        for a in req.get("assignments") or []:  # the leader's SyncGroup: everyone's assignment
            metadata.assignment(self.member(r, a.get("memberId") or ""), a.get("assignment"))
        if "assignment" in resp and (m.assigned is None or not req.get("assignments")):
            metadata.assignment(m, resp.get("assignment"))

    def place_refused(self) -> None:
        """Joins the coordinator refused or never answered go to the round their member was reaching (the
        first steps of KIP-394 among them); the rest form unfinished rounds of their own."""
        rounds = sort_rounds(list(self.by_generation.values()))
        spans = []  # each round from its start until it ended, or until the next one began
        for i, r in enumerate(rounds):
            following = rounds[i + 1].start if i + 1 < len(rounds) else None
            until = r.end if r.end is not None else following
            spans.append((r.start, float("inf") if until is None else until, r))
        accepted = sorted((m.joined_at, r.generation, m.member_id) for r in rounds for m in r.members
                          if m.joined_at is not None)  # the joins the coordinator answered with a generation
        for ex, member_id in self.refused:
            resp = ex["response"] or {}
            ts = ex["ts"]
            target = _reached(accepted, self.by_generation, member_id, ts) if member_id else None
            target = target or next((r for start, until, r in spans if start is not None and start <= ts <= until
                                     and _open_to(r, member_id, ts)), None) or next(
                (r for start, _, r in spans if start is not None and start > ts and _open_to(r, member_id, ts)), None)
            if target is None:
                target = Round(self.timeline.group, "capture", start=ex["ts"], complete=False,
                               protocol_type=(ex["request"] or {}).get("protocolType"),
                               evidence=exchange_rows.evidence(ex))
                rounds.append(target)
                spans.append((target.start, float("inf"), target))
            target.start = ex["ts"] if target.start is None else min(target.start, ex["ts"])
            m = self.member(target, member_id)
            m.client_id, m.client = m.client_id or ex["clientId"], m.client or ex["client"]
            m.instance_id = m.instance_id or (ex["request"] or {}).get("groupInstanceId")
            m.join_steps += 1
            if m.joined_at is None or ex["ts"] < m.joined_at:
                m.joined_at, m.evidence = ex["ts"], exchange_rows.evidence(ex)
            code = resp.get("errorCode")
            if code and code != MEMBER_ID_REQUIRED:  # KIP-394's handshake is how every member joins, not an error
                target.error_codes[code] += 1
            if ex["responseTs"] is None:
                m.errors.append("JoinGroup never answered")
                m.join_reason = m.join_reason or (ex["request"] or {}).get("reason")
                if m.protocols == []:
                    m.protocols = [p.get("name") for p in (ex["request"] or {}).get("protocols") or []]
                    chosen = next(iter((ex["request"] or {}).get("protocols") or []), None)
                    if chosen is not None:
                        metadata.subscription(m, chosen.get("metadata"))
        self.timeline.rounds = sort_rounds(rounds)

    def finish(self, commits: list[Commit]) -> GroupTimeline:
        self.replay()
        self.place_refused()
        previous: Round | None = None
        memory = ClientMemory()
        for i, r in enumerate(self.timeline.rounds):
            r.complete = r.complete and bool(r.members) and all(m.synced_at is not None for m in r.members)
            if not r.complete:
                r.superseded = i + 1 < len(self.timeline.rounds)
                r.cut_off = not r.superseded and self.ended_during(r)
            if r.protocol_type is None and r.members:
                r.protocol_type = "consumer" if any(m.subscription_version is not None for m in r.members) else None
            moves(r, previous)
            self._triggers(r, previous, memory)
            if r.protocol == "stream":
                r.explanation, r.rejoin_expected = streams_account(r)
            previous = r
        self.timeline.commits = commits
        if any(r.protocol == "stream" for r in self.timeline.rounds):
            self.timeline.kind = "streams"
        return self.timeline

    def ended_during(self, r: Round) -> bool:
        """Whether the capture ends before the round could have finished: a member still waiting for its
        JoinGroup or SyncGroup answer when the capture stops, within the rebalance timeout it asked for
        (the coordinator holds a JoinGroup that long)."""
        if r.evidence is None:
            return False
        end = self.capture_end.get(r.evidence.file)
        if end is None:
            return False
        stuck = [m for m in r.members if m.synced_at is None and m.joined_at is not None]
        refused = [e for m in stuck for e in m.errors if e.startswith("SyncGroup answered")]
        if any("REBALANCE_IN_PROGRESS" not in e for e in refused):
            return False  # refused, not waiting: the capture's end has nothing to do with it
        # (REBALANCE_IN_PROGRESS: a next round began, which the capture ends before seeing)
        return bool(stuck) and all(end - (m.joined_at or 0.0) <= REBALANCE_TIMEOUT_S for m in stuck)

    def _triggers(self, r: Round, previous: Round | None, memory: ClientMemory) -> None:
        since = float("-inf") if previous is None else (previous.end or previous.start or float("-inf"))
        until = r.end if r.end is not None else (r.start or 0.0)
        for hb in self.heartbeats:
            if since < hb["ts"] <= until and hb["errorCode"]:
                r.heartbeat_errors[hb["errorCode"]] += 1
        joiners = sorted((m for m in r.members if m.joined_at is not None and m.replaces is None),
                         key=lambda m: m.joined_at or 0.0)
        first = joiners[0].member_id if joiners else None
        causes: list[Cause] = []
        if previous is None:
            for m in joiners:
                memory.arrived(_client_key(m))
            causes.append(Cause("first", ", ".join(_who(r, m.member_id) for m in joiners) or None))
            r.causes, r.trigger_member = causes, first
            r.triggers = [str(c) for c in causes]
            return
        before, now = {m.member_id for m in previous.members}, {m.member_id for m in r.members}
        new = sorted(now - before, key=lambda i: r.member(i).joined_at or 0.0)  # type: ignore[union-attr]
        earlier = {_client_key(m): m.member_id for m in previous.members if m.member_id not in now}
        for member_id in new:
            m = r.member(member_id)  # type: ignore[assignment]
            key = _client_key(m)  # type: ignore[arg-type]
            kind = memory.arrival(key, present=key is not None and key in earlier)
            memory.arrived(key)
            causes.append(Cause(kind, _who(r, member_id), _arrival_detail(m, kind)))  # type: ignore[arg-type]
        restarted = {earlier[k] for k in (_client_key(r.member(i)) for i in new) if k in earlier}  # type: ignore[arg-type]
        leaves = {_leaver(ex): ex for ex in self.leaves if (previous.start or since) < ex["ts"] <= until}
        for gone in sorted(before - now):
            old = previous.member(gone)
            if gone in restarted and gone not in leaves:
                causes.append(Cause("restart", gone, "its old member id, gone once its restarted client rejoined"))
            elif gone in leaves:
                reason = _leave_reason(leaves[gone])
                kind = "poll-timeout" if is_poll_timeout(reason) else "leave"
                causes.append(Cause(kind, gone, f"LeaveGroup: {reason}" if reason else "LeaveGroup"))
            else:
                kind = "expiry"
                causes.append(Cause(kind, gone, "no LeaveGroup: its session timed out, or it was removed"))
            if gone not in restarted:
                memory.departure(_client_key(old) if old is not None else None, kind)
        for m in r.members:
            old = previous.member(m.member_id)
            if old is None:
                continue
            if old.topics and m.topics and sorted(old.topics) != sorted(m.topics):
                causes.append(Cause("subscription", m.member_id, f"now {', '.join(m.topics)}"))
            change = m.metadata_change(old)
            if change:
                causes.append(Cause("metadata", m.member_id, f"was {old.versions}, now {m.versions}"))
        if r.phase == "assign":
            causes.append(Cause("follow-up", None, f"the partitions round {previous.generation} revoked are "
                                "handed out"))
        if previous.rejoin_expected and not (now ^ before):
            causes = [c for c in causes if c.kind != "metadata"] + [
                Cause("probing", None, f"the members switch Kafka Streams metadata versions after round "
                      f"{previous.generation}'s version probing and rejoin")]
        if not causes:
            reason = next((m.join_reason for m in joiners if m.join_reason), None)
            causes.append(Cause("no-change", first, f"JoinGroup reason: {reason}" if reason else ""))
        r.causes = causes
        r.triggers = [str(c) for c in causes]
        refusals = r.heartbeat_errors.get(REBALANCE_IN_PROGRESS, 0)
        if refusals:
            r.triggers.append(f"heartbeats answered REBALANCE_IN_PROGRESS: {refusals}")
        r.trigger_member = next((c.member for c in causes if c.kind != "follow-up" and c.member), None) or first


def _open_to(r: Round, member_id: str, ts: float) -> bool:
    """Whether a join of the member at ``ts`` can belong to round ``r``: a member already in a round joins
    again only for the next one."""
    m = r.member(member_id) if member_id else None
    return m is None or m.joined_at is None or m.joined_at > ts


def _reached(accepted: list[tuple[float, int | None, str]], rounds: Mapping[int, Round], member_id: str,
             ts: float) -> Round | None:
    """The round of the member's first accepted JoinGroup at or after ``ts``: the one its refused step was
    reaching."""
    generation = next((g for at, g, m in accepted if m == member_id and at >= ts), None)
    return None if generation is None else rounds.get(generation)


def _client_key(m: MemberRound) -> str | None:
    return ClientMemory.key(m.instance_id, m.client_id, m.client)


def _arrival_detail(m: MemberRound, kind: str) -> str:
    who = f"client {m.client_id}" if m.client_id else ""
    if m.instance_id:
        who = f"static member {m.instance_id}"
    if kind == "rejoin":
        return f"{who}, back after it was expired or timed out" if who else "back after it was expired or timed out"
    if kind == "restart":
        return f"{who}, back after it left" if who else "back after it left"
    return who


def _leave_reason(ex: ExchangeRow) -> str | None:
    req = ex["request"] or {}
    for member in req.get("members") or []:
        if member.get("reason"):
            return str(member["reason"])
    return req.get("reason")


def _who(r: Round, member_id: str) -> str:
    """A member by its id, or by its client id while the coordinator has not given it one yet."""
    if member_id:
        return member_id
    m = r.member(member_id)
    return f"{m.client_id} (no member id yet)" if m is not None and m.client_id else "(no member id yet)"


def _leaver(ex: ExchangeRow) -> str | None:
    req = ex["request"] or {}
    if req.get("memberId"):
        return req["memberId"]
    members = req.get("members") or []
    return members[0].get("memberId") if members else ex["memberId"]


def build_timelines(exchanges: Iterable[Any], errors: list[str] | None = None) -> dict[str, GroupTimeline]:
    """Per group, its rounds from captured exchanges (any order; they are sorted by time). Exchanges not in
    the contract's shape are skipped and, when ``errors`` is given, listed there with their place."""
    errors = [] if errors is None else errors
    rows: list[ExchangeRow] = []
    for n, e in enumerate(exchanges, 1):
        raw = exchange_rows.as_dict(e)  # anything until shape_error passes it: read with .get
        problem = exchange_rows.shape_error(raw)
        if problem is None:
            read = raw.get("apiName") in GROUP_APIS or raw.get("apiName") == "Metadata"
            rows.append(exchange_rows.conform(exchange_rows.clean(raw) if read else raw))
        elif raw.get("apiName") in GROUP_APIS:
            errors.append(f"{exchange_rows.where(raw, n)}: {raw.get('apiName')} exchange skipped: {problem}")
    rows.sort(key=lambda e: (e["ts"], exchange_rows.frame(e)))
    builders: dict[str, _GroupBuilder] = {}
    epochs: dict[str, EpochBuilder] = {}
    names = topic_names(rows)
    commits: dict[str, list[Commit]] = defaultdict(list)
    coordinators: dict[str, set[str | None]] = defaultdict(set)
    for ex in rows:
        if ex["apiName"] in GROUP_APIS and exchange_rows.group_of(ex):
            coordinators[exchange_rows.group_of(ex)].add(ex["broker"])  # type: ignore[index]
    ends = exchange_rows.capture_ends(rows)
    transactions = Transactions()
    for n, ex in enumerate(rows, 1):
        api, group = ex["apiName"], exchange_rows.group_of(ex)
        if api == END_TXN:  # names no group: it decides the offsets its producer committed for some
            for commit in transactions.end(ex):
                commits[_placed(commit.group, coordinators, ex)].append(commit)
            continue
        if not group or api not in GROUP_APIS:
            continue
        if api == TXN_COMMIT:
            transactions.offsets(_placed(group, coordinators, ex), ex, names)
            continue
        group = _placed(group, coordinators, ex)
        try:
            _feed(builders, epochs, commits, names, api, group, ex)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:  # a body not in the specs' shape
            errors.append(f"{exchange_rows.where(ex, n)}: {api} body not understood ({type(exc).__name__}: {exc})")
    out = {}
    for name, b in sorted(builders.items()):
        b.capture_end = ends
        try:
            out[name] = b.finish(commits.get(name, []))
            if name in epochs:
                out[name].rounds = sort_rounds(out[name].rounds + epochs[name].finish())
                out[name].kind = epochs[name].protocol.kind
            out[name].last_seen = _last_seen(b, epochs.get(name), commits.get(name, []))
        except (TypeError, ValueError, AttributeError, KeyError) as exc:  # a shape _clean does not know
            errors.append(f"group {name}: its exchanges could not be put in order ({type(exc).__name__}: {exc})")
            out[name] = GroupTimeline(name)
    for group, n in transactions.aborted.items():
        out.setdefault(group, GroupTimeline(group)).aborted_commits += n
    for name, group_commits in commits.items():
        if name not in builders:  # a group seen only committing offsets in transactions (some perhaps aborted)
            out.setdefault(name, GroupTimeline(name)).commits = group_commits
    for tl in out.values():
        by_generation: dict[int, int] = defaultdict(int)
        for c in tl.commits:
            if isinstance(c.generation, int):
                by_generation[c.generation] += 1
        for r in tl.rounds:
            r.commits = by_generation.get(r.generation, 0) if r.generation is not None else 0
    return out


def _last_seen(b: _GroupBuilder, epochs: EpochBuilder | None, commits: list[Commit]) -> dict[str, float]:
    """Per member, the last request the capture has from it (a heartbeat, join, sync, leave or commit): where
    the partitions of a member that crashed went without an owner (kafka_meta.analysis.unowned)."""
    seen: dict[str, float] = dict(epochs.last_seen) if epochs is not None else {}
    requests: list[tuple[str | None, Any]] = [(ex["memberId"] or (ex["request"] or {}).get("memberId"), ex["ts"])
                for ex in (*b.heartbeats, *b.exchanges)]
    requests += [(_leaver(ex), ex["ts"]) for ex in b.leaves] + [(c.member_id, c.ts) for c in commits]
    for member, ts in requests:
        if member and isinstance(ts, int | float) and ts > seen.get(member, float("-inf")):
            seen[member] = float(ts)
    return seen


def _placed(group: str, coordinators: Mapping[str, set[str | None]], ex: ExchangeRow) -> str:
    """The group's name in the timeline: ``group @ broker`` when its id went to several coordinators (other
    clusters, or a coordinator that moved), so unrelated generations are not mixed."""
    if len(coordinators.get(group, ())) > 1:
        return f"{group} @ {ex['broker'] or '?'}"
    return group


def _feed(builders: dict[str, _GroupBuilder], epochs: dict[str, EpochBuilder], commits: dict[str, list[Commit]],
          names: Mapping[str, str], api: str, group: str, ex: ExchangeRow) -> None:
    b = builders.setdefault(group, _GroupBuilder(group))
    if api in EPOCH_HEARTBEATS:
        epochs.setdefault(group, EpochBuilder(b.timeline, names, PROTOCOLS[api])).heartbeat(ex)
    elif api in (JOIN, SYNC):
        b.exchanges.append(ex)
    elif api == HEARTBEAT:
        b.heartbeats.append(ex)
    elif api == LEAVE:
        b.leaves.append(ex)
    else:
        commits[group].append(_commit(group, ex, names))


def _commit(group: str, ex: ExchangeRow, names: Mapping[str, str]) -> Commit:
    req, resp = ex["request"] or {}, ex["response"] or {}
    generation = req.get("generationIdOrMemberEpoch", req.get("generationId", ex["generationId"]))
    c = Commit(group, ex["ts"], member_id=req.get("memberId") or ex["memberId"],
               generation=generation if isinstance(generation, int) else None, evidence=exchange_rows.evidence(ex),
               answered=ex["responseTs"])
    committed(c, req, resp, names)
    return c


__all__ = ["GROUP_APIS", "build_timelines"]
