"""Where each group stands, live: the commits the watch reads and the log ends the cluster answers (ListOffsets)
in, each group's lag and Burrow's status out, and a finding when a group starts falling behind, stops, stalls
or is rewound.

The same :class:`~kafka_meta.analysis.lag.LagState` that ``report`` fills from a log directory: here its commits
come from the watch's ``__consumer_offsets`` records (a ``read_committed`` consumer: an aborted transaction's
commits never arrive) and its log ends from ListOffsets answers, each at the moment it was asked, which is
also the index from offset to time that lag in seconds reads. The status is judged only once the watch has
caught up: while it reads a backlog the commits are old and the log ends new, and every group would look
stopped. A finding is told once per group and kind, and again only after the status cleared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kafka_meta.analysis.lag import GroupStanding
from kafka_meta.analysis.lag_feed import LagFeed, owner_in
from kafka_meta.analysis.lag_findings import lag_findings
from kafka_meta.analysis.timeline import GroupTimeline
from kafka_meta.live.catchup import Place
from kafka_meta.live.events import FINDING, Event


class LiveStanding:
    """The lag state of a watch, and which lag findings it has told."""

    def __init__(self) -> None:
        self.feed = LagFeed()  # handed every __consumer_offsets record the timeline reads (its observer)
        self.told: dict[str, set[str]] = {}  # group -> kinds of lag finding told and not cleared since

    def partitions(self, wanted: Callable[[str], bool]) -> list[Place]:
        """The user topics' partitions the groups watched have committed offsets of: whose log ends to ask."""
        return sorted({(topic, partition) for group, topic, partition in self.feed.state.commits if wanted(group)})

    def standings(self, at: float, timelines: Mapping[str, GroupTimeline]) -> dict[str, GroupStanding]:
        """Each group's table and status at the wall-clock ``at`` (the timelines name each partition's owner)."""
        return self.feed.state.standings(now_ms=int(at * 1000), owner=owner_in(timelines))

    def on_log_ends(self, ends: Mapping[Place, int], at: float, timelines: Mapping[str, GroupTimeline],
                    judge: bool, wanted: Callable[[str], bool]) -> list[Event]:
        """ListOffsets answers at ``at``; with ``judge`` (the watch has caught up), a ``finding`` event for
        each group's lag finding not told yet."""
        state = self.feed.state
        for (topic, partition), end in ends.items():
            state.log_end(topic, partition, end, ms=int(at * 1000))
        if not judge:
            return []
        events = []
        for group, standing in self.standings(at, timelines).items():
            if not wanted(group):
                continue
            found = lag_findings(standing, timelines.get(group))
            told = self.told.setdefault(group, set())
            told &= {f.kind for f in found}  # a status that cleared may be told again later
            for f in found:
                if f.kind in told:
                    continue
                told.add(f.kind)
                events.append(Event(FINDING, at, group, {
                    "finding": f.kind, "severity": f.severity, "summary": f.summary, "partitions": f.partitions,
                    "remedy": f.remedy.to_json() if f.remedy is not None else None}))
        return events

    def size(self) -> int:
        """What it holds: per partition a bounded window, history and offset index; per group its kinds told."""
        state = self.feed.state
        return (sum(c.held for c in state.commits.values())
                + sum(1 + len(e.times.offsets) for e in state.ends.values()) + len(state.group_last)
                + len(self.feed.in_force) + sum(len(k) for k in self.told.values()))


def total_lag(standing: GroupStanding | None) -> str:
    """The lag column of the live table: the records behind and Burrow's status ("-" before a log end)."""
    if standing is None or standing.total_lag is None:
        return "-"
    return f"{standing.total_lag:,} {standing.status.status}"

