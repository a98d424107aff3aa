"""The rebalance timeline held to what Kafka's own Java clients observed.

Each recording of the lab (docs/lab.md: a real KRaft broker of Kafka 4.4.0, real Java consumers, tshark on the
broker's port) comes with truth.jsonl, written by the clients themselves: every rebalance callback with the
member id and generation the consumer holds, and what it owns after it. The timeline built from the
capture, from the broker's own log directory, and from both at once must tell the same story: the same
generations, the same members in each, the same partitions owned after each; and its findings must judge the
scenario as an operator would (deliberate joins and leaves are churn, repeated rounds nobody asked for are a
storm). The recordings are committed, so these tests need no JVM.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lab_truth import (
    completed_members,
    groups,
    owned_histories,
    recording,
    recordings,
    steps,
    timeline_histories,
    truth,
    without_handovers,
)

from kafka_meta.analysis.assemble import Timeline, build_timeline
from kafka_meta.inputs import read

CLASSIC = [path for path in recordings() if any(g.protocol == "classic" for g in groups(path).values())]
CONSUMER = [path for path in recordings() if any(g.protocol == "consumer" for g in groups(path).values())]


def _read(*parts: Path):
    inputs = read([str(p) for p in parts])
    assert inputs.complete, inputs.unreadable  # (a capture may end inside a frame: damage read around)
    return inputs


def capture_timeline(path: Path) -> Timeline:
    return build_timeline(_read(path / "capture.pcapng").exchanges)


def log_timeline(path: Path) -> Timeline:
    return build_timeline(offsets_rows=_read(path / "kafka-logs").offsets)


def both_timeline(path: Path) -> Timeline:
    inputs = _read(path / "capture.pcapng", path / "kafka-logs")
    return build_timeline(inputs.exchanges, inputs.offsets)


SOURCES = {"capture": capture_timeline, "log": log_timeline, "both": both_timeline}


@pytest.fixture(scope="module", params=sorted(SOURCES))
def source(request):
    return request.param


def _require(paths: list[Path]) -> None:
    if not paths:
        pytest.skip("no lab recordings with classic groups (fixtures/lab)")


@pytest.mark.parametrize("path", CLASSIC, ids=lambda p: p.name)
def test_generations_members_and_ownership_equal_what_the_clients_saw(path, source):
    timeline = SOURCES[source](path)
    for name, seen_by_clients in groups(path).items():
        if seen_by_clients.protocol != "classic":
            continue
        got = completed_members(timeline.group(name).rounds)
        assert sorted(got) == sorted(seen_by_clients.generations), (name, "generations")
        for generation, owners in seen_by_clients.generations.items():
            seen = got[generation]
            # the log also records members whose SyncGroup was then refused (the next round had begun): they
            # never completed the generation, so their clients never saw it. The coordinator wrote what the
            # leader gave them all the same; a member given something must have stayed for a later round.
            extra = {m: owned for m, owned in seen.items() if m not in owners}
            later = {m for g, o in seen_by_clients.generations.items() if g > generation for m in o}
            assert all(not owned or m in later for m, owned in extra.items()), (name, generation, extra)
            assert {m: seen[m] for m in owners} == owners, (name, generation)


@pytest.mark.parametrize("path", CONSUMER, ids=lambda p: p.name)
def test_kip848_epochs_and_what_each_member_owned_equal_what_the_clients_saw(path, source):
    """Under the consumer protocol the group epoch moves first and each member catches up on its own; every
    member epoch a client reported is a round of the timeline with that member in it, and each member went
    through the same assignments, in the same order, as its rebalance listener saw."""
    timeline = SOURCES[source](path)
    for name, seen_by_clients in groups(path).items():
        if seen_by_clients.protocol != "consumer":
            continue
        tl = timeline.group(name)
        assert tl.kind == "consumer (KIP-848)"
        epochs = {r.generation: r for r in tl.rounds if r.members}
        for generation, owners in seen_by_clients.generations.items():
            assert generation in epochs, (name, generation)
            assert set(owners) <= {m.member_id for m in epochs[generation].members}, (name, generation)
        seen = {m: without_handovers(h) for m, h in timeline_histories(tl.rounds).items()}
        assert seen == {m: without_handovers(h) for m, h in owned_histories(path, name).items()}, name


def _round_after(timeline: Timeline, group: str, ts: float):
    later = [r for r in timeline.group(group).rounds if r.start is not None and r.start >= ts / 1000 - 0.05
             and r.members]
    return later[0] if later else None


EXPECTED_CAUSES = {"join": {"join", "first"}, "leave": {"leave"}, "kill": {"expiry"},
                   "poll-timeout": {"poll-timeout"}, "restart-past-timeout": {"expiry"}, "return": {"rejoin"}}


@pytest.mark.parametrize("path", CLASSIC + CONSUMER, ids=lambda p: p.name)
def test_the_timeline_says_why_each_round_started(path):
    """Each step of the scenario (a join, a LeaveGroup on close, a kill -9, a poll timeout, a static member
    stopped past its session timeout and back) is the cause the capture's timeline gives the round after it;
    a static member back within its session timeout starts no round at all."""
    timeline = capture_timeline(path)
    known = {g.group for g in timeline.groups}
    scenario_steps = [s for s in steps(path) if s.get("group") in known]
    checked = 0
    for i, step in enumerate(scenario_steps):
        action, group = step.get("action"), step["group"]
        if action == "restart-within-timeout":
            until = next((s["ts"] for s in scenario_steps[i + 1:] if s["group"] == group), float("inf"))
            started = [r for r in timeline.group(group).rounds
                       if r.start is not None and step["ts"] / 1000 <= r.start < until / 1000]
            assert started == [], [str(c) for r in started for c in r.causes]
            noted = [n for r in timeline.group(group).rounds for n in r.notes]
            assert any(step["member"] in n and "no rebalance" in n for n in noted), noted
            checked += 1
        elif action in EXPECTED_CAUSES:
            r = _round_after(timeline, group, step["ts"])
            assert r is not None, step
            assert {c.kind for c in r.causes} & EXPECTED_CAUSES[action], (step, [str(c) for c in r.causes])
            checked += 1
    if not checked:
        pytest.skip(f"{path.name}: its steps name no actions")


STORMS = {"storm": "lab-storm", "static": "lab-static"}
CHURN = {"classic": ("lab-classic-range", "lab-classic-coop")}


@pytest.mark.parametrize("scenario", sorted(STORMS))
def test_rounds_nobody_asked_for_are_a_storm(scenario, source):
    path = recording(scenario)
    if path is None:
        pytest.skip(f"no {scenario} recording")
    tl = SOURCES[source](path).group(STORMS[scenario])
    storm = [f for f in tl.findings if f.kind == "storm"]
    assert len(storm) == 1 and storm[0].severity == "critical", [f.summary for f in tl.findings]


@pytest.mark.parametrize("scenario", sorted(CHURN))
def test_deliberate_joins_and_leaves_are_churn_not_a_storm(scenario, source):
    path = recording(scenario)
    if path is None:
        pytest.skip(f"no {scenario} recording")
    check_churn(path, source, CHURN[scenario])


def check_churn(path: Path, source: str, groups_of_scenario: tuple[str, ...]) -> None:
    timeline = SOURCES[source](path)
    for group in groups_of_scenario:
        tl = timeline.group(group)
        kinds = {f.kind: f.severity for f in tl.findings}
        assert "storm" not in kinds and kinds.get("churn") == "info", (group, [f.summary for f in tl.findings])
        assert not {"join-unfinished", "zombie-commit"} & set(kinds), [f.summary for f in tl.findings]


def test_a_real_java_join_is_one_member_in_two_steps():
    """KIP-394: every Java consumer joins with an empty member id first, is answered MEMBER_ID_REQUIRED with
    its id, and joins again. The first step is part of that member's join, not a member of its own."""
    path = recording("classic")
    if path is None:
        pytest.skip("no classic recording")
    check_two_step_joins(path)


