"""The rebalance timeline: per group, the rounds it went through, in order, each with who, what and why.

A *round* is one pass of the group protocol: for classic groups the JoinGroup/SyncGroup exchange that ends in
a new generation (from a capture), or a generation as ``__consumer_offsets`` recorded it; for KIP-848 groups
an epoch of the group. The builders (:mod:`~kafka_meta.analysis.rounds` for captures,
:mod:`~kafka_meta.analysis.generations` for the offsets log) fill these plain classes, the findings read
them, and the report faces draw them, so every face tells the same story. ``to_json`` uses Kafka-style
camelCase names, like the rest of the project's JSON; what it writes (report.json's rounds) is declared once
per class as a ``TypedDict`` beside it, so a renamed key is a type error and a failing test
(``tests/test_shapes.py``), not a report that quietly lacks it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TypedDict

from kafka_meta.analysis.causes import Cause, CauseJson, round_kind

TopicPartition = tuple[str, int]
LAST_SECOND = 253_402_300_800  # 10000-01-01: epoch seconds from it on are no time a client or broker recorded


def tp_label(tp: TopicPartition) -> str:
    return f"{tp[0]}-{tp[1]}"


def tp_labels(tps: set[TopicPartition] | frozenset[TopicPartition] | list[TopicPartition]) -> list[str]:
    return [tp_label(tp) for tp in sorted(tps)]


class EvidenceJson(TypedDict):
    """Where a fact came from, as report.json writes it (:meth:`Evidence.to_json`)."""

    file: str | None
    frame: int | None
    offset: int | None
    line: int | None
    ts: float | None


class MemberRoundJson(TypedDict):
    """A member's part in a round, as report.json writes it (:meth:`MemberRound.to_json`); partitions as
    ``topic-partition`` labels."""

    memberId: str
    clientId: str | None
    client: str | None
    groupInstanceId: str | None
    joinReason: str | None
    joinSteps: int
    replaces: str | None
    joinedAt: float | None
    syncedAt: float | None
    protocols: list[str]
    topics: list[str]
    subscriptionVersion: int | None
    assignmentVersion: int | None
    userData: str | None
    streamsVersion: int | None
    streamsLatestSupportedVersion: int | None
    streamsAssignmentVersion: int | None
    streamsCommonlySupportedVersion: int | None
    owned: list[str] | None
    assigned: list[str] | None
    revoked: list[str] | None
    added: list[str] | None
    memberEpoch: int | None
    target: list[str] | None
    reconciled: bool | None
    errors: list[str]
    evidence: EvidenceJson | None


class RoundJson(TypedDict):
    """A round as report.json writes it (:meth:`Round.to_json`); error codes keyed by their number as text."""

    group: str
    source: str
    generation: int | None
    start: float | None
    end: float | None
    durationMs: float | None
    protocolType: str | None
    protocol: str | None
    leader: str | None
    triggers: list[str]
    triggerMember: str | None
    causes: list[CauseJson]
    kind: str
    notes: list[str]
    phase: str | None
    moved: list[str]
    errorCodes: dict[str, int]
    heartbeatErrors: dict[str, int]
    commits: int
    explanation: list[str]
    complete: bool
    cutOff: bool
    superseded: bool
    members: list[MemberRoundJson]
    evidence: EvidenceJson | None


class GroupTimelineJson(TypedDict):
    """A group's timeline as report.json writes it (:meth:`GroupTimeline.to_json`): its commits counted."""

    group: str
    kind: str
    members: list[str]
    rounds: list[RoundJson]
    commits: int
    abortedCommits: int
    pendingCommits: dict[str, int]
    findings: list[dict[str, Any]]
    earlierRounds: int



COOPERATIVE_PROTOCOLS = ("cooperative-sticky", "stream")  # classic assignors that revoke only what moves

