"""Findings: what in a group's timeline needs a person's attention, said in plain words, with the evidence.

Each rule reads one group's rounds and commits and returns findings; a finding names the time, the member
and where the bytes came from (a packet of a capture, a record of the log), so an operator can go and look.
Thresholds are explicit (:class:`Thresholds`) and printed in the reports, not buried in the rules.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.analysis.codes import FENCED, error_name
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
    kind: str  # "storm", "join-unfinished", "eager-pause", "ownership-conflict", "stuck-upgrade",
    # "upgrade-finished", "undecodable-metadata", "zombie-commit"
    severity: str  # "critical", "warning", "info"
    group: str
    summary: str  # one sentence
    ts: float | None = None
    member: str | None = None
    generations: list[int] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def weight(self) -> int:
        return SEVERITY_WEIGHT.get(self.severity, 1)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "severity": self.severity, "group": self.group, "summary": self.summary,
                "ts": self.ts, "member": self.member, "generations": self.generations,
                "evidence": [e.to_json() for e in self.evidence]}


def _gens(rounds: list[Round]) -> list[int]:
    return [r.generation for r in rounds if r.generation is not None]


def storms(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """N rounds within a window: the group spends its time rebalancing instead of consuming."""
    timed = sorted([r for r in tl.rounds if r.start is not None and r.source == "capture"] or [
        r for r in tl.rounds if r.start is not None], key=lambda r: r.start or 0.0)
    best: list[Round] = []
    lo = 0
    for hi, r in enumerate(timed):
        while r.start - timed[lo].start > t.storm_window_s:  # type: ignore[operator]
            lo += 1
        if hi - lo + 1 > len(best):
            best = timed[lo:hi + 1]
    if len(best) < t.storm_rounds:
        return []
    span = (best[-1].start or 0.0) - (best[0].start or 0.0)
    incremental = all(m.epoch is not None for r in best for m in r.members)  # KIP-848: nobody stops
    causes = Counter(c.split(":")[0] for r in best for c in r.triggers)
    text = ", ".join(f"{cause} x{n}" if n > 1 else cause for cause, n in causes.most_common())
    return [Finding("storm", "warning" if incremental else "critical", tl.group,
                    f"rebalance storm: {len(best)} rounds in {span:.0f} s ({text})"
                    + (" (KIP-848 epochs: members kept consuming what they were not asked to give up)"
                       if incremental else ""),
                    ts=best[0].start, generations=_gens(best),
                    evidence=[r.evidence for r in best if r.evidence is not None])]


def unfinished_joins(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Members that joined a round but never got their assignment: they are not consuming."""
    out = []
    for r in tl.rounds:
        if r.source != "capture" or r.complete:
            continue
        stuck = [m for m in r.members if m.synced_at is None and m.joined_at is not None]
        if not stuck:
            continue
        if any(m.epoch is not None for m in stuck):  # KIP-848: no barrier, members reconcile on their own
            names = ", ".join(m.member_id for m in stuck)
            out.append(Finding("join-unfinished", "warning", tl.group,
                               f"{len(stuck)} member(s) never reconciled with their target assignment at epoch "
                               f"{r.generation}: {names}", ts=r.start, member=stuck[0].member_id,
                               generations=_gens([r]), evidence=[m.evidence for m in stuck if m.evidence]))
            continue
        unanswered = [m for m in stuck if "JoinGroup never answered" in m.errors]
        why = "its JoinGroup was never answered" if len(unanswered) == len(stuck) == 1 else (
            "their JoinGroup was never answered" if len(unanswered) == len(stuck) else "no SyncGroup answer")
        round_name = f"generation {r.generation}" if r.generation is not None else "an unfinished round"
        names = ", ".join(m.member_id or f"{m.client_id} (no member id yet)" for m in stuck)
        out.append(Finding("join-unfinished", "warning", tl.group,
                           f"{len(stuck)} member(s) never finished joining {round_name} ({why}): {names}",
                           ts=min(m.joined_at or 0.0 for m in stuck), member=stuck[0].member_id,
                           generations=_gens([r]), evidence=[m.evidence for m in stuck if m.evidence]))
    return out


def eager_pauses(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Eager assignors revoke everything at every round: the round's length is the group's outage."""
    out = []
    for r in tl.rounds:
        if r.eager and r.duration_ms is not None and r.duration_ms > t.eager_pause_ms:
            out.append(Finding("eager-pause", "warning", tl.group,
                               f"eager round (generation {r.generation}, {r.protocol}) stopped all "
                               f"{len(r.members)} members for {r.duration_ms / 1000:.1f} s "
                               f"(threshold {t.eager_pause_ms / 1000:.0f} s)",
                               ts=r.start, member=r.trigger_member, generations=_gens([r]),
                               evidence=[r.evidence] if r.evidence else []))
    return out


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
        if len(run) >= t.stuck_rounds or (after is None and last.source == "offsets"):
            rounds_text = f"{len(run)} rounds" if len(run) > 1 else "the last recorded generation"
            then = "" if after is None else f"; then {', '.join(sorted(after.versions)) or 'no member'} only"
            out.append(Finding("stuck-upgrade", "critical" if len(run) >= t.stuck_rounds else "warning", tl.group,
                               f"upgrade stuck half-way: members disagree on metadata versions for {rounds_text} "
                               f"({mix}){then}" + (f"; behind: {', '.join(behind)}" if behind else "")
                               + (f". {last.explanation[0]}" if last.explanation else ""),
                               ts=run[0].start, member=behind[0] if behind else None, generations=_gens(run),
                               evidence=[r.evidence for r in run if r.evidence is not None]))
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
                                       f"metadata of {m.member_id} in generation {r.generation} does not decode: {e}",
                                       ts=r.start, member=m.member_id, generations=_gens([r]),
                                       evidence=[x for x in (m.evidence or r.evidence,) if x is not None]))
    return out


def zombie_commits(tl: GroupTimeline, t: Thresholds) -> list[Finding]:
    """Commits from a generation the group had already left behind (or refused as fenced): a zombie member
    still processing partitions that now belong to someone else."""
    out = []
    finished = [r for r in tl.rounds if r.source == "capture" and r.complete and r.end is not None
                and r.generation is not None]
    for c in tl.commits:
        if c.generation is None or c.ts is None or c.evidence is None or c.evidence.frame is None:
            continue  # only captured commits carry the generation the member claimed
        current = max((r.generation for r in finished if r.end <= c.ts), default=None)  # type: ignore[operator]
        fenced = {code: n for code, n in c.error_codes.items() if code in FENCED}
        if (current is not None and c.generation < current) or fenced:
            why = (f"generation {c.generation} while the group was at {current}" if current is not None
                   and c.generation < current else f"generation {c.generation}")
            refused = f"; refused: {', '.join(error_name(code) for code in sorted(fenced))}" if fenced else ""
            out.append(Finding("zombie-commit", "critical", tl.group,
                               f"commit from an old generation (fenced zombie): {c.member_id} committed "
                               f"{c.partitions} partition(s) with {why}{refused}", ts=c.ts, member=c.member_id,
                               generations=[c.generation], evidence=[c.evidence]))
    return out


RULES = (storms, unfinished_joins, eager_pauses, ownership_conflicts, stuck_upgrades, undecodable, zombie_commits)


def find(tl: GroupTimeline, thresholds: Thresholds | None = None) -> list[Finding]:
    """Every rule's findings for one group, most severe first, then in time order."""
    t = thresholds or Thresholds()
    found = [f for rule in RULES for f in rule(tl, t)]
    return sorted(found, key=lambda f: (-f.weight, f.ts if f.ts is not None else float("inf")))
