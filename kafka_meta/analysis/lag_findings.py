"""Findings from where each group stands: Burrow's WARN and ERR said as an operator needs them, beside the
rebalance story that may explain them.

Burrow tells a status and the rule that fired; it cannot say that the lag rose while the group was
rebalancing. The timeline can: each finding here counts the group's rounds within the window the status was
judged on (from the first of the partition's last commits to the end of the input) and how long they took,
names the member that owns the partition (client id and host), and says what to change
(:class:`~kafka_meta.analysis.remedies.Remedy`). Severity follows what it costs: a consumer that stopped or
stalls leaves its records unread (critical); one falling behind, or rewound to read records again, is a
warning.
"""

from __future__ import annotations

from kafka_meta.analysis.assemble import Timeline
from kafka_meta.analysis.burrow import REWIND, STALL, STOP, WARN
from kafka_meta.analysis.findings import Finding
from kafka_meta.analysis.lag import GroupStanding, PartitionStanding
from kafka_meta.analysis.member_names import host_of, member_label
from kafka_meta.analysis.remedies import Remedy
from kafka_meta.analysis.timeline import GroupTimeline

KINDS = {WARN: ("falling-behind", "warning"), STOP: ("stopped-consumer", "critical"),
         STALL: ("stalled-consumer", "critical"), REWIND: ("rewound-offset", "warning")}
SHOWN = 5  # partitions named in a summary; the rest counted


def _names(parts: list[PartitionStanding]) -> str:
    shown = ", ".join(p.name for p in parts[:SHOWN])
    return shown + (f" (+{len(parts) - SHOWN})" if len(parts) > SHOWN else "")


def _owner(p: PartitionStanding) -> str | None:
    if p.member is None and p.client_id is None:
        return None
    label = member_label(p.member, p.client_id)
    return f"{label} on {host_of(p.host)}" if p.host else label


def _rebalancing(tl: GroupTimeline | None, since_ms: int | None) -> str:
    """The rounds the group went through since ``since_ms``, and how long they took, in words ("" if none)."""
    if tl is None or since_ms is None:
        return ""
    rounds = [r for r in tl.rounds if r.start is not None and r.start * 1000 >= since_ms and r.members]
    if not rounds:
        return ""
    took = sum((r.duration_ms or 0.0) for r in rounds) / 1000
    spent = f", {took:.1f} s of rebalancing" if took >= 0.05 else ""
    return f"; meanwhile the group rebalanced {len(rounds)} time(s){spent}"


def _window_start(parts: list[PartitionStanding]) -> int | None:
    """When the window judged began: the earliest first commit of the named partitions' windows."""
    return min((p.window_ms for p in parts if p.window_ms is not None), default=None)


def _lag_words(parts: list[PartitionStanding]) -> str:
    records = sum(p.lag_records or 0 for p in parts)
    seconds = max((p.lag_seconds for p in parts if p.lag_seconds is not None), default=None)
    return f"{records:,} record(s) behind" + (f", the oldest unread {seconds:.1f} s old" if seconds else "")


def _remedy(status: str, parts: list[PartitionStanding], standing: GroupStanding, tl: GroupTimeline | None
            ) -> Remedy | None:
    owner = next((o for o in map(_owner, parts) if o), None)
    clients = (owner,) if owner else ()
    if status == WARN:
        members = len({p.member for p in standing.partitions if p.member})
        return Remedy(("max.poll.records", "consumers in the group"),
                      f"the group reads slower than its topics are written: add consumers (it has {members} for "
                      f"{len(standing.partitions)} partition(s); more than one per partition stay idle) or make "
                      "each poll's work cheaper", clients)
    if status == STOP:
        interval = None
        if tl is not None:
            member = next((m for r in reversed(tl.rounds) for m in r.members
                           if m.member_id == parts[0].member and m.rebalance_timeout_ms), None)
            interval = member.rebalance_timeout_ms if member is not None else None
        now = f" (now {interval} ms)" if interval else ""
        return Remedy(("max.poll.interval.ms",),
                      "the consumer stopped committing but is still a member: its heartbeats keep its partitions "
                      f"until its poll loop runs past max.poll.interval.ms{now}. Look at what blocks its poll loop "
                      "(a paused partition, a blocked call); restarting it hands its partitions over", clients)
    if status == STALL:
        return Remedy(("the record at the committed offset",),
                      f"commits repeat offset {parts[0].offset} of {parts[0].name}: the consumer retries one record "
                      "(a message it cannot process); look at that record, skip or dead-letter it", clients)
    return None


def lag_findings(standing: GroupStanding, tl: GroupTimeline | None) -> list[Finding]:
    """The finding of one group's Burrow status, or none when it is OK."""
    worst = {p.name: p for p in standing.partitions}
    parts = [worst[name] for name in standing.status.partitions if name in worst]
    if not parts:
        return []
    status = parts[0].evaluation.status
    if status not in KINDS:
        return []
    kind, severity = KINDS[status]
    rule = parts[0].evaluation.rule
    owner = _owner(parts[0])
    whose = f"; {owner} owns {parts[0].name}" if owner else ""
    if status == REWIND:
        summary = f"committed offset rewound on {_names(parts)} ({rule}): records are read again{whose}"
    elif status == WARN:
        summary = f"falling behind on {_names(parts)}: {rule}; {_lag_words(parts)}{whose}"
    elif status == STOP:
        summary = f"consumer stopped on {_names(parts)}: {rule}; {_lag_words(parts)}{whose}"
    else:
        summary = f"consumer stalled on {_names(parts)}: {rule}{whose}"
    summary += _rebalancing(tl, _window_start(parts))
    last = max((p.committed_ms for p in parts if p.committed_ms is not None), default=None)
    return [Finding(kind, severity, standing.group, summary, ts=None if last is None else last / 1000,
                    member=parts[0].member, generations=sorted({p.generation for p in parts
                                                                 if p.generation is not None}),
                    partitions=[p.name for p in parts], remedy=_remedy(status, parts, standing, tl))]


def judge_standings(timeline: Timeline, standings: dict[str, GroupStanding]) -> None:
    """Each group's lag finding joins its timeline's findings (a group known only from its commits gets a
    timeline of its own), and the groups are sorted by trouble again."""
    for name, standing in sorted(standings.items()):
        found = lag_findings(standing, timeline.group(name))
        if not found:
            continue
        tl = timeline.group(name)
        if tl is None:
            tl = GroupTimeline(name)
            timeline.groups.append(tl)
        tl.findings.extend(found)
    timeline.groups.sort(key=lambda g: (-g.trouble, g.group))
