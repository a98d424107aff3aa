"""Findings: what in a group's timeline needs a person's attention, said in plain words, with the evidence.

Each rule reads one group's rounds and commits and returns findings; a finding names the time, the member
and where the bytes came from (a packet of a capture, a record of the log), so an operator can go and look.
Thresholds are explicit (:class:`Thresholds`) and printed in the reports, not buried in the rules.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.analysis.causes import INVOLUNTARY, KINDS
from kafka_meta.analysis.codes import FENCED, error_name
from kafka_meta.analysis.member_names import member_label
from kafka_meta.analysis.remedies import (
    Remedy,
    crash_remedy,
    eager_pause_remedy,
    storm_remedy,
    stuck_upgrade_remedy,
)
from kafka_meta.analysis.timeline import Evidence, GroupTimeline, Round, TopicPartition, tp_label

SEVERITY_WEIGHT = {"critical": 100, "warning": 10, "info": 1}


@dataclass(frozen=True)
class Thresholds:
    storm_rounds: int = 3  # this many rounds ...
    storm_window_s: float = 300.0  # ... within this many seconds make a storm (a healthy group rebalances
    # when a member comes or goes, rarely three times in five minutes)
    eager_pause_ms: float = 5000.0  # an eager round stopping the world longer than this is reported
    stuck_rounds: int = 2  # mixed metadata versions across more rounds than this: the upgrade is stuck


@dataclass
class Finding:
    kind: str  # "storm", "churn", "join-unfinished", "capture-ended", "eager-pause", "ownership-conflict",
    # "stuck-upgrade", "upgrade-finished", "undecodable-metadata", "zombie-commit", "aborted-commits",
    # "hanging-transaction", "fenced-producer", "crashed-member"
    severity: str  # "critical", "warning", "info"
    group: str
    summary: str  # one sentence
    ts: float | None = None
    member: str | None = None
    generations: list[int] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    transactional_id: str | None = None  # a transaction's finding: whose ("group" then names it or a partition)
    partitions: list[str] = field(default_factory=list)  # the partitions it concerns, as topic-partition labels
    remedy: Remedy | None = None  # what to change, where the traffic shows it (kafka_meta.analysis.remedies)

    @property
    def weight(self) -> int:
        return SEVERITY_WEIGHT.get(self.severity, 1)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "severity": self.severity, "group": self.group, "summary": self.summary,
                "ts": self.ts, "member": self.member, "generations": self.generations,
                "evidence": [e.to_json() for e in self.evidence], "transactionalId": self.transactional_id,
                "partitions": self.partitions, "remedy": self.remedy.to_json() if self.remedy else None}


def _gens(rounds: list[Round]) -> list[int]:
    return [r.generation for r in rounds if r.generation is not None]


def _densest(rounds: list[Round], window_s: float) -> list[Round]:
    """The most rounds that fit in one window of ``window_s`` seconds (rounds in time order)."""
    best: list[Round] = []
    lo = 0
    for hi, r in enumerate(rounds):
        while (r.start or 0.0) - (rounds[lo].start or 0.0) > window_s:
            lo += 1
        if hi - lo + 1 > len(best):
            best = rounds[lo:hi + 1]
    return best


def _causes_text(rounds: list[Round], kinds: frozenset[str] | None = None) -> str:
    counted = Counter(KINDS.get(c.kind, c.kind) for r in rounds for c in r.causes if kinds is None or c.kind in kinds)
    return ", ".join(f"{cause} x{n}" if n > 1 else cause for cause, n in counted.most_common())


def storms(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Rounds nobody asked for, again and again: members expiring, timing out their poll, rejoining with
    nothing changed. A storm does not stop by itself. Rounds explained by members deliberately joining,
    leaving or restarting are churn (a deploy, a scale-out): reported as information, not trouble. The second
    half of a rebalance (a cooperative follow-up, a version-probing rejoin) belongs to the first and is not
    counted again."""
    timed = sorted([r for r in tl.rounds if r.start is not None and r.source == "capture"] or [
        r for r in tl.rounds if r.start is not None], key=lambda r: r.start or 0.0)
    counted = [r for r in timed if r.kind != "continuation" and r.members]  # not a group's creation or emptying
    involuntary = _densest([r for r in counted if r.kind == "involuntary"], t.storm_window_s)
    if len(involuntary) >= t.storm_rounds:
        span = (involuntary[-1].start or 0.0) - (involuntary[0].start or 0.0)
        incremental = all(m.epoch is not None for r in involuntary for m in r.members)  # KIP-848: nobody stops
        remedy = storm_remedy(involuntary, tl.rounds)
        return [Finding("storm", "warning" if incremental else "critical", tl.group,
                        f"rebalance storm: {len(involuntary)} rounds in {span:.0f} s that nobody asked for "
                        f"({_causes_text(involuntary, INVOLUNTARY)})"
                        + (f", set off by {', '.join(remedy.clients)}" if remedy and remedy.clients else "")
                        + (" (KIP-848 epochs: members kept consuming what they were not asked to give up)"
                           if incremental else ""),
                        ts=involuntary[0].start, member=involuntary[0].trigger_member, generations=_gens(involuntary),
                        evidence=[r.evidence for r in involuntary if r.evidence is not None], remedy=remedy)]
    busy = _densest(counted, t.storm_window_s)
    if len(busy) >= t.storm_rounds:
        span = (busy[-1].start or 0.0) - (busy[0].start or 0.0)
        unasked = sum(r.kind == "involuntary" for r in busy)
        return [Finding("churn", "info", tl.group,
                        f"membership churn: {len(busy)} rounds in {span:.0f} s ({_causes_text(busy)}); not a storm: "
                        + (f"only {unasked} of them came without a member deliberately joining, leaving or restarting"
                           if unasked else "each came with a member deliberately joining, leaving or restarting"),
                        ts=busy[0].start,
                        generations=_gens(busy), evidence=[r.evidence for r in busy if r.evidence is not None])]
    return []


