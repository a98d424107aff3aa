"""Plain-language accounts of a captured group: who speaks which version, what the leader does about it, and
what each member does next ("3 members on v11, 1 on v7: the leader encodes v7 for everyone; ...").

The functions here work on facts (:class:`StreamsSubscription`, :class:`StreamsAssignment`, owned and
assigned partitions); :mod:`kafka_meta.negotiation.capture` turns captured bytes into those facts. When a
member's release is not given, it is inferred from the latest version its subscription advertises (the
first release speaking it), and the account says so.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_meta.negotiation.consumer_member import complete_join, describe_calls
from kafka_meta.negotiation.facts import StreamsAssignment, StreamsSubscription
from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.rebalance_protocol import (
    COOPERATIVE_STICKY,
    RebalanceProtocol,
    TopicPartition,
    handed_over_while_claimed,
    validation_runs,
)
from kafka_meta.negotiation.releases import Release
from kafka_meta.negotiation.static_membership import decide_restart
from kafka_meta.negotiation.streams_leader import LeaderDecision, Outcome, TaskPlan, decide_leader
from kafka_meta.negotiation.streams_member import Action, MemberDecision, Rejoin, decide_member
from kafka_meta.negotiation.streams_versions import (
    StreamsCode,
    describe_releases_speaking,
    releases_speaking,
    streams_code,
)
from kafka_meta.streams.protocol import UNKNOWN, AssignorError


@dataclass
class Explanation:
    """An account of one group: ``summary`` is one sentence, ``details`` the reasoning, ``data`` the facts."""

    kind: str
    summary: str
    details: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        return "\n".join([self.summary, *(f"  - {d}" for d in self.details)])


def release_for_latest(latest: int) -> Release | None:
    """The first release whose Streams code has this latest version (None: no release, or unknown)."""
    found = releases_speaking(latest)
    return found[0] if found else None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def census(versions: Iterable[int], word: str = "member") -> str:
    """``"3 members on v11, 1 on v7"``: most common version first."""
    counts = Counter(versions).most_common()
    parts = []
    for i, (version, n) in enumerate(sorted(counts, key=lambda c: (-c[1], -c[0]))):
        parts.append(f"{_plural(n, word) if i == 0 else n} on v{version}")
    return ", ".join(parts)


def _names(ids: Sequence[str]) -> str:
    return ", ".join(ids)


def _member_clause(ids: list[str], decision: MemberDecision) -> str:
    who = f"member {ids[0]}" if len(ids) == 1 else f"members {_names(ids)}"
    verb_s = len(ids) == 1
    if decision.action is Action.ACCEPT:
        return f"{who} keep{'s' if verb_s else ''} v{decision.next_version}" + (
            " and rejoin" + ("s" if verb_s else "") if decision.rebalances else "")
    if decision.action is Action.ERROR:
        return f"{who} stop{'s' if verb_s else ''} on error {AssignorError.describe(decision.error_code)}"
    if decision.action is Action.FAIL:
        return f"{who} fail{'s' if verb_s else ''}: {decision.failure}"
    if decision.action is Action.DOWNGRADE and decision.next_version == decision.used_version:
        text = f"{who} stay{'s' if verb_s else ''} on v{decision.next_version} but rejoin{'s' if verb_s else ''}"
    elif decision.action is Action.DOWNGRADE:
        text = f"{who} switch{'es' if verb_s else ''} to v{decision.next_version} and rejoin{'s' if verb_s else ''}"
    elif decision.rejoin is Rejoin.NEXT_REBALANCE:
        text = f"{who} upgrade{'s' if verb_s else ''} to v{decision.next_version} at the next rebalance"
    else:
        text = f"{who} upgrade{'s' if verb_s else ''} to v{decision.next_version} and rejoin{'s' if verb_s else ''}"
    if decision.next_subscription_failure is not None:
        text += f", then fail{'s' if verb_s else ''}: {decision.latest} is the newest version that code can write"
    return text


def explain_streams(
    subscriptions: Sequence[StreamsSubscription],
    assignments: Mapping[str, StreamsAssignment] | None = None,
    releases: Mapping[str, str] | None = None,
    leader: str | None = None,
) -> Explanation:
    """Explain a Streams group from its members' subscriptions (and assignments, when captured).

    ``releases`` maps member ids to their Kafka release where known; ``leader`` names the leader. Without
    a leader release, the lowest release consistent with the leader's advertised latest version is used
    (or, with no leader named, the newest code in the group, as a group keeps whoever led it).
    """
    if not subscriptions:
        raise NegotiationError("no subscriptions to explain")
    releases = dict(releases or {})
    details: list[str] = []
    inferred: dict[str, StreamsCode] = {}
    for s in subscriptions:
        latest = s.latest_supported_version if s.latest_supported_version != UNKNOWN else s.used_version
        if s.member_id in releases:
            code = streams_code(releases[s.member_id])
            if code.latest < s.used_version:
                raise NegotiationError(f"{s.member_id}: a {code} member cannot send version {s.used_version}")
            inferred[s.member_id] = code
            continue
        inferred[s.member_id] = streams_code(max(latest, s.used_version))
    guessed = [m for m in inferred if m not in releases]
    if guessed:
        groups: dict[str, list[str]] = {}
        for m in guessed:
            s = next(x for x in subscriptions if x.member_id == m)
            code = inferred[m]
            groups.setdefault(f"Kafka {describe_releases_speaking(code.latest)}" if not code.future else
                              f"{code}, newer than any release (it follows {code.release}'s rules)", []).append(m)
        for text, ids in groups.items():
            details.append(f"{_names(ids)}: release not given; {'its' if len(ids) == 1 else 'their'} "
                           f"subscription{'' if len(ids) == 1 else 's'} point{'s' if len(ids) == 1 else ''} to "
                           f"{text}")
    used = [s.used_version for s in subscriptions]
    head = census(used)
    lagging = [s for s in subscriptions if s.latest_supported_version > s.used_version]
    if lagging and len(set(used)) == 1:
        head += f" (latest supported: {census([s.latest_supported_version for s in subscriptions], 'member')})"
    leader_id = leader
    if leader_id is None:
        leader_id = max(inferred, key=lambda m: (inferred[m], m))
        details.append(f"leader not given: assuming {leader_id}, whose code is the newest")
    if leader_id not in inferred:
        raise NegotiationError(f"leader {leader_id!r} is not among the members of a known release")
    decision = decide_leader(inferred[leader_id], subscriptions)
    details.extend(decision.steps)
    def label(member_id: str) -> str:  # a release given, or the releases a guess stands for (not its first)
        code = inferred[member_id]
        return str(code) if member_id in releases or code.future else describe_releases_speaking(code.latest)

    leader_text = _leader_text(decision, leader_id, label(leader_id))
    clauses = [leader_text]
    member_decisions: dict[str, MemberDecision] = {}
    if decision.outcome is not Outcome.ASSIGN_FAILS:
        by_clause: dict[tuple[Any, ...], list[str]] = {}
        for s in subscriptions:
            captured = (assignments or {}).get(s.member_id)
            plan = decision.members[s.member_id]
            predicted = StreamsAssignment(plan.version, plan.commonly_supported_version, plan.error_code)
            if captured is not None and (captured.version, captured.commonly_supported_version,
                                         captured.error_code) != (plan.version, plan.commonly_supported_version,
                                                                  plan.error_code):
                details.append(f"{s.member_id}: the captured assignment (v{captured.version}, supported "
                               f"v{captured.commonly_supported_version}, error {captured.error_code}) differs from "
                               f"what a {inferred[leader_id]} leader writes (v{plan.version}, supported "
                               f"v{plan.commonly_supported_version}, error {plan.error_code}); the member is judged "
                               f"on the captured one")
            got = captured or predicted
            d = decide_member(inferred[s.member_id], s.used_version, got)
            member_decisions[s.member_id] = d
            details.append(f"{s.member_id} ({label(s.member_id)}): {d.reason}")
            if d.action is Action.ACCEPT and not d.rebalances and d.next_subscription_failure is None:
                continue
            key = (d.action, d.next_version, d.used_version, d.rejoin, str(d.failure), d.error_code,
                   str(d.next_subscription_failure))
            by_clause.setdefault(key, []).append(s.member_id)
        for ids in by_clause.values():
            clauses.append(_member_clause(ids, member_decisions[ids[0]]))
        if not by_clause:
            clauses.append("nobody changes version")
    summary = f"{head}: " + "; ".join(clauses)
    data = {
        "leader": leader_id,
        "leaderRelease": str(inferred[leader_id]),
        "outcome": decision.outcome.value,
        "minReceived": decision.min_received,
        "minSupported": decision.min_supported,
        "probing": decision.probing,
        "members": {
            s.member_id: {
                "release": str(inferred[s.member_id]) if s.member_id in inferred else None,
                "releaseGiven": s.member_id in releases,
                "usedVersion": s.used_version,
                "latestSupportedVersion": s.latest_supported_version,
                **({"assignmentVersion": decision.members[s.member_id].version,
                    "commonlySupportedVersion": decision.members[s.member_id].commonly_supported_version,
                    "errorCode": decision.members[s.member_id].error_code,
                    "tasks": decision.members[s.member_id].tasks.name} if s.member_id in decision.members else {}),
                **({"action": member_decisions[s.member_id].action.value,
                    "nextVersion": member_decisions[s.member_id].next_version,
                    "rejoin": member_decisions[s.member_id].rejoin.name} if s.member_id in member_decisions else {}),
            } for s in subscriptions
        },
    }
    if decision.failure is not None:
        data["failure"] = str(decision.failure)
    return Explanation("streams", summary, details, data)


def _leader_text(decision: LeaderDecision, leader_id: str, code: str) -> str:
    who = f"the leader ({leader_id}, {code})"
    if decision.outcome is Outcome.ASSIGN_FAILS:
        return f"{who} cannot assign: {decision.failure}"
    plans = list(decision.members.values())
    if decision.outcome is Outcome.ERROR_ASSIGNMENTS:
        code = plans[0].error_code
        text = f"{who} sends everyone error {AssignorError.describe(code)} at v{plans[0].version}"
        future = [p.member_id for p in plans if p.future]
        if future:
            text += (f"; no version probing for {_names(future)}: assign() returns the error assignments before "
                     f"it considers probing")
        return text
    empty = [p.member_id for p in plans if p.tasks is TaskPlan.EMPTY]
    normal = [p for p in plans if p.tasks is not TaskPlan.EMPTY]
    r = normal[0].version if normal else plans[0].version
    c = normal[0].commonly_supported_version if normal else plans[0].commonly_supported_version
    text = f"{who} encodes v{r} for everyone"
    if empty:
        text = (f"{who} probes: {_names(empty)} get{'s' if len(empty) == 1 else ''} an empty "
                f"v{decision.latest} assignment, the others keep their tasks at v{r}")
    if c != UNKNOWN and c != r:
        text += f", saying v{c} is supported by all"
    if decision.probing and not empty:
        pooled = [p.member_id for p in plans if p.tasks is TaskPlan.POOLED]
        text += f" ({_names(pooled)} pooled as one future client)"
    return text


# -- consumer groups --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ConsumerMember:
    """A classic consumer-group member as captured: its consumer-protocol version and partitions."""

    member_id: str
    subscription_version: int
    owned: frozenset[TopicPartition] = frozenset()
    assigned: frozenset[TopicPartition] | None = None
    generation: int = -1
    topics: frozenset[str] | None = None       # its subscription; None: the topics it owns or is assigned


_CONSUMER_VERSION_RELEASES = {0: "a release before 2.4", 1: "2.4 - 3.3", 2: "3.4+", 3: "3.4+"}


def explain_consumer(members: Sequence[ConsumerMember], assignor: str | None = None,
                     leader_release: str | None = None) -> Explanation:
    """Explain a plain consumer group: protocol versions, KIP-429 revocations, follow-ups, and whether a
    cooperative leader of ``leader_release`` would reject the captured assignment."""
    if not members:
        raise NegotiationError("no members to explain")
    head = census([m.subscription_version for m in members]) + " of the consumer protocol"
    details = [f"{m.member_id}: consumer protocol v{m.subscription_version} "
               f"({_CONSUMER_VERSION_RELEASES.get(m.subscription_version, 'newer than any known release')})"
               + (f", owns {_tps(m.owned)}" if m.owned else "") for m in members]
    clauses = []
    if assignor:
        clauses.append(f"assignor {assignor}")
    cooperative = [m.member_id for m in members if m.owned]
    if cooperative:
        one = len(cooperative) == 1
        details.append(f"{_names(cooperative)} report{'s' if one else ''} owned partitions: "
                       f"{'it rebalances' if one else 'they rebalance'} COOPERATIVE (KIP-429); EAGER members revoke "
                       f"everything before joining and report none")
    data: dict[str, Any] = {"assignor": assignor, "members": {}}
    if all(m.assigned is not None for m in members):
        owned = {m.member_id: m.owned for m in members}
        assigned = {m.member_id: m.assigned or frozenset() for m in members}
        conflicts = handed_over_while_claimed(owned, assigned)
        followups = []
        for m in members:
            target = assigned[m.member_id]
            revoked, added = m.owned - target, target - m.owned
            topics = m.topics if m.topics is not None else {t for t, _ in m.owned | target}
            done = complete_join(_protocol_of([m.member_id] if m.owned else []), m.owned, target, topics)
            data["members"][m.member_id] = {"revoked": _tps(revoked), "added": _tps(added),
                                            "callbacks": [str(c) for c in done.callbacks]}
            details.append(f"{m.member_id} after the SyncGroup: {describe_calls(done.callbacks) or 'no callback'}"
                           + (f" ({done.rejoin})" if done.rejoin and not revoked else ""))
            if revoked:
                followups.append(m.member_id)
                details.append(f"{m.member_id} revokes {_tps(revoked)} and rejoins (the follow-up rebalance)")
        if followups:
            clauses.append(f"{_names(followups)} revoke{'s' if len(followups) == 1 else ''} partitions and "
                           f"rejoin: a follow-up rebalance hands them over")
        if conflicts:
            text = f"{_tps(conflicts)} handed to a new owner while another member still claims it"
            if leader_release and assignor:
                runs, why = validation_runs(leader_release, _protocol_of(cooperative), assignor)
                text += (f"; a {leader_release} leader rejects this (IllegalStateException)" if runs else
                         f"; unchecked ({why}): two members may own it at once")
            elif assignor == COOPERATIVE_STICKY:
                text += "; cooperative-sticky never does this, so the assignment was not made by it"
            clauses.append(text)
        if not followups and not conflicts:
            clauses.append("the assignment is stable: nobody revokes anything")
    summary = f"{head}: " + "; ".join(clauses) if clauses else head
    return Explanation("consumer", summary, details, data)


def _protocol_of(cooperative: list[str]) -> RebalanceProtocol:
    return RebalanceProtocol.COOPERATIVE if cooperative else RebalanceProtocol.EAGER


def _tps(items: Iterable[TopicPartition]) -> str:
    return ", ".join(f"{t}-{p}" for t, p in sorted(items)) or "nothing"


# -- log lines ----------------------------------------------------------------------------------------------------

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"decode subscription data: used version:? (\d+); latest supported version:? (\d+)", re.I),
     "leader-future"),
    (re.compile(r"decode assignment data: used version:? (\d+); latest supported version:? (\d+)", re.I),
     "member-undecodable"),
    (re.compile(r"unknown metadata version:? (\d+); latest supported version:? (\d+)", re.I), "encode-too-new"),
    (re.compile(r"sent a version (\d+) subscription and got version (\d+) assignment back", re.I), "downgrade"),
    (re.compile(r"sent a version (\d+) subscription and group.s latest commonly supported version is (\d+)", re.I),
     "upgrade"),
    (re.compile(r"sent a version (\d+) subscription and group leader.s latest supported version is (\d+)", re.I),
     "upgrade-next"),
    (re.compile(r"future \(version probing\) subscription \(version: (\d+)\)\. Sending empty assignment back "
                r"\(with supported version (\d+)\)", re.I), "leader-empty"),
    (re.compile(r"used version:? (\d+); latest supported version:? (\d+)", re.I), "bare"),
]


def explain_message(text: str) -> list[str]:
    """What a Kafka Streams log or exception line about versions means (empty when none is recognised)."""
    for pattern, kind in _PATTERNS:
        m = pattern.search(text)
        if not m:
            continue
        a, b = int(m.group(1)), int(m.group(2))
        return _message(kind, a, b)
    return []


def _speakers(v: int) -> str:
    return describe_releases_speaking(v)


# The texts for each kind of "used version a; latest supported version b" line, kept as data beside this
# module: prose with {a}, {b} and the releases speaking each ({a_releases}, {b_releases}) filled in.
MESSAGES: dict[str, list[str]] = json.loads(Path(__file__).with_name("version_messages.json").read_text("utf-8"))


def _message(kind: str, a: int, b: int) -> list[str]:
    return [line.format(a=a, b=b, a_releases=_speakers(a), b_releases=_speakers(b)) for line in MESSAGES[kind]]


# -- restarts ----------------------------------------------------------------------------------------------------

def explain_restart(member_release: str, instance_id: str | None, downtime_ms: int = 0,
                    session_timeout_ms: int | None = None, protocol_changes: bool = False) -> Explanation:
    """What restarting one member costs its group: static membership (KIP-345) against a dynamic member."""
    d = decide_restart(member_release, instance_id, downtime_ms, session_timeout_ms, protocol_changes)
    summary = {0: "no rebalance", 1: "one rebalance", 2: "two rebalances"}[d.rebalances] + f": {d.reason}"
    details = [] if d.static else ["set group.instance.id to make restarts within the session timeout free"]
    return Explanation("restart", summary, details, {"static": d.static, "expired": d.expired,
                                                     "rebalances": d.rebalances,
                                                     "keepsAssignment": d.keeps_assignment})