@dataclass
class Evidence:
    """Where a fact came from: a packet of a capture file, or a record of the offsets log."""

    file: str | None = None
    frame: int | None = None  # packet number in a capture (1-based)
    offset: int | None = None  # record offset in a log
    line: int | None = None  # line of a JSON Lines file (or row number of other inputs)
    ts: float | None = None

    def __str__(self) -> str:
        """The place as every message names it: the file as given (two inputs may share a file name), then the
        packet, or the line (``FILE line N``, the form of every bad line; its offset after it), or the offset."""
        where = self.file or "input"
        if self.frame is not None:
            return f"{where} packet {self.frame}"
        if self.line is not None:
            return f"{where} line {self.line}" + (f" (offset {self.offset})" if self.offset is not None else "")
        if self.offset is not None:
            return f"{where} offset {self.offset}"
        return where

    def to_json(self) -> EvidenceJson:
        return {"file": self.file, "frame": self.frame, "offset": self.offset, "line": self.line, "ts": self.ts}


@dataclass
class MemberRound:
    """One member's part in one round: what it asked for, with which metadata, and what it got."""

    member_id: str
    client_id: str | None = None
    client: str | None = None  # ip:port of a captured connection, or the client host the broker recorded
    instance_id: str | None = None  # group.instance.id of a static member (KIP-345)
    join_reason: str | None = None  # the reason its JoinGroup gave (KIP-800), e.g. "group is already rebalancing"
    session_timeout_ms: int | None = None  # JoinGroup's (or the recorded member's) session.timeout.ms
    rebalance_timeout_ms: int | None = None  # a Java consumer sends its max.poll.interval.ms as this
    join_steps: int = 0  # JoinGroup calls it made to join this round (2 or more: KIP-394's id handshake, retries)
    replaces: str | None = None  # the member id it took over within the generation (a static member's restart)
    joined_at: float | None = None  # its JoinGroup request
    synced_at: float | None = None  # its SyncGroup response (it resumes work from here)
    protocols: list[str] = field(default_factory=list)  # assignors it offered, in its order of preference
    topics: list[str] = field(default_factory=list)
    subscription_version: int | None = None  # consumer protocol version of its subscription
    assignment_version: int | None = None
    user_data: str | None = None  # "CooperativeStickyAssignorUserData v0", "SubscriptionInfo v11"...
    streams_version: int | None = None  # Kafka Streams SubscriptionInfo version used ...
    streams_latest: int | None = None  # ... and the latest one it supports
    streams_assignment_version: int | None = None
    streams_common: int | None = None  # the AssignmentInfo's commonly supported version
    owned: set[TopicPartition] | None = None  # partitions it says it still owns (cooperative subscriptions)
    assigned: set[TopicPartition] | None = None  # None: the assignment is not known
    revoked: set[TopicPartition] = field(default_factory=set)
    added: set[TopicPartition] = field(default_factory=set)
    epoch: int | None = None  # KIP-848 member epoch
    target: set[TopicPartition] | None = None  # KIP-848 target assignment
    reconciled: bool | None = None  # KIP-848: owns exactly its target
    errors: list[str] = field(default_factory=list)  # undecodable metadata, error codes it received
    evidence: Evidence | None = None
    # when a partition reached or left it within the round, where the input says it partition by partition
    # (KIP-848 heartbeats and assignment records; kafka_meta.analysis.unowned reads them)
    gained_at: dict[TopicPartition, float] = field(default_factory=dict)
    released_at: dict[TopicPartition, float] = field(default_factory=dict)

    def metadata_change(self, before: MemberRound) -> str | None:
        """Why a round may have started: this member sends other metadata versions than in ``before`` (its
        part in the previous round); None when they match or either is unknown. Both builders ask this."""
        if before.versions == self.versions or "-" in (before.versions, self.versions):
            return None
        return f"metadata changed: {self.member_id} now sends {self.versions} (was {before.versions})"

    @property
    def versions(self) -> str:
        """Its metadata versions in one short label (what the chart colours by)."""
        parts = []
        if self.subscription_version is not None:
            parts.append(f"consumer v{self.subscription_version}")
        if self.streams_version is not None:
            parts.append(f"streams v{self.streams_version}/{self.streams_latest}")
        return ", ".join(parts) or "-"

    def to_json(self) -> MemberRoundJson:
        def tps(s: set[TopicPartition] | None) -> list[str] | None:
            return None if s is None else tp_labels(s)

        return {"memberId": self.member_id, "clientId": self.client_id, "client": self.client,
                "groupInstanceId": self.instance_id, "joinReason": self.join_reason, "joinSteps": self.join_steps,
                "replaces": self.replaces,
                "joinedAt": self.joined_at, "syncedAt": self.synced_at, "protocols": self.protocols,
                "topics": self.topics, "subscriptionVersion": self.subscription_version,
                "assignmentVersion": self.assignment_version, "userData": self.user_data,
                "streamsVersion": self.streams_version, "streamsLatestSupportedVersion": self.streams_latest,
                "streamsAssignmentVersion": self.streams_assignment_version,
                "streamsCommonlySupportedVersion": self.streams_common, "owned": tps(self.owned),
                "assigned": tps(self.assigned), "revoked": tps(self.revoked), "added": tps(self.added),
                "memberEpoch": self.epoch, "target": tps(self.target), "reconciled": self.reconciled,
                "errors": self.errors, "evidence": self.evidence.to_json() if self.evidence else None}