def unfinished_joins(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Members that joined a round but never got their assignment: they are not consuming. A round the
    capture ends in the middle of is said to be just that (nothing is known to be wrong with it)."""
    out = []
    for r in tl.rounds:
        if r.source != "capture" or r.complete or r.superseded:
            continue  # a round the next one overtook: its members went on to that one
        stuck = [m for m in r.members if m.synced_at is None and m.joined_at is not None]
        if not stuck:
            continue
        names = ", ".join(member_label(m.member_id, m.client_id) if m.member_id else f"{m.client_id} (no member id yet)"
                          for m in stuck)
        round_name = f"generation {r.generation}" if r.generation is not None else "a round not yet numbered"
        if r.cut_off:
            out.append(Finding("capture-ended", "info", tl.group,
                               f"the capture ends during {round_name}: {len(stuck)} member(s) still waiting for "
                               f"their assignment ({names})", ts=r.start, member=stuck[0].member_id,
                               generations=_gens([r]), evidence=[m.evidence for m in stuck if m.evidence]))
            continue
        if any(m.epoch is not None for m in stuck):  # KIP-848: no barrier, members reconcile on their own
            out.append(Finding("join-unfinished", "warning", tl.group,
                               f"{len(stuck)} member(s) never reconciled with their target assignment at epoch "
                               f"{r.generation}: {names}", ts=r.start, member=stuck[0].member_id,
                               generations=_gens([r]), evidence=[m.evidence for m in stuck if m.evidence]))
            continue
        unanswered = [m for m in stuck if "JoinGroup never answered" in m.errors]
        refused = sorted({e.split("answered ", 1)[1] for m in stuck for e in m.errors
                          if e.startswith("SyncGroup answered")})
        why = "its JoinGroup was never answered" if len(unanswered) == len(stuck) == 1 else (
            "their JoinGroup was never answered" if len(unanswered) == len(stuck) else
            f"SyncGroup refused: {', '.join(refused)}" if refused else "no SyncGroup answer")
        out.append(Finding("join-unfinished", "warning", tl.group,
                           f"{len(stuck)} member(s) never finished joining {round_name} ({why}): {names}",
                           ts=min(m.joined_at or 0.0 for m in stuck), member=stuck[0].member_id,
                           generations=_gens([r]), evidence=[m.evidence for m in stuck if m.evidence]))
    return out


def eager_pauses(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Eager assignors revoke everything at every round: the round's length is the group's outage."""
    out = []
    for i, r in enumerate(tl.rounds):
        if _nothing_was_running(r, tl.rounds[i - 1] if i else None):
            continue  # the group's first generation (its members wait out group.initial.rebalance.delay.ms)
        if r.eager and r.duration_ms is not None and r.duration_ms > t.eager_pause_ms:
            out.append(Finding("eager-pause", "warning", tl.group,
                               f"eager round (generation {r.generation}, {r.protocol}) stopped all "
                               f"{len(r.members)} members for {r.duration_ms / 1000:.1f} s "
                               f"(threshold {t.eager_pause_ms / 1000:.0f} s)",
                               ts=r.start, member=r.trigger_member, generations=_gens([r]),
                               evidence=[r.evidence] if r.evidence else [], remedy=eager_pause_remedy(r)))
    return out


def _nothing_was_running(r: Round, previous: Round | None) -> bool:
    """Nobody held a partition before the round: a stop-the-world round with nothing to stop."""
    if r.generation == 1:
        return True
    return previous is not None and not any(m.assigned for m in previous.members)


def ownership_conflicts(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """KIP-429: a partition may be claimed by one member only, and handed to another only once revoked."""
    out = []
    for r in tl.rounds:
        if r.protocol not in ("cooperative-sticky", "stream"):
            continue
        claims: dict[TopicPartition, list[str]] = defaultdict(list)
        for m in r.members:
            for tp in m.owned or set():
                claims[tp].append(m.member_id)
        problems = [f"{tp_label(tp)} claimed by {' and '.join(sorted(ids))}" for tp, ids in sorted(claims.items())
                    if len(ids) > 1]
        for m in r.members:
            for tp in sorted(m.assigned or set()):
                others = [i for i in claims.get(tp, []) if i != m.member_id]
                if others:
                    problems.append(f"{tp_label(tp)} handed to {m.member_id} while {', '.join(sorted(others))} "
                                    "still owns it")
        if problems:
            out.append(Finding("ownership-conflict", "critical", tl.group,
                               f"cooperative ownership conflict in generation {r.generation}: "
                               + "; ".join(problems), ts=r.start, generations=_gens([r]),
                               evidence=[r.evidence] if r.evidence else []))
    return out


def stuck_upgrades(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Mixed metadata versions are normal during one round of a rolling upgrade, not across several. A run
    of mixed rounds followed by a round where everyone is on the newest version is an upgrade that finished
    (said, as information); anything else is stuck."""
    runs: list[list[Round]] = [[]]
    for r in tl.rounds:
        if len(r.versions) > 1:
            runs[-1].append(r)
        elif runs[-1]:
            runs.append([])
    out = []
    for run in runs:
        if not run:
            continue
        last = run[-1]
        mix = ", ".join(f"{v} x{n}" for v, n in sorted(last.versions.items()))
        after = tl.rounds[tl.rounds.index(last) + 1] if last is not tl.rounds[-1] else None
        newest = max(_version_key(m) for m in last.members if m.versions != "-")
        if after is not None and after.versions and all(_version_key(m) == newest for m in after.members
                                                         if m.versions != "-"):
            out.append(Finding("upgrade-finished", "info", tl.group,
                               f"upgrade finished: mixed versions ({mix}) for {len(run)} round(s), then everyone on "
                               f"{next(iter(after.versions))} from generation {after.generation}",
                               ts=run[0].start, generations=[*_gens(run), *_gens([after])],
                               evidence=[r.evidence for r in (*run, after) if r.evidence is not None]))
            continue
        behind = _behind(last)
        named = ", ".join(member_label(m.member_id, m.client_id) for b in behind for m in last.members
                          if m.member_id == b)
        if len(run) >= t.stuck_rounds or (after is None and last.source == "offsets"):
            rounds_text = f"{len(run)} rounds" if len(run) > 1 else "the last recorded generation"
            then = "" if after is None else f"; then {', '.join(sorted(after.versions)) or 'no member'} only"
            out.append(Finding("stuck-upgrade", "critical" if len(run) >= t.stuck_rounds else "warning", tl.group,
                               f"upgrade stuck half-way: members disagree on metadata versions for {rounds_text} "
                               f"({mix}){then}" + (f"; behind: {named}" if behind else "")
                               + (f". {last.explanation[0]}" if last.explanation else ""),
                               ts=run[0].start, member=behind[0] if behind else None, generations=_gens(run),
                               evidence=[r.evidence for r in run if r.evidence is not None],
                               remedy=stuck_upgrade_remedy(tl.kind == "streams" or any(
                                   m.streams_version is not None for m in last.members), tuple(
                                   member_label(m.member_id, m.client_id) for b in behind for m in last.members
                                   if m.member_id == b))))
    return out


def _version_key(m: Any) -> tuple[int, int]:
    return (m.streams_latest if m.streams_latest is not None else m.streams_version or 0,
            m.subscription_version or 0)


def _behind(r: Round) -> list[str]:
    """Members on the oldest versions of a mixed round (the ones to look at)."""
    versioned = [m for m in r.members if m.versions != "-"]
    if not versioned:
        return []
    low = min(_version_key(m) for m in versioned)
    return [m.member_id for m in versioned if _version_key(m) == low]


def undecodable(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Member metadata that does not decode: a client writing something no reader here understands."""
    out = []
    for r in tl.rounds:
        for m in r.members:
            for e in m.errors:
                if e.startswith(("subscription", "assignment", "user data")) or "Info" in e.split(":")[0]:
                    out.append(Finding("undecodable-metadata", "warning", tl.group,
                                       f"metadata of {member_label(m.member_id, m.client_id)} in generation "
                                       f"{r.generation} does not decode: {e}",
                                       ts=r.start, member=m.member_id, generations=_gens([r]),
                                       evidence=[x for x in (m.evidence or r.evidence,) if x is not None]))
    return out


def zombie_commits(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Commits from a member the group no longer has: one it expired or that timed out, still processing
    partitions that now belong to someone else. A commit refused during a rebalance from a member that is
    still in the group (its generation moved on a moment before it heard) is the ordinary race of a
    rebalance, retried after it, and shows in the round's errors instead."""
    out = []
    captured = sorted((r for r in tl.rounds if r.source == "capture" and r.generation is not None
                       and r.start is not None), key=lambda r: r.start or 0.0)
    finished = [r for r in captured if r.complete and r.end is not None]
    for c in tl.commits:
        if c.generation is None or c.ts is None or c.evidence is None or c.evidence.frame is None:
            continue  # only captured commits carry the generation the member claimed
        current = max((r.generation for r in finished if r.end <= c.ts), default=None)  # type: ignore[operator]
        fenced = {code: n for code, n in c.error_codes.items() if code in FENCED}
        stale = current is not None and c.generation < current
        if not (stale or fenced) or _still_a_member(captured, c.member_id, c.ts):
            continue
        why = f"generation {c.generation} while the group was at {current}" if stale else f"generation {c.generation}"
        refused = f"; refused: {', '.join(error_name(code) for code in sorted(fenced))}" if fenced else ""
        out.append(Finding("zombie-commit", "critical", tl.group,
                           f"commit from a member no longer in the group (fenced zombie): {c.member_id} committed "
                           f"{c.partitions} partition(s) with {why}{refused}", ts=c.ts, member=c.member_id,
                           generations=[c.generation], evidence=[c.evidence]))
    return out


def _still_a_member(rounds: list[Round], member_id: str | None, ts: float) -> bool:
    """Whether the member is in the round in force at ``ts`` or in the next one (a rebalance in progress)."""
    if not member_id:
        return False
    before = [r for r in rounds if (r.start or 0.0) <= ts]
    after = [r for r in rounds if (r.start or 0.0) > ts]
    nearby = before[-1:] + after[:1]
    return any(r.member(member_id) is not None for r in nearby)


def aborted_commits(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Offsets committed inside transactions that aborted: the coordinator never applied them, so the group
    resumes from its offsets committed before (its consumers re-read what those transactions had consumed,
    which is what exactly-once means; many of them say a producer keeps failing its transactions)."""
    if not tl.aborted_commits:
        return []
    n = tl.aborted_commits
    return [Finding("aborted-commits", "info", tl.group,
                    f"{n} offset commit{'s' if n > 1 else ''} of aborted transactions never took effect: the group "
                    "resumes from the offsets committed before them, and its transactional producer re-processes "
                    "those records")]


UNOWNED_WARNING_S = 5.0  # a crashed member's partitions unowned longer than this is a warning


def crashed_members(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """A member that expired or was fenced (it crashed, was killed, or hung) leaves its partitions without an
    owner until the coordinator gives up on it: its session timeout, not a rebalance, is the cost. Said with
    the time its partitions went unowned and for how long; a short one (a fast handover) stays information."""
    cost = tl.unowned
    if cost is None:
        return []
    out = []
    by_member: dict[tuple[int, str], list[Any]] = defaultdict(list)
    for i, gaps in cost.by_round.items():
        for g in gaps:
            if g.how == "expiry":
                by_member[(i, g.released_by)].append(g)
    for (i, member), gaps in sorted(by_member.items(), key=lambda kv: kv[1][0].start):
        r = tl.rounds[i]
        longest = max(g.seconds for g in gaps)
        total = sum(g.seconds for g in gaps)
        m = next((pm for rr in tl.rounds for pm in rr.members if pm.member_id == member), None)
        who = member_label(member, m.client_id if m is not None else None)
        unit = "epoch" if r.members and r.members[0].epoch is not None else "generation"
        bound = "at least " if any(g.bound == "at least" for g in gaps) else ""
        out.append(Finding("crashed-member", "warning" if longest > UNOWNED_WARNING_S else "info", tl.group,
                           f"{who} went without leaving (expired or fenced): its {len(gaps)} partition(s) had no "
                           f"owner from {_clock(gaps[0].start)} for {bound}{longest:.1f} s while the coordinator "
                           f"waited out its session timeout, until it gave them to others in {unit} {r.generation} "
                           f"({total:.1f} partition-s)",
                           ts=gaps[0].start, member=member, generations=_gens([r]),
                           evidence=[r.evidence] if r.evidence else [],
                           partitions=[tp_label(g.partition) for g in gaps],
                           remedy=crash_remedy(m, kip848=unit == "epoch") if longest > UNOWNED_WARNING_S else None))
    return out


def _clock(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%H:%M:%S.%f")[:-3]


RULES = (storms, unfinished_joins, eager_pauses, ownership_conflicts, stuck_upgrades, undecodable, zombie_commits,
         aborted_commits, crashed_members)


def find(tl: GroupTimeline, thresholds: Thresholds | None = None) -> list[Finding]:
    """Every rule's findings for one group, most severe first, then in time order."""
    t = thresholds or Thresholds()
    found = [f for rule in RULES for f in rule(tl, t)]
    return sorted(found, key=lambda f: (-f.weight, f.ts if f.ts is not None else float("inf")))
