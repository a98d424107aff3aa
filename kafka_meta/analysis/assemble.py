"""One timeline from every source: captured exchanges and ``__consumer_offsets`` rows, merged per group,
with the findings, groups sorted by trouble. The report (:class:`~kafka_meta.analysis.report.AnalysisReport`) carries it
to every face.

A generation seen both in a capture and in the log is one round: the capture's (it knows who joined when,
and why) is kept; the log's commits for it are added.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.analysis.findings import Finding, Thresholds, find
from kafka_meta.analysis.generations import CommitCount, RecordObserver, add_commit_counts, build_generations
from kafka_meta.analysis.rounds import build_timelines
from kafka_meta.analysis.timeline import GroupTimeline, sort_rounds
from kafka_meta.analysis.transactional_ids import TransactionsReport
from kafka_meta.analysis.unowned import group_cost
from kafka_meta.log.rows import OffsetsRow


@dataclass
class Timeline:
    groups: list[GroupTimeline] = field(default_factory=list)  # most trouble first
    errors: list[str] = field(default_factory=list)  # inputs that could not be read, with their position
    thresholds: Thresholds = field(default_factory=Thresholds)
    transactions: TransactionsReport | None = None  # the transaction coordinator's story, when its log was read

    @property
    def findings(self) -> list[Finding]:
        found = [f for g in self.groups for f in g.findings]
        return found + (self.transactions.findings if self.transactions is not None else [])

    @property
    def ranked_findings(self) -> list[Finding]:
        """Most severe first; among equals, the group with more trouble first, then by time."""
        order = {g.group: i for i, g in enumerate(self.groups)}
        return sorted(self.findings, key=lambda f: (-f.weight, order.get(f.group, 0),
                                                    f.ts if f.ts is not None else float("inf")))

    def group(self, name: str) -> GroupTimeline | None:
        return next((g for g in self.groups if g.group == name), None)


def merge(into: GroupTimeline, other: GroupTimeline) -> None:
    """The log's view (``other``) of a group into the capture's (``into``). Where both saw the same thing the
    log's record of it counts once: the commits the coordinator wrote (one record per partition) stand for
    the OffsetCommit requests that wrote them, and only the requests it refused, which it never wrote, are
    added from the capture; an aborted transaction seen both ways is one."""
    captured = {r.generation for r in into.rounds if r.generation is not None}
    for r in other.rounds:
        twin = next((c for c in into.rounds if c.generation == r.generation), None) if r.generation in captured \
            else None
        if twin is not None:
            twin.commits = r.commits or twin.commits
            twin.explanation = twin.explanation or r.explanation
        else:
            into.rounds.append(r)
    into.rounds = sort_rounds(into.rounds)
    if other.commits:
        into.commits = [*other.commits, *(c for c in into.commits if c.error_codes)]
    into.aborted_commits = max(into.aborted_commits, other.aborted_commits)
    if into.kind == "classic":
        into.kind = other.kind


def build_timeline(exchanges: Iterable[Any] = (), offsets_rows: Iterable[OffsetsRow] = (),
                   thresholds: Thresholds | None = None, offsets_file: str | None = None,
                   commit_counts: Iterable[CommitCount] = (),
                   topic_names: Mapping[str, str] | None = None, aborted_commits: Mapping[str, int] | None = None,
                   offsets_ordered: bool = False, observer: RecordObserver | None = None) -> Timeline:
    """The whole story: rounds per group from both sources, findings per group, groups by trouble.

    ``commit_counts`` are (group, generation in force, epoch second, commits) counted outside and
    ``aborted_commits`` (group -> offsets of aborted transactions) too: the Spark job counts commits instead of
    collecting them, and they reach the rounds by the same rule as the commits among ``offsets_rows``
    (:func:`~kafka_meta.analysis.generations.add_commit_counts`). ``offsets_ordered`` says the rows already
    come in log order (:func:`~kafka_meta.analysis.generations.log_order`). ``topic_names`` (topic id, as
    :func:`~kafka_meta.analysis.epochs.topic_id` writes it, to name) names the topics of records that give
    only ids, beside what the rows' own commits say (the Spark job gathers them from commits it does not
    collect). ``observer`` is handed every record of ``offsets_rows`` as it is read (``kafka-meta report``
    counts them there rather than decoding them again)."""
    logged, errors = build_generations(offsets_rows, offsets_file, topic_names, ordered=offsets_ordered,
                                       observer=observer)
    add_commit_counts(logged, commit_counts, aborted_commits)
    return timeline_of(exchanges, logged, errors, thresholds)


def timeline_of(exchanges: Iterable[Any], logged: dict[str, GroupTimeline], log_errors: list[str],
                thresholds: Thresholds | None = None) -> Timeline:
    """The story of the captured ``exchanges`` and of the log's timelines already read (``logged``, with what
    could not be read of the log): merged per group, the findings, groups by trouble."""
    timeline = Timeline(thresholds=thresholds or Thresholds())
    skipped: list[str] = []
    groups = build_timelines(exchanges, skipped)
    timeline.errors = skipped + log_errors
    for name, tl in logged.items():
        if name in groups:
            merge(groups[name], tl)
        else:
            groups[name] = tl
    for tl in groups.values():
        tl.unowned = group_cost(tl)  # before the findings: a crashed member's finding says what it cost
        tl.findings = find(tl, timeline.thresholds)
    timeline.groups = sorted(groups.values(), key=lambda g: (-g.trouble, g.group))
    return timeline