@dataclass
class Round:
    """One rebalance round of one group."""

    group: str
    source: str  # "capture" (JoinGroup/SyncGroup exchanges) or "offsets" (records of __consumer_offsets)
    generation: int | None = None  # classic generation, or KIP-848 group epoch
    start: float | None = None  # first JoinGroup request (capture) or the record's timestamp (offsets)
    end: float | None = None  # last SyncGroup response; None while (or if never) finished
    protocol_type: str | None = None
    protocol: str | None = None  # the assignor the coordinator chose
    leader: str | None = None
    members: list[MemberRound] = field(default_factory=list)
    triggers: list[str] = field(default_factory=list)  # why it happened, in plain words
    trigger_member: str | None = None  # the member that set it off, when one did
    causes: list[Cause] = field(default_factory=list)  # the same, in kafka_meta.analysis.causes' vocabulary
    notes: list[str] = field(default_factory=list)  # what changed within the generation without a new round
    phase: str | None = None  # cooperative rounds: "revoke" (first of two) or "assign" (the follow-up)
    moved: set[TopicPartition] = field(default_factory=set)  # partitions whose owner changed
    error_codes: Counter[int] = field(default_factory=Counter)  # error codes in the round's responses
    heartbeat_errors: Counter[int] = field(default_factory=Counter)  # what heartbeats answered meanwhile
    commits: int = 0  # offset commits made in this generation
    explanation: list[str] = field(default_factory=list)  # the negotiation layer's account (Streams)
    rejoin_expected: bool = False  # that account says members rejoin at once (version probing's follow-up)
    complete: bool = True  # every member got its assignment
    cut_off: bool = False  # unfinished because the capture ends while it was still going
    superseded: bool = False  # unfinished because the next round began first (a member came or went meanwhile)
    evidence: Evidence | None = None

    @property
    def state(self) -> str:
        """How it ended, in a word or two: '' (finished), 'superseded', 'cut off' (by the capture's end) or
        'unfinished'."""
        if self.complete:
            return ""
        return "superseded" if self.superseded else "cut off" if self.cut_off else "unfinished"

    @property
    def kind(self) -> str:
        """'deliberate', 'involuntary' or 'continuation' (see kafka_meta.analysis.causes)."""
        return round_kind(self.causes)

    @property
    def duration_ms(self) -> float | None:
        if self.start is None or self.end is None:
            return None
        return (self.end - self.start) * 1000

    @property
    def eager(self) -> bool:
        """Stop-the-world: every member gives up all its partitions (a classic group whose assignor is not a
        cooperative one; KIP-848 members keep what they are not asked to give up)."""
        return self.source == "capture" and self.eager_assignor

    @property
    def eager_assignor(self) -> bool:
        """Its assignor revokes everything at every round, whatever the input says of the round's timing: a
        classic assignor that is not a cooperative one (KIP-848 members have epochs and keep what they own)."""
        return self.protocol not in COOPERATIVE_PROTOCOLS and all(m.epoch is None for m in self.members)

    @property
    def versions(self) -> Counter[str]:
        return Counter(m.versions for m in self.members if m.versions != "-")

    def member(self, member_id: str) -> MemberRound | None:
        return next((m for m in self.members if m.member_id == member_id), None)

    def to_json(self) -> RoundJson:
        return {"group": self.group, "source": self.source, "generation": self.generation, "start": self.start,
                "end": self.end, "durationMs": self.duration_ms, "protocolType": self.protocol_type,
                "protocol": self.protocol, "leader": self.leader, "triggers": self.triggers,
                "triggerMember": self.trigger_member, "causes": [c.to_json() for c in self.causes],
                "kind": self.kind, "notes": self.notes, "phase": self.phase, "moved": tp_labels(self.moved),
                "errorCodes": {str(k): v for k, v in sorted(self.error_codes.items())},
                "heartbeatErrors": {str(k): v for k, v in sorted(self.heartbeat_errors.items())},
                "commits": self.commits, "explanation": self.explanation, "complete": self.complete,
                "cutOff": self.cut_off, "superseded": self.superseded, "members": [m.to_json() for m in self.members],
                "evidence": self.evidence.to_json() if self.evidence else None}


