"""What the Java side of a lab recording observed (truth.jsonl), in the shapes the timeline is compared with.

A recording (lab/record, docs/lab.md) holds capture.pcapng, kafka-logs/ and truth.jsonl. The committed ones
live in fixtures/lab/<scenario>/; KAFKA_META_RECORDINGS may name another directory of recordings (for instance
a fresh `lab/record` run) to hold to the same checks.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = Path(os.environ.get("KAFKA_META_RECORDINGS", ROOT / "fixtures" / "lab"))

Ownership = dict[str, frozenset[str]]  # member id -> partitions ("topic-p") it owns


def recordings() -> list[Path]:
    """Every recording directory (one with a truth.jsonl) under RECORDINGS, by name."""
    if not RECORDINGS.is_dir():
        return []
    return sorted(path.parent for path in RECORDINGS.glob("*/truth.jsonl"))


def recording(name: str) -> Path | None:
    path = RECORDINGS / name
    return path if (path / "truth.jsonl").exists() else None


@cache
def truth(path: Path) -> tuple[dict, ...]:
    return tuple(json.loads(line) for line in (path / "truth.jsonl").read_text().splitlines() if line.strip())


@dataclass
class GroupTruth:
    """One group as its members saw it: per generation (classic) or member epoch (KIP-848), who was in it and
    what each owned once its rebalance callback had run."""

    group: str
    generations: dict[int, Ownership] = field(default_factory=dict)
    protocol: str = "classic"
    members_by_name: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # client -> its ids


def groups(path: Path) -> dict[str, GroupTruth]:
    """The groups of a recording's members, from their rebalance callbacks.

    Java invokes onPartitionsAssigned after every completed rebalance, even with nothing new, and reports the
    generation and member id its consumer holds then (``consumer.groupMetadata()``); "owned" is its whole
    assignment after the callback. A member restarted within one generation (a static member coming back
    within its session timeout) reports that generation again under a new id: the last report of each
    client is the generation's final state."""
    out: dict[str, GroupTruth] = {}
    protocols = {(e["source"], e["group"]): e.get("protocol", "classic") for e in truth(path)
                 if e["event"] == "start" and "group" in e}
    last: dict[tuple[str, int, str], dict] = {}
    for event in truth(path):
        if event["event"] != "assigned" or event.get("generation", -1) < 0:
            continue
        group = out.setdefault(event["group"], GroupTruth(event["group"]))
        group.protocol = protocols.get((event["source"], event["group"]), "classic")
        group.members_by_name[event["source"]].add(event["member_id"])
        last[(event["group"], event["generation"], event["source"])] = event
    for (group_name, generation, _), event in sorted(last.items(), key=lambda kv: kv[1]["ts"]):
        out[group_name].generations.setdefault(generation, {})[event["member_id"]] = frozenset(event["owned"])
    return out


def steps(path: Path) -> list[dict]:
    return [e for e in truth(path) if e["event"] == "step"]


def timeline_generations(rounds) -> dict[int, Ownership]:
    """The same shape from a timeline's rounds: rounds with members, by generation (or epoch)."""
    out: dict[int, Ownership] = {}
    for r in rounds:
        if r.generation is None or not r.members:
            continue
        out[r.generation] = {m.member_id: frozenset(f"{t}-{p}" for t, p in (m.assigned or set()))
                             for m in r.members}
    return out


def completed_members(rounds) -> dict[int, Ownership]:
    """Like :func:`timeline_generations`, keeping only the members that got their assignment (a member whose
    SyncGroup was refused because the next round began never completed that generation, so its client never
    saw it)."""
    out: dict[int, Ownership] = {}
    for r in rounds:
        if r.generation is None or not r.members:
            continue
        done = {m.member_id: frozenset(f"{t}-{p}" for t, p in (m.assigned or set())) for m in r.members
                if m.synced_at is not None or r.source == "offsets"}
        if done:
            out[r.generation] = done
    return out