def check_two_step_joins(path: Path) -> None:
    tl = capture_timeline(path).group("lab-classic-range")
    first = tl.rounds[0]
    assert [m.member_id for m in first.members] == [first.leader] and first.complete
    assert first.members[0].join_steps >= 2 and 79 not in first.error_codes
    assert all(m.member_id for r in tl.rounds for m in r.members)


def _committed_between(tl, asked: float, answered: float) -> list[dict[str, int]]:
    """The offsets in force when a read of them was sent (``asked``), then after each commit that took force
    before its answer was in (``answered``): the answers the coordinator could have given (refused and aborted
    commits never count)."""
    commits = sorted((c for c in tl.commits if not c.error_codes and c.in_force is not None
                      and c.in_force <= answered), key=lambda c: c.in_force)
    state: dict[str, int] = {}
    for c in commits:
        if c.in_force <= asked:
            state.update(c.offsets)
    states = [dict(state)]
    for c in commits:
        if c.in_force > asked:
            state.update(c.offsets)
            states.append(dict(state))
    return states


@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.name)
def test_committed_offsets_equal_what_kafkas_admin_client_read(path, source):
    """Every listConsumerGroupOffsets snapshot the scenario took equals the offsets the commits put in force
    (the log's records, the capture's OffsetCommit and committed TxnOffsetCommit requests) at some moment
    between sending the request and having the answer; offsets committed in an aborted transaction are never
    among them."""
    timeline = SOURCES[source](path)
    snapshots = [e for e in truth(path) if e["event"] == "committed" and e.get("offsets")]
    if not snapshots:
        pytest.skip(f"{path.name}: no committed offsets were read")
    for snapshot in snapshots:
        tl = timeline.group(snapshot["group"])
        assert tl is not None, snapshot["group"]
        asked = snapshot.get("asked", snapshot["ts"])  # recordings made before "asked" was written: the answer's time
        possible = _committed_between(tl, asked / 1000, snapshot["ts"] / 1000)
        assert snapshot["offsets"] in possible, (snapshot["group"], snapshot["ts"], snapshot["offsets"], possible[-1])