@dataclass
class Commit:
    """An offset commit: from a capture (with the generation the member claimed) or from the offsets log."""

    group: str
    ts: float | None
    member_id: str | None = None
    generation: int | None = None
    partitions: int = 0
    error_codes: Counter[int] = field(default_factory=Counter)  # per-partition errors of the response
    evidence: Evidence | None = None
    offsets: dict[str, int] = field(default_factory=dict)  # "topic-partition" -> offset, where known
    answered: float | None = None  # a captured commit: when the coordinator answered (it is in force from then)

    @property
    def in_force(self) -> float | None:
        return self.answered if self.answered is not None else self.ts


@dataclass
class GroupTimeline:
    group: str
    kind: str = "classic"  # "classic", "consumer (KIP-848)", "streams"
    rounds: list[Round] = field(default_factory=list)
    commits: list[Commit] = field(default_factory=list)
    aborted_commits: int = 0  # offsets committed in transactions that were aborted: never in force
    findings: list[Any] = field(default_factory=list)  # kafka_meta.analysis.findings.Finding
    # the offsets commits of transactions still open where the log ends would set: pending, not in force
    pending_commits: dict[str, int] = field(default_factory=dict)
    # (second, outcome) -> transactional offset commits then: "committed", "aborted" or "open"
    transaction_marks: Counter[tuple[float | None, str]] = field(default_factory=Counter)
    # a bounded timeline (watch) lets a group's oldest rounds go: how many, so the faces say it
    earlier_rounds: int = 0
    last_seen: dict[str, float] = field(default_factory=dict)  # member -> the last request the input has from it
    unowned: Any = None  # kafka_meta.analysis.unowned.GroupCost, once computed

    @property
    def members(self) -> list[str]:
        seen: dict[str, None] = {}
        for r in self.rounds:
            for m in r.members:
                seen.setdefault(m.member_id)
        return list(seen)

    @property
    def offsets_committed(self) -> int:
        """How many partition offsets the group's commits wrote: the same count whether the commits were kept
        one by one or counted (per round and second, as the Spark job and a whole log directory count them)."""
        return sum(c.partitions for c in self.commits)

    def committed_offsets(self) -> dict[str, int]:
        """The offsets in force after the last commit of each partition (commits refused or aborted never
        are), in time order: what the group would resume from."""
        out: dict[str, int] = {}
        timed = sorted((c for c in self.commits if not c.error_codes), key=lambda c: c.in_force or 0.0)
        for c in timed:
            out.update(c.offsets)
        return out

    @property
    def trouble(self) -> int:
        """How much attention the group needs: the findings' severities, summed (sorts the reports)."""
        return sum(getattr(f, "weight", 1) for f in self.findings)

    def to_json(self) -> GroupTimelineJson:
        return {"group": self.group, "kind": self.kind, "members": self.members,
                "rounds": [r.to_json() for r in self.rounds],
                "commits": self.offsets_committed, "abortedCommits": self.aborted_commits,
                "pendingCommits": dict(sorted(self.pending_commits.items())),
                "findings": [f.to_json() for f in self.findings], "earlierRounds": self.earlier_rounds}


def sort_rounds(rounds: list[Round]) -> list[Round]:
    return sorted(rounds, key=lambda r: (r.start if r.start is not None else float("inf"),
                                         r.generation if r.generation is not None else -1))
