"""What each rebalance cost, held to what Kafka's own Java clients observed.

The lab's clients log when each partition was revoked, lost and assigned (their rebalance listeners) and when
a member was killed (truth.jsonl, docs/lab.md). From those, each partition's time without an owner is known on
the clients' side: from the callback (or the kill) that took it from its owner to the callback that gave it to
the next one. The timeline measures the same from the protocol (kafka_meta.analysis.unowned); both must agree
within the capture's timing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lab_truth import recording, truth
from test_lab_timeline import SOURCES
from test_lab_timeline import source as source  # the fixture of the three readings

from kafka_meta.analysis.unowned import GroupCost

TruthGap = tuple[str, float, float]  # partition ("topic-p"), from, to (epoch seconds)
# gaps within one generation: a static member restarted within its session timeout gives its partitions up on
# close and gets them back under a new member id with no rebalance; the log records nothing of it
WITHIN_GENERATION: dict[tuple[Path, str], set[TruthGap]] = {}


def truth_gaps(path: Path, group: str) -> list[TruthGap]:
    """The clients' gaps: a partition is unowned from its owner's revoked or lost callback, or its kill, to the
    next owner's assigned callback that lists it."""
    owner: dict[str, str] = {}
    since: dict[str, float] = {}
    member_of: dict[str, str] = {}  # client (truth's source) -> its member id now
    out: list[TruthGap] = []
    generation_since: dict[str, int] = {}
    within = WITHIN_GENERATION.setdefault((path, group), set())
    for e in sorted(truth(path), key=lambda e: e["ts"]):
        ts = e["ts"] / 1000
        if e["event"] == "killed" and e["source"] in member_of:
            for tp in [tp for tp, m in owner.items() if m == member_of[e["source"]]]:
                del owner[tp]
                since[tp] = ts
            continue
        if e.get("group") != group or e["event"] not in ("revoked", "lost", "assigned"):
            continue
        member = e["member_id"]
        if e["event"] == "assigned":
            member_of[e["source"]] = member
            for tp in e["partitions"]:
                if tp in since:
                    out.append((tp, since.pop(tp), ts))
                    if generation_since.pop(tp, None) == e["generation"]:
                        within.add(out[-1])
                owner[tp] = member
            continue
        for tp in e["partitions"]:
            if owner.get(tp) == member:
                del owner[tp]
                since[tp] = ts
                generation_since[tp] = e["generation"]
    return out


def project_gaps(cost: GroupCost) -> list[TruthGap]:
    return [(f"{g.partition[0]}-{g.partition[1]}", g.start, g.end) for g in cost.gaps]


def total(gaps: list[TruthGap]) -> float:
    return sum(end - start for _, start, end in gaps)


# The capture's times are the broker's packets, the truth's the clients' callbacks, on one machine's clock. A
# classic client revokes in its listener just before it sends JoinGroup and runs onPartitionsAssigned just after
# the SyncGroup answer: a few milliseconds. A KIP-848 client reconciles between heartbeats, so its callbacks run
# up to a heartbeat's round trip and its listener's own work away from the packets (up to 0.16 s in these
# recordings). The log's times are the records' (the coordinator appends a heartbeat's changes at once). Both ends
# are held to 0.25 s.
TOLERANCE_S = 0.25
# A killed member's partitions are counted from its last request (heartbeat or commit); the kill comes after
# it, within one heartbeat interval (3 s, the classic default; the lab's KIP-848 group heartbeats more often).
# So does the close of a static member stopped past its session timeout (it sends no LeaveGroup).
HEARTBEAT_S = 3.0
SCENARIOS = [name for name in ("classic", "consumer", "static", "storm") if recording(name) is not None]


