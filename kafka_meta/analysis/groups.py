"""Facts about each group, from the latest record of each key of ``__consumer_offsets`` (and captured
JoinGroup/SyncGroup payloads).

``__consumer_offsets`` is compacted: the newest record of a key is the current state, and a tombstone
deletes it. So callers pass only the newest record per key; tombstones remove groups and members.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.negotiation.facts import subscription_facts
from kafka_meta.offsets.reader import decode_record
from kafka_meta.offsets.records import CoordinatorRecord, OffsetsRecord

COOPERATIVE_ASSIGNORS = {"cooperative-sticky", "stream"}
GROUP_RECORD_TYPES = (2, 3, 5, 10, 11, 17, 19)  # the records that describe groups and their members


@dataclass
class GroupFacts:
    group: str
    kind: str  # "classic", "consumer (KIP-848)", "share", "streams (KIP-1071)"
    protocol_type: str | None = None
    assignor: str | None = None
    generation: int | None = None
    members: list[str] = field(default_factory=list)
    subscription_versions: Counter[int] = field(default_factory=Counter)
    assignment_versions: Counter[int] = field(default_factory=Counter)
    streams_used_versions: Counter[int] = field(default_factory=Counter)
    streams_latest_versions: Counter[int] = field(default_factory=Counter)
    streams_assignment_versions: Counter[int] = field(default_factory=Counter)
    streams_common_versions: Counter[int] = field(default_factory=Counter)
    conflicts: list[str] = field(default_factory=list)
    member_errors: list[str] = field(default_factory=list)
    classic_members: list[str] = field(default_factory=list)  # KIP-848 members still on the classic protocol
    server_assignors: Counter[str] = field(default_factory=Counter)
    committed_partitions: int = 0
    explanation: list[str] = field(default_factory=list)

    @property
    def mixed_versions(self) -> bool:
        return any(len(c) > 1 for c in (self.subscription_versions, self.streams_used_versions,
                                        self.streams_latest_versions))

    @property
    def streams(self) -> bool:
        return self.assignor == "stream"


def _owned(subscription: Any) -> set[tuple[str, int]]:
    return {(g.topic, p) for g in getattr(subscription, "owned_partitions", None) or [] for p in g.partitions}


def _assigned(assignment: Any) -> set[tuple[str, int]]:
    return {(g.topic, p) for g in getattr(assignment, "assigned_partitions", None) or [] for p in g.partitions}


def _label(tp: tuple[str, int]) -> str:
    return f"{tp[0]}-{tp[1]}"


def ownership_conflicts(members: list[Any]) -> list[str]:
    """KIP-429's rule, checked on a stored generation: a partition may not be claimed by two members, nor
    handed to one member while another still claims it (it must be revoked first)."""
    claims: dict[tuple[str, int], list[str]] = defaultdict(list)
    for m in members:
        for tp in _owned(m.subscription):
            claims[tp].append(m.member_id)
    out = [f"{_label(tp)} is claimed by {', '.join(sorted(ids))}" for tp, ids in sorted(claims.items())
           if len(ids) > 1]
    for m in members:
        for tp in sorted(_assigned(m.assignment)):
            others = [i for i in claims.get(tp, []) if i != m.member_id]
            if others:
                out.append(f"{_label(tp)} is assigned to {m.member_id} while {', '.join(sorted(others))} still "
                           "owns it")
    return out


def _classic(facts: GroupFacts, record: CoordinatorRecord) -> None:
    value = record.value
    facts.protocol_type = value.protocol_type or None
    facts.assignor = value.protocol
    facts.generation = value.generation
    facts.members = [m.member_id for m in value.members]
    for nest in record.members or []:
        if nest.subscription is not None:
            facts.subscription_versions[nest.subscription.version] += 1
        if nest.assignment is not None:
            facts.assignment_versions[nest.assignment.version] += 1
        sub, asg = nest.subscription_user_data, nest.assignment_user_data
        if sub is not None and type(sub).kafka_type == "SubscriptionInfo":
            facts.streams_used_versions[sub.version] += 1
            latest = getattr(sub, "latest_supported_version", None)
            if latest is not None:
                facts.streams_latest_versions[latest] += 1
        if asg is not None and type(asg).kafka_type == "AssignmentInfo":
            facts.streams_assignment_versions[asg.version] += 1
            common = getattr(asg, "commonly_supported_version", None)
            if common is not None:
                facts.streams_common_versions[common] += 1
        facts.member_errors += [f"{nest.member_id}: {e}" for e in nest.errors]
    if record.members and facts.assignor in COOPERATIVE_ASSIGNORS:
        facts.conflicts = ownership_conflicts(record.members)
    facts.explanation = explain_classic(value, record.members or [], facts)


def explain_classic(value: Any, members: list[Any], facts: GroupFacts) -> list[str]:
    """The negotiation layer's account of a Streams group, or of a consumer group whose members disagree
    (mixed versions) or conflict; nothing for a settled consumer group."""
    from kafka_meta.negotiation import NegotiationError, assignment_facts, explain_consumer, explain_streams
    from kafka_meta.negotiation.explain import ConsumerMember

    try:
        if facts.streams:
            subs = [subscription_facts(m.member_id, m.subscription_user_data) for m in members
                    if m.subscription_user_data is not None and type(m.subscription_user_data).kafka_type in (
                        "SubscriptionInfo", "VersionProbe")]
            if not subs:
                return []
            assignments = {m.member_id: assignment_facts(m.assignment_user_data) for m in members
                           if m.assignment_user_data is not None and hasattr(m.assignment_user_data, "active_tasks")}
            explanation = explain_streams(subs, assignments, leader=value.leader)
        elif facts.mixed_versions or facts.conflicts:
            explanation = explain_consumer(
                [ConsumerMember(m.member_id, m.subscription.version, frozenset(_owned(m.subscription)),
                                frozenset(_assigned(m.assignment)) if m.assignment is not None else None)
                 for m in members if m.subscription is not None], facts.assignor)
        else:
            return []
    except NegotiationError as e:
        return [f"(no account: {e})"]
    return [explanation.summary, *(f"- {d}" for d in explanation.details)]


def newest_records(rows: Iterable[tuple[bytes, bytes | None]]) -> list[OffsetsRecord]:
    """Decode only the newest record of each key, in log order (what compaction keeps)."""
    newest: dict[bytes, bytes | None] = {}
    for key, value in rows:
        newest.pop(key, None)
        newest[key] = value
    return [decode_record(key, value) for key, value in newest.items()]


def analyze_groups(records: Iterable[OffsetsRecord]) -> dict[str, GroupFacts]:
    """Facts per group from the newest record of each key (tombstones included, they delete)."""
    groups: dict[str, GroupFacts] = {}
    deleted: set[str] = set()
    kinds = {2: "classic", 3: "consumer (KIP-848)", 5: "consumer (KIP-848)", 8: "consumer (KIP-848)",
             11: "share", 10: "share", 17: "streams (KIP-1071)", 19: "streams (KIP-1071)"}

    def group(name: str, kind: str) -> GroupFacts:
        if name not in groups:
            groups[name] = GroupFacts(name, kind)
        return groups[name]

    for record in records:
        if not isinstance(record, CoordinatorRecord) or record.group_id is None:
            continue
        name, number = record.group_id, record.record_type
        if number in (0, 1):
            if record.value is not None:
                group(name, "offsets only").committed_partitions += 1
            continue
        if number not in kinds:
            continue
        if record.value is None:
            if number in (2, 3, 11, 17):
                deleted.add(name)
            continue
        facts = group(name, kinds[number])
        facts.kind = kinds[number]
        if number == 2:
            _classic(facts, record)
        elif number in (3, 11, 17):
            facts.generation = record.value.epoch
        elif number in (5, 10, 19):
            member = record.key.member_id
            facts.members.append(member)
            assignor = getattr(record.value, "server_assignor", None)
            if assignor:
                facts.server_assignors[assignor] += 1
            classic = record.classic_protocols or []
            if classic:
                facts.classic_members.append(f"{member} ({', '.join(p.name for p in classic)})")
                for p in classic:
                    facts.member_errors += [f"{member}: {e}" for e in p.errors]
    for name in deleted:
        groups.pop(name, None)
    return dict(sorted(groups.items()))


def add_committed(groups: dict[str, GroupFacts], commits: Mapping[str, int]) -> None:
    """Each group's partitions with a committed offset (the newest commit of a key, not deleted); a group
    known only by its commits is "offsets only"."""
    for name, count in commits.items():
        facts = groups.get(name)
        if facts is None:
            facts = groups[name] = GroupFacts(name, "offsets only")
        facts.committed_partitions = count