def test_an_aborted_transactions_offsets_never_count():
    path = recording("transactions")
    if path is None:
        pytest.skip("no transactions recording")
    transactions = [e for e in truth(path) if e["event"] == "transaction"]
    aborted = [t for t in transactions if t["outcome"] == "aborted"]
    assert aborted, "the scenario aborts a transaction"
    committed = [t for t in transactions if t["outcome"] == "committed"]
    for source in (log_timeline, both_timeline):
        tl = source(path).group("lab-txn")
        assert tl.aborted_commits == sum(len(t["offsets"]) for t in aborted)
        assert len([c for c in tl.commits if c.evidence and c.evidence.offset is not None]) == sum(
            len(t["offsets"]) for t in committed)
    # on the wire: TxnOffsetCommit requests, decided by the producer's EndTxn
    tl = capture_timeline(path).group("lab-txn")
    assert tl.aborted_commits == sum(len(t["offsets"]) for t in aborted)
    assert sorted(tuple(sorted(c.offsets.items())) for c in tl.commits) == sorted(
        tuple(sorted(t["offsets"].items())) for t in committed)


def _described(event: dict) -> dict[str, frozenset[str]]:
    """Members and what they own in an Admin describe snapshot: partitions, or a streams group's active tasks
    (Streams names a task subtopology_partition; the timeline shows it as subtopology-partition)."""
    if event["event"] == "streams_describe":
        return {m["member_id"]: frozenset(f"{sub}-{p}" for sub, ps in m["active"].items() for p in ps)
                for m in event["members"]}
    return {m["member_id"]: frozenset(m["partitions"]) for m in event["members"]}


EPOCH_GROUPS = [path for path in recordings()
                if any(e["event"] in ("describe", "streams_describe") and e.get("group_epoch") is not None
                       and e.get("type") != "Classic" for e in truth(path))]