def _killed(path: Path, group: str) -> set[float]:
    """When the group's members were killed (kill -9: no callback, no LeaveGroup)."""
    sources = {e["source"] for e in truth(path) if e.get("group") == group and e["event"] == "assigned"}
    return {e["ts"] / 1000 for e in truth(path) if e["event"] == "killed" and e["source"] in sources}


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_partitions_time_without_an_owner_is_what_the_clients_saw(name, source):
    """Every gap the clients saw is a gap of the timeline on the same partition, ending within the tolerance;
    its start too, where the input has it: a killed member's from its last request before the kill, and where
    only the log is read, bounded as the gap says (``at least``: the member's going is known only from the
    round that noticed it, or an eager round's start, of which the log records only the end)."""
    path = recording(name)
    timeline = SOURCES[source](path)
    for group in sorted({e["group"] for e in truth(path) if e["event"] == "assigned"}):
        cost = timeline.group(group).unowned
        seen = truth_gaps(path, group)
        assert seen, group
        kills = _killed(path, group)
        unmatched = list(cost.gaps)
        for tp, start, end in seen:
            if source == "log" and (tp, start, end) in WITHIN_GENERATION[(path, group)]:
                continue  # no record says anything happened
            near = [g for g in unmatched if f"{g.partition[0]}-{g.partition[1]}" == tp
                    and abs(g.end - end) <= TOLERANCE_S]
            assert near, (group, tp, start, end, "no gap of the timeline ends then")
            gap = min(near, key=lambda g: abs(g.end - end) + abs(g.start - start))
            unmatched.remove(gap)
            if (start in kills or gap.how == "expiry") and gap.bound != "at least":
                assert start - HEARTBEAT_S <= gap.start <= start + TOLERANCE_S, (group, tp, gap)
            elif gap.bound == "at least":
                assert gap.start >= start - TOLERANCE_S, (group, tp, gap)
            else:
                assert abs(gap.start - start) <= TOLERANCE_S, (group, tp, gap)
        # a member past max.poll.interval.ms left the group (its heartbeat thread's LeaveGroup) while its client
        # still held the partitions until its poll returned: the group had no owner for them, the client's
        # "lost" callback comes only after the new owner's "assigned" (from the log alone: a departure)
        lost = {(e["member_id"], tp): e["ts"] / 1000 for e in truth(path) if e["event"] == "lost"
                and e.get("group") == group for tp in e["partitions"]}
        for g in unmatched:
            held = lost.get((g.released_by, f"{g.partition[0]}-{g.partition[1]}"))
            assert held is not None and held >= g.end - TOLERANCE_S, (group, g)


def test_a_killed_kip848_member_is_a_warning_with_its_cost():
    """kill -9 of a KIP-848 consumer: no leave heartbeat; its partitions wait until the coordinator fences it
    (its session timeout). The finding says when they went unowned and for how long, as the clients saw it."""
    path = recording("consumer")
    if path is None:
        pytest.skip("no consumer recording (fixtures/lab)")
    timeline = SOURCES["capture"](path)
    for group in ("lab-consumer-uniform", "lab-consumer-range"):
        kill = min(_killed(path, group))
        seen = [g for g in truth_gaps(path, group) if g[1] == kill]
        longest = max(end - start for _, start, end in seen)
        assert longest > 5, (group, seen)  # a session timeout, not a handover
        found = [f for f in timeline.group(group).findings if f.kind == "crashed-member"]
        assert len(found) == 1, (group, found)
        f = found[0]
        assert f.severity == "warning"
        assert sorted(f.partitions) == sorted(tp for tp, _, _ in seen)
        assert kill - HEARTBEAT_S <= f.ts <= kill + TOLERANCE_S
        said = float(re.search(r"for ([0-9.]+) s", f.summary).group(1))
        assert abs(said - longest) <= HEARTBEAT_S, (f.summary, longest)
        assert "expired or fenced" in f.summary and "partition-s" in f.summary


def test_a_clean_leave_with_a_fast_handover_is_no_warning():
    """b leaves the KIP-848 group with a leave heartbeat: its partitions are handed over within a second or
    so, and no crashed-member finding is made of it."""
    path = recording("consumer")
    if path is None:
        pytest.skip("no consumer recording (fixtures/lab)")
    tl = SOURCES["capture"](path).group("lab-consumer-uniform")
    left = [g for g in tl.unowned.gaps if g.how == "leave"]
    assert left and max(g.seconds for g in left) < 2.0
    assert {f.member for f in tl.findings if f.kind == "crashed-member"}.isdisjoint({g.released_by for g in left})