def owned_histories(path: Path, group: str) -> dict[str, list[frozenset[str]]]:
    """Per member id, the partitions it owned after each rebalance callback, repeats removed. Under the
    consumer protocol (KIP-848) a member reconciles one step at a time and Java calls the listener at each
    step (a revocation, then an assignment), so the sequence, not the epoch a callback reports, is what the
    group went through."""
    callbacks: dict[str, list[tuple[int, frozenset[str]]]] = defaultdict(list)
    for event in truth(path):
        if event["event"] == "assigned" and event.get("group") == group and event.get("generation", -1) >= 0:
            callbacks[event["member_id"]].append((event["generation"], frozenset(event["owned"])))
    out: dict[str, list[frozenset[str]]] = {}
    for member, steps_seen in callbacks.items():
        history: list[frozenset[str]] = []
        for i, (epoch, owned) in enumerate(steps_seen):
            after = steps_seen[i + 1] if i + 1 < len(steps_seen) else None
            if after is not None and after[0] == epoch and after[1] > owned:
                continue  # partitions still to come at the same epoch (others had to release them first)
            if not history or history[-1] != owned:
                history.append(owned)
        out[member] = history
    return out


def timeline_histories(rounds) -> dict[str, list[frozenset[str]]]:
    """The same from a timeline: each member's assignment round after round, repeats removed."""
    out: dict[str, list[frozenset[str]]] = defaultdict(list)
    for r in rounds:
        for m in r.members:
            if m.assigned is None:
                continue
            history = out[m.member_id]
            owned = frozenset(f"{t}-{p}" for t, p in m.assigned)
            if not history or history[-1] != owned:
                history.append(owned)
    return dict(out)


def without_handovers(history: list[frozenset[str]]) -> list[frozenset[str]]:
    """A history with its hand-over steps removed: a state that is just what the member kept of the one before
    while it waited for what the next one adds (owned before and after, intersected). A client may or may not
    report that step (it depends on whether the partitions it gains are free yet), and a round of the timeline
    shows where the member ended up."""
    out = list(history)
    i = 1
    while i + 1 < len(out):
        if out[i] == out[i - 1] & out[i + 1] and out[i] < out[i - 1] and out[i] < out[i + 1]:
            del out[i]
            continue
        i += 1
    return out


Snapshot = dict[str, dict]  # member id -> its epoch and what it holds, as one describe answer said


def admin_described(path: Path, group: str) -> list[Snapshot]:
    """What Kafka's Admin client read from each describe of a share or streams group (the scenario's describe
    and streams_describe events), member by member: the member epoch and, for a share member, its partitions
    ("topic-p"), for a streams member its active, standby and warm-up tasks (subtopology -> partitions). A
    member keeps its epoch while it gives tasks up, so a snapshot, not a member epoch, is the unit."""
    out = []
    for event in truth(path):
        if event.get("group") != group:
            continue
        if event["event"] == "describe" and event.get("type") == "Share":
            out.append({m["member_id"]: {"epoch": m["member_epoch"], "partitions": sorted(m["partitions"])}
                        for m in event["members"]})
        elif event["event"] == "streams_describe":
            out.append({m["member_id"]: {"epoch": m["member_epoch"], **{
                kind: {s: sorted(p) for s, p in m[kind].items()} for kind in ("active", "standby", "warmup")}}
                for m in event["members"]})
    return out


def watched(description: dict) -> Snapshot:
    """The same of a group description as the watch tells it (a state event's detail, the JSON form of
    kafka_meta.live.events.GroupDescription), to compare with the above."""
    out: Snapshot = {}
    for m in description.get("members") or []:
        if m.get("tasks") is None:
            out[m["memberId"]] = {"epoch": m["epoch"], "partitions": sorted(m["assigned"])}
        else:
            out[m["memberId"]] = {"epoch": m["epoch"], **{k: {s: sorted(p) for s, p in v.items()}
                                                          for k, v in m["tasks"].items()}}
    return out
