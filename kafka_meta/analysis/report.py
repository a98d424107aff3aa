"""The report, one document for every face: what was read, each group's state, its rebalance rounds and the
findings, and what could not be read.

``kafka-meta analyze`` fills it with Spark, ``kafka-meta report`` without (:mod:`kafka_meta.analysis.inventory`);
the faces render this one type: the terminal and the HTML page (:mod:`kafka_meta.report`), the text summary
(:func:`render_text`) and JSON (:meth:`AnalysisReport.to_json`, report.json and ``report --format json``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kafka_meta.analysis.assemble import Timeline
from kafka_meta.analysis.groups import GroupFacts
from kafka_meta.analysis.lag import GroupStanding
from kafka_meta.analysis.lag_findings import judge_standings

ERROR_SAMPLES = 5  # undecodable things quoted in the report; the rest are counted


@dataclass
class AnalysisReport:
    records: Counter[str] = field(default_factory=Counter)  # per record type name
    tombstones: int = 0
    unknown_types: Counter[int] = field(default_factory=Counter)
    read_forward: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    blobs: Counter[str] = field(default_factory=Counter)  # captured payloads per type
    blob_versions: dict[str, Counter[int]] = field(default_factory=dict)
    blob_errors: int = 0
    groups: dict[str, GroupFacts] = field(default_factory=dict)
    exchanges: dict[str, Counter[str]] = field(default_factory=dict)  # captured exchanges: api -> group -> count
    exchange_errors: int = 0
    output: str | None = None
    timeline: Timeline | None = None  # the rebalance rounds and findings (kafka_meta.analysis.assemble)
    unreadable: list[str] = field(default_factory=list)  # inputs that could not be read at all, with why
    damage: list[str] = field(default_factory=list)  # damage the readers read around, each with its place
    lag: dict[str, GroupStanding] = field(default_factory=dict)  # where each group stands (kafka_meta.analysis.lag)

    @property
    def story(self) -> Timeline:
        """The rebalance timeline; an empty one when the inputs held nothing to build it from."""
        return self.timeline if self.timeline is not None else Timeline()

    def stand(self, standings: dict[str, GroupStanding]) -> None:
        """Where each group stands, once the timeline is built: its Burrow status joins the findings (one
        rule for every reading: report's one pass, the analyze job, everything read first)."""
        self.lag = standings
        if self.timeline is None:
            self.timeline = Timeline()
        judge_standings(self.timeline, standings)

    @property
    def read_around(self) -> list[str]:
        """The damage read around, each with its place: what the readers found, then what the timeline could not
        read of the rows (report.json's ``problems``)."""
        return [*self.damage, *self.story.errors]

    @property
    def problems(self) -> list[str]:
        """What could not be read: whole inputs first, then the damage read around."""
        return [*self.unreadable, *self.read_around]

    @property
    def read_everything(self) -> bool:
        """Whether everything given was read: every input (none unreadable), all of it (no damage read around,
        none the timeline could not read), every record and every captured payload decoded. Both verbs that
        fill a report end with this (``report`` and ``analyze``: exit status 1 when it is false). A captured
        exchange whose body was read only leniently is not in it: the exchange was read, its ``_error`` says
        how (``exchange_errors``)."""
        return not (self.unreadable or self.read_around or self.errors or self.blob_errors)

    def to_json(self) -> dict[str, Any]:
        groups: dict[str, dict[str, Any]] = {name: _group_json(g) for name, g in self.groups.items()}
        doc: dict[str, Any] = {
            "records": dict(self.records), "tombstones": self.tombstones,
            "unknownRecordTypes": {str(k): v for k, v in self.unknown_types.items()},
            "readForward": self.read_forward, "errors": self.errors, "errorSamples": self.error_samples,
            "blobs": dict(self.blobs), "blobVersions": {t: dict(c) for t, c in self.blob_versions.items()},
            "blobErrors": self.blob_errors,
            "groups": groups,
            "exchanges": {api: dict(groups) for api, groups in self.exchanges.items()},
            "exchangeErrors": self.exchange_errors,
            "output": self.output, "unreadable": self.unreadable,
        }
        story = self.story  # each group's rounds and findings, and every finding at the top
        for g in story.groups:
            entry = groups.setdefault(g.group, {"kind": g.kind})
            entry.update({"rounds": [r.to_json() for r in g.rounds], "findings": [f.to_json() for f in g.findings],
                          "abortedCommits": g.aborted_commits,
                          "pendingCommits": dict(sorted(g.pending_commits.items()))})
            entry["unowned"] = _unowned_json(g)
        _add_standings(groups, self.lag)
        doc["findings"] = [f.to_json() for f in story.ranked_findings]
        doc["transactions"] = story.transactions.to_json() if story.transactions is not None else None
        doc["problems"] = self.read_around
        doc["thresholds"] = asdict(story.thresholds)
        return doc


def _add_standings(groups: dict[str, dict[str, Any]], lag: dict[str, GroupStanding]) -> None:
    """Each group's "where the group stands" table (``standing``) and Burrow's status of it."""
    for name, standing in lag.items():
        groups.setdefault(name, {})["standing"] = standing.to_json()


def standing_lines(lag: dict[str, GroupStanding]) -> list[str]:
    """The groups' statuses by Burrow's rules, in a line each (the tables are in report.json and the HTML)."""
    if not lag:
        return []
    lines = [f"where the groups stand: {len(lag)} group(s)"]
    for name, s in sorted(lag.items()):
        total = s.total_lag
        lines.append(f"  {s.status.status} {name}: {len(s.partitions)} partition(s), lag "
                     f"{'unknown' if total is None else total} ({s.status.rule})")
    return lines


def _unowned_json(g: Any) -> dict[str, Any] | None:
    """A group's partitions without an owner, per round (kafka_meta.analysis.unowned); None where not computed."""
    from kafka_meta.analysis.unowned import cost_json

    return cost_json(g, g.unowned) if g.unowned is not None else None


def _versions(counter: Counter[int]) -> str:
    return ", ".join(f"v{v} x{n}" for v, n in sorted(counter.items())) or "-"


def _payload_versions(versions: Counter[int], total: int) -> str:
    """The versions the decoded payloads had, and how many could not be decoded at all (they have none)."""
    undecodable = total - sum(versions.values())
    parts = [f"v{v} x{n}" for v, n in sorted(versions.items())]
    if undecodable > 0:
        parts.append(f"{undecodable} undecodable (see the errors below)")
    return ", ".join(parts) or "-"


def _group_name(group: str) -> str:
    """An exchange's group; requests that name none (ApiVersions, Metadata, Fetch ...) are counted as such."""
    return "no group" if group in ("-", "", None) else group


def _group_json(g: GroupFacts) -> dict[str, Any]:
    return {
        "kind": g.kind, "protocolType": g.protocol_type, "assignor": g.assignor, "generation": g.generation,
        "members": g.members, "subscriptionVersions": dict(g.subscription_versions),
        "assignmentVersions": dict(g.assignment_versions),
        "streams": {"usedVersions": dict(g.streams_used_versions),
                    "latestSupportedVersions": dict(g.streams_latest_versions),
                    "assignmentVersions": dict(g.streams_assignment_versions),
                    "commonlySupportedVersions": dict(g.streams_common_versions)} if g.streams else None,
        "mixedVersions": g.mixed_versions, "ownershipConflicts": g.conflicts, "memberErrors": g.member_errors,
        "classicMembers": g.classic_members, "serverAssignors": dict(g.server_assignors),
        "committedPartitions": g.committed_partitions, "explanation": g.explanation,
    }


def _group_lines(g: GroupFacts) -> list[str]:
    head = f"  {g.group} [{g.kind}]"
    if g.protocol_type is not None or g.assignor is not None:
        head += f" protocol type {g.protocol_type or '-'}, assignor {g.assignor or '-'}"
    if g.generation is not None:
        head += f", {'generation' if g.kind == 'classic' else 'epoch'} {g.generation}"
    head += f", {len(g.members)} member(s)"
    if g.committed_partitions:
        head += f", offsets for {g.committed_partitions} partition(s)"
    lines = [head]
    if g.subscription_versions:
        lines.append(f"    consumer protocol: subscriptions {_versions(g.subscription_versions)}; "
                     f"assignments {_versions(g.assignment_versions)}")
    if g.streams:
        lines.append(f"    Streams metadata: subscriptions {_versions(g.streams_used_versions)} (latest supported "
                     f"{_versions(g.streams_latest_versions)}); assignments {_versions(g.streams_assignment_versions)}"
                     f" (commonly supported {_versions(g.streams_common_versions)})")
    if g.streams and g.mixed_versions:
        lines.append("    ! mixed Streams metadata versions: a rolling upgrade or version probing is in progress")
    elif g.mixed_versions:
        lines.append("    ! members send different consumer-protocol versions: clients of different releases "
                     "(a rolling upgrade?)")
    lines += [f"    {line}" for line in g.explanation]
    if g.server_assignors:
        lines.append(f"    server assignors: {', '.join(f'{a} x{n}' for a, n in g.server_assignors.items())}")
    if g.classic_members:
        lines.append(f"    members still on the classic protocol: {', '.join(g.classic_members)}")
    lines += [f"    ! ownership conflict: {c}" for c in g.conflicts]
    lines += [f"    ! undecodable member data: {e}" for e in g.member_errors]
    return lines


def render_text(report: AnalysisReport) -> str:
    total = sum(report.records.values())
    lines = [f"__consumer_offsets records: {total}"]
    if report.records:
        lines.append("  " + ", ".join(f"{name} {n}" for name, n in sorted(report.records.items())))
    lines.append(f"  tombstones {report.tombstones}, read forward (newer than known) {report.read_forward}, "
                 f"unknown record types {sum(report.unknown_types.values())}"
                 + (f" ({', '.join(f'type {t} x{n}' for t, n in sorted(report.unknown_types.items()))})"
                    if report.unknown_types else "")
                 + f", errors {report.errors}")
    if report.blobs:
        lines.append(f"captured payloads: {sum(report.blobs.values())}, errors {report.blob_errors}")
        for name, n in sorted(report.blobs.items()):
            lines.append(f"  {name} {n}: {_payload_versions(report.blob_versions.get(name, Counter()), n)}")
    if report.exchanges:
        total = sum(sum(groups.values()) for groups in report.exchanges.values())
        lines.append(f"captured exchanges: {total}, with errors {report.exchange_errors}")
        for api, groups in sorted(report.exchanges.items()):
            lines.append(f"  {api} {sum(groups.values())}: "
                         + ", ".join(f"{_group_name(g)} {n}" for g, n in sorted(groups.items())))
    protocol_types = Counter(g.protocol_type for g in report.groups.values() if g.protocol_type)
    assignors = Counter(g.assignor for g in report.groups.values() if g.assignor)
    members = sum(len(g.members) for g in report.groups.values())
    lines.append(f"groups: {len(report.groups)} ({members} members); protocol types: "
                 f"{', '.join(f'{k} {v}' for k, v in sorted(protocol_types.items())) or '-'}; assignors: "
                 f"{', '.join(f'{k} {v}' for k, v in sorted(assignors.items())) or '-'}")
    for g in report.groups.values():
        lines += _group_lines(g)
    attention = [g for g in report.groups.values() if g.mixed_versions or g.conflicts or g.member_errors]
    lines.append(f"needs attention: {', '.join(g.group for g in attention) or 'nothing'}")
    if report.timeline is not None:
        lines += timeline_lines(report.timeline)
    lines += standing_lines(report.lag)
    if report.unreadable:
        lines.append(f"inputs that could not be read ({len(report.unreadable)}):")
        lines += [f"  {u}" for u in report.unreadable]
    damage = report.read_around
    if damage:
        lines.append(f"damage read around ({len(damage)}):")
        lines += [f"  {d}" for d in damage[:ERROR_SAMPLES]]
        if len(damage) > ERROR_SAMPLES:
            lines.append(f"  ... {len(damage) - ERROR_SAMPLES} more in report.json")
    if report.error_samples:
        lines.append("first errors:")
        lines += [f"  {e}" for e in report.error_samples]
    lines += output_lines(report)
    return "\n".join(lines)


def output_lines(report: AnalysisReport) -> list[str]:
    """Where each output is, last, so the summary ends with what to open next."""
    if not report.output:
        return []
    if "://" in report.output:
        return [f"decoded Parquet written to {report.output}"]
    root = Path(report.output).resolve()
    written = [(name, root / name) for name in ("offsets", "groups", "members", "exchanges", "payloads", "lag")
               if (root / name).exists()]
    lines = ["written:"] + [f"  {path}  (Parquet: {name})" for name, path in written]
    lines += [f"  {root / name}  ({what})" for name, what in (("report.json", "the report as JSON"),
                                                              ("report.txt", "this summary"))]
    if (root / "report.html").exists():
        lines.append(f"  {root / 'report.html'}  (the rebalance timeline, to open in a browser)")
    return lines


TIMELINE_FINDINGS = 12


def timeline_lines(timeline: Timeline) -> list[str]:
    """The timeline's findings, most severe first (the charts and every round are in report.html)."""
    rounds = sum(len(g.rounds) for g in timeline.groups)
    findings = timeline.ranked_findings
    lines = [f"rebalance timeline: {rounds} round(s) in {len(timeline.groups)} group(s), {len(findings)} finding(s)"]
    lines += [f"  {f.severity.upper()} {f.group}: {f.summary}" for f in findings[:TIMELINE_FINDINGS]]
    if len(findings) > TIMELINE_FINDINGS:
        lines.append(f"  ... {len(findings) - TIMELINE_FINDINGS} more in report.json and report.html")
    return lines