@pytest.mark.parametrize("path", EPOCH_GROUPS, ids=lambda p: p.name)
def test_each_settled_epoch_is_the_round_kafka_describes(path, source):
    """For KIP-848 consumer groups, share groups and streams groups, each describe snapshot the scenario took
    once the group settled (Admin describeConsumerGroups, describeShareGroups, describeStreamsGroups) is the
    timeline's round of that group epoch: the same members, each with the same partitions (or tasks)."""
    timeline = SOURCES[source](path)
    checked = 0
    for event in truth(path):
        if event["event"] not in ("describe", "streams_describe") or not event.get("members"):
            continue
        if event.get("state") != "Stable" or event.get("group_epoch") is None or event.get("type") == "Classic":
            continue
        tl = timeline.group(event["group"])
        r = next((r for r in tl.rounds if r.generation == event["group_epoch"]), None)
        assert r is not None, (event["group"], event["group_epoch"])
        got = {m.member_id: frozenset(f"{t}-{p}" for t, p in (m.assigned or ())) for m in r.members}
        assert got == _described(event), (event["group"], event["group_epoch"])
        checked += 1
    assert checked


PROBING_LINES = (
    # the leader of an older release, handed a subscription newer than it knows
    (re.compile(r"Received a future \(version probing\) subscription \(version: (\d+)\)\. Sending assignment back "
                r"\(with supported version (\d+)\)"), "leader"),
    # a member that sent its latest version and got an older one back: it downgrades and rejoins
    (re.compile(r"Sent a version (\d+) subscription and got version (\d+) assignment back \(successful version "
                r"probing\)"), "downgrade"),
    # a member told everyone now speaks a newer version: it upgrades and rejoins, the end of the upgrade
    (re.compile(r"Sent a version (\d+) subscription and group's latest commonly supported version is (\d+)"),
     "upgrade"),
)


def _round_at(rounds, ts: float):
    """The round in progress (or just finished) when Streams logged a line at ``ts``."""
    started = [r for r in rounds if r.start is not None and r.start <= ts + 0.05 and r.members]
    return started[-1] if started else None


@pytest.mark.parametrize("source_name", sorted(SOURCES))
def test_the_streams_upgrade_probes_as_streams_logged_it(source_name):
    """The Kafka Streams application rolled from 2.4.1 to 4.4.0 with upgrade.from: every version-probing line
    Streams logged is a round of the timeline whose members sent and got exactly those versions, and the
    round after it is the probing follow-up; the upgrade ends with everyone on the newest version, and an
    operator is told it finished (churn and an upgrade, no storm, nothing stuck)."""
    path = recording("streams-upgrade")
    if path is None:
        pytest.skip("no streams-upgrade recording")
    tl = SOURCES[source_name](path).group("lab-wordcount-upgrade")
    rounds = [r for r in tl.rounds if r.members]
    seen = 0
    for event in truth(path):
        if event["event"] != "streams_log":
            continue
        for pattern, kind in PROBING_LINES:
            found = pattern.search(event["message"])
            if found is None:
                continue
            sent, other = int(found.group(1)), int(found.group(2))
            r = _round_at(rounds, event["ts"] / 1000)
            assert r is not None, event["message"]
            if kind == "upgrade":
                assert any(m.streams_version == sent and m.streams_common == other for m in r.members), event
            else:
                assert any(m.streams_version == sent and m.streams_assignment_version == other for m in r.members), \
                    (event["message"], [(m.streams_version, m.streams_assignment_version) for m in r.members])
            if kind != "leader":
                after = rounds[rounds.index(r) + 1]
                assert "probing" in {c.kind for c in after.causes}, [str(c) for c in after.causes]
            seen += 1
    assert seen >= 4, "the upgrade logs probing at both rolling steps"
    assert {(m.streams_version, m.streams_latest) for m in rounds[-1].members} == {(11, 11)}
    kinds = {f.kind: f.severity for f in tl.findings}
    assert kinds.get("upgrade-finished") == "info" and "storm" not in kinds and "stuck-upgrade" not in kinds, \
        [f.summary for f in tl.findings]
