"""The rebalance timeline and its findings, from real captures (aiokafka and confluent-kafka on librdkafka's
mock cluster) and from the bundled ``__consumer_offsets`` sample."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pcap_exchanges import CAPTURES, capture_exchanges

import kafka_meta as km
from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.findings import Thresholds
from kafka_meta.analysis.generations import build_generations
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.analysis.rounds import build_timelines
from kafka_meta.offsets import encode_record, new_record
from kafka_meta.protocol import decode_member_metadata
from kafka_meta.report.terminal import terminal_text

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "capture.jsonl"


@pytest.fixture(scope="module")
def range_exchanges() -> list[dict]:
    return capture_exchanges(CAPTURES["range"])


@pytest.fixture(scope="module")
def coop_exchanges() -> list[dict]:
    return capture_exchanges(CAPTURES["coop"])


def sample_rows() -> list[dict]:
    return [r for r in map(json.loads, SAMPLE.read_text().splitlines()) if "key" in r]


def test_eager_rounds_from_a_capture(range_exchanges):
    tl = build_timelines(range_exchanges)["g-aio-range"]
    assert [r.generation for r in tl.rounds] == [2, 3, 4]
    first, joined, left = tl.rounds
    founder = first.leader
    assert first.members[0].member_id == founder and first.triggers[0].startswith("first round seen")
    # generation 3: two members joined the founder; it stays leader, and its eager revocation is visible
    assert joined.leader == founder and len(joined.members) == 3
    newcomers = sorted(m.member_id for m in joined.members if m.member_id != founder)
    assert joined.triggers[0].startswith("member joined: ")
    assert sorted(c.member for c in joined.causes if c.kind == "join") == newcomers and joined.kind == "deliberate"
    assert joined.trigger_member in newcomers
    old = joined.member(founder)
    assert old.revoked == first.members[0].assigned - old.assigned and old.revoked
    # generation 4: the leader left with a LeaveGroup; a newcomer leads
    assert left.triggers[0] == f"member left: {founder} (LeaveGroup)" and left.trigger_member == founder
    assert left.leader in newcomers and founder not in {m.member_id for m in left.members}
    # the leader's SyncGroup handed out exactly what each member's own SyncGroup answer says it got
    for ex in range_exchanges:
        if ex["apiName"] == "SyncGroup" and isinstance((ex["response"] or {}).get("assignment"), dict):
            r = next(x for x in tl.rounds if x.generation == ex["generationId"])
            got = {(t["topic"], p) for t in ex["response"]["assignment"]["assignedPartitions"] for p in t["partitions"]}
            assert r.member(ex["memberId"]).assigned == got
    # every partition is owned by one member after each round
    for r in tl.rounds:
        owned = [tp for m in r.members for tp in m.assigned]
        assert len(owned) == len(set(owned))
    assert all(r.eager and r.duration_ms > 0 for r in tl.rounds) and [r.complete for r in tl.rounds] == [
        True, True, False]
    # the mock coordinator refused one SyncGroup of the last round: that member never got its assignment
    refused = [m for m in left.members if m.synced_at is None]
    assert [m.errors for m in refused] == [["SyncGroup answered 42 INVALID_REQUEST"]] and left.state == "unfinished"
    assert [r.heartbeat_errors.get(27, 0) > 0 for r in tl.rounds] == [False, True, True]


def test_eager_pause_findings_follow_the_threshold(range_exchanges):
    timeline = build_timeline(range_exchanges)
    pauses = [f for f in timeline.findings if f.kind == "eager-pause"]
    rounds = build_timelines(range_exchanges)["g-aio-range"].rounds
    assert [f.generations for f in pauses] == [[r.generation] for r in rounds if r.duration_ms > 5000]
    assert pauses and all(f.evidence[0].frame for f in pauses)
    longest = max(r.duration_ms for r in rounds)
    relaxed = build_timeline(range_exchanges, thresholds=Thresholds(eager_pause_ms=longest + 1))
    assert not [f for f in relaxed.findings if f.kind == "eager-pause"]


def test_cooperative_two_phases_churn_and_refused_commits(coop_exchanges):
    timeline = build_timeline(coop_exchanges)
    tl = timeline.group("g-cfk-coop")
    gens = [r.generation for r in tl.rounds]
    assert gens[:4] == [2, 3, 4, 5] and gens[4] is None  # a last JoinGroup the capture never saw answered
    revoke, follow_up = tl.rounds[1], tl.rounds[2]
    assert (revoke.phase, follow_up.phase) == ("revoke", "assign")
    leader = revoke.member(revoke.leader)
    # cooperative: the leader kept what it still owns and gave up only what moves (no stop-the-world)
    assert leader.owned and leader.revoked == leader.owned - leader.assigned
    assert leader.assigned <= leader.owned and not revoke.eager
    assert {tp for m in revoke.members for tp in m.assigned}.isdisjoint(leader.revoked)
    assert follow_up.triggers[0].startswith("cooperative follow-up")
    last = tl.rounds[-1]
    assert not last.complete and "JoinGroup never answered" in last.members[0].errors
    # rounds 4 and 5 never finished because the next began (a member left meanwhile); the last one was still
    # going when the capture stopped, seconds after its JoinGroup: said as such, not as a stuck member
    assert [r.state for r in tl.rounds] == ["", "", "superseded", "superseded", "cut off"]

    kinds = [f.kind for f in tl.findings]
    # members joining and leaving of their own accord (the cooperative follow-up is the same rebalance): churn
    assert kinds == ["churn", "capture-ended"] and all(f.severity == "info" for f in tl.findings)
    churn = tl.findings[0]
    assert churn.generations == [2, 3, 5] and "not a storm" in churn.summary
    # commits refused with ILLEGAL_GENERATION during a rebalance, by members the next round still has: the
    # ordinary race of a cooperative rebalance, not zombies
    refused = [c for c in tl.commits if c.error_codes]
    assert [c.evidence.frame for c in refused] == [311, 377] and all(22 in c.error_codes for c in refused)
    for c in refused:
        in_force = [r for r in tl.rounds if (r.start or 0) <= c.ts][-1]
        assert in_force.member(c.member_id) is not None
    assert "zombie-commit" not in kinds
    assert tl.findings[1].member == last.members[0].member_id and "capture ends" in tl.findings[1].summary
    assert churn.summary.startswith("membership churn: 4 rounds")  # the cut-off round counts: a member left
    calmer = build_timeline(coop_exchanges, thresholds=Thresholds(storm_rounds=5)).group("g-cfk-coop")
    assert [f.kind for f in calmer.findings] == ["capture-ended"]


def test_undecodable_member_metadata_is_a_finding_not_a_crash(range_exchanges):
    damaged = copy.deepcopy(range_exchanges)
    join = next(e for e in damaged if e["apiName"] == "JoinGroup" and e["response"]["members"])
    cut = b"\x00\x00\x00\x00\x00\x09ord"  # a subscription cut short on the wire, read as the protocol layer does
    join["request"]["protocols"][0]["metadata"] = decode_member_metadata(cut, "consumer", "range", assignment=False)
    assert join["request"]["protocols"][0]["metadata"]["_raw"] == cut
    join["response"]["members"] = []
    tl = build_timeline(damaged).group("g-aio-range")
    bad = [f for f in tl.findings if f.kind == "undecodable-metadata"]
    assert len(bad) == 1 and bad[0].member == join["memberId"] and "byte" in bad[0].summary
    assert bad[0].evidence[0].frame == join["source"]["frame"]


def test_offsets_generations_commits_and_streams_account():
    groups, errors = build_generations(sample_rows(), str(SAMPLE))
    assert errors == []
    orders = groups["orders"]
    assert [r.generation for r in orders.rounds] == [7] and orders.rounds[0].commits == 6
    assert orders.rounds[0].leader == "orders-1" and orders.rounds[0].source == "offsets"
    streams = groups["word-count"]
    assert streams.kind == "streams"
    members = streams.rounds[0].members
    assert sorted((m.streams_version, m.streams_latest) for m in members) == [(10, 10), (10, 10), (11, 11)]
    assert "v10" in streams.rounds[0].explanation[0] and "v11" in streams.rounds[0].explanation[0]
    checkout = groups["checkout"]
    assert checkout.kind == "consumer (KIP-848)" and checkout.rounds[0].generation == 5
    assert checkout.rounds[0].member("m-new").epoch == 5


def test_offsets_findings_and_trouble_order():
    timeline = build_timeline(offsets_rows=sample_rows())
    kinds = {(f.group, f.kind) for f in timeline.findings}
    assert ("audit", "ownership-conflict") in kinds and ("word-count", "stuck-upgrade") in kinds
    stuck = next(f for f in timeline.findings if f.kind == "stuck-upgrade")
    assert stuck.member == "word-count-1" and "word-count-2" in stuck.summary
    troubles = [g.trouble for g in timeline.groups]
    assert troubles == sorted(troubles, reverse=True) and timeline.groups[-1].findings == []
    doc = AnalysisReport(timeline=timeline).to_json()
    assert set(doc["groups"]["orders"]) >= {"rounds", "findings"} and doc["findings"]
    json.dumps(doc)  # plain JSON all the way down


def test_damaged_offsets_rows_are_reported_with_their_position():
    rows = sample_rows()
    rows[0] = dict(rows[0], key="0002", _line=1)  # a GroupMetadata key cut after its type
    rows[1] = dict(rows[1], value="not bytes", _line=2)
    groups, errors = build_generations(rows, "dump.jsonl")
    assert len(errors) == 2 and errors[0].startswith("dump.jsonl line 1 (offset 0): ") and "byte" in errors[0]
    assert "orders" not in groups or not groups["orders"].rounds  # the rest is still read
    assert groups["word-count"].rounds


def test_kip848_epochs_and_reconciliation():
    tl = build_timeline(capture_exchanges(CAPTURES["kip848"])).group("g-cfk-848")
    assert tl.kind == "consumer (KIP-848)"
    assert [r.generation for r in tl.rounds] == [2, 3, 4, 5] and all(r.complete for r in tl.rounds)
    alone, shared, after, emptied = tl.rounds
    first = alone.members[0]
    assert alone.triggers[0].startswith(f"member joined: {first.member_id}") and len(alone.members) == 1
    everything = first.assigned
    assert first.reconciled and first.owned == first.target == everything and len(everything) == 8
    # a second member: the first gives up half, the newcomer gets exactly that half; nobody owns a partition twice
    newcomer = next(m for m in shared.members if m.member_id != first.member_id)
    assert shared.trigger_member == newcomer.member_id
    kept = shared.member(first.member_id)
    assert kept.revoked == newcomer.added == everything - kept.target and kept.target.isdisjoint(newcomer.target)
    assert all(m.reconciled and m.epoch == 3 for m in shared.members)
    assert shared.moved == kept.revoked
    # the first member leaves with epoch -1: the other takes everything back
    assert after.triggers == [f"member left: {first.member_id} (heartbeat with epoch -1)"]
    assert [m.member_id for m in after.members] == [newcomer.member_id] and after.members[0].target == everything
    # then the other leaves too: nobody hears the next epoch, which empties the group (the coordinator's bump)
    assert emptied.triggers == [f"group emptied (member left: {newcomer.member_id} (heartbeat with epoch -1))"]
    assert not emptied.members
    assert not [f for f in tl.findings if f.kind == "join-unfinished"]
    assert not any(r.eager for r in tl.rounds if r.members)  # (the emptied round stops nobody)


def test_refused_and_unanswered_joins_land_in_the_right_round():
    tl = build_timeline(capture_exchanges(CAPTURES["sticky"])).group("g-aio-sticky")
    last = tl.rounds[-1]
    # the last JoinGroup (after the group settled at generation 5) was never answered: a round of its own
    assert last.generation is None and not last.complete and last.start > tl.rounds[-2].end
    assert last.members[0].errors == ["JoinGroup never answered"]
    assert tl.rounds[-2].generation == 5 and tl.rounds[-2].protocol == "sticky"
    # by then the member had an assignment: its subscription carries the sticky assignor's user data
    assert last.members[0].user_data == "StickyAssignorUserData v1"
    assert last.members[0].protocols == ["sticky"] and last.members[0].subscription_version == 0


def test_joins_and_leaves_in_quick_succession_are_churn_not_a_storm():
    timeline = build_timeline(capture_exchanges(CAPTURES["storm"]))
    tl = timeline.group("g-cfk-storm")
    churn = next(f for f in tl.findings if f.kind == "churn")
    assert churn.severity == "info" and churn.generations == [r.generation for r in tl.rounds if r.generation]
    assert "member left x4" in churn.summary and churn.evidence[0].frame == tl.rounds[0].evidence.frame
    assert all(r.kind == "deliberate" for r in tl.rounds) and "storm" not in [f.kind for f in tl.findings]
    # the coordinator named a leader whose own JoinGroup the capture missed: it is still a member of its round
    r4 = next(r for r in tl.rounds if r.generation == 4)
    assert r4.member(r4.leader) is not None


def test_a_real_upgrade_left_half_way():
    tl = build_timeline(capture_exchanges(CAPTURES["upgrade"])).group("g-upgrade")
    stuck = next(f for f in tl.findings if f.kind == "stuck-upgrade")
    mixed = [r for r in tl.rounds if len(r.versions) > 1]
    assert stuck.severity == "critical" and stuck.generations == [r.generation for r in mixed] and len(mixed) >= 2
    assert {v for r in mixed for v in r.versions} == {"consumer v0", "consumer v3"}  # aiokafka and librdkafka
    old = {m.member_id for r in mixed for m in r.members if m.subscription_version == 0}
    assert stuck.member in old and all(m.client_id.startswith("aio-") for r in mixed for m in r.members
                                       if m.member_id in old and m.client_id)
    assert "then consumer v0 only" in stuck.summary  # the new client left again: the upgrade went back
    assert not [f for f in tl.findings if f.kind == "upgrade-finished"]


def _generation(generation: int, versions: dict[str, int]) -> dict:
    members = [{"memberId": m, "groupInstanceId": None, "clientId": m, "clientHost": "/10.0.0.1",
                "rebalanceTimeout": 300000, "sessionTimeout": 45000,
                "subscription": km.encode(km.model("ConsumerProtocolSubscription")(topics=["orders"]), v),
                "assignment": km.encode(km.model("ConsumerProtocolAssignment")(assigned_partitions=[]), 0)}
               for m, v in versions.items()]
    key, value = encode_record(new_record(2, {"group": "shop"}, {
        "protocolType": "consumer", "generation": generation, "protocol": "range", "leader": next(iter(versions)),
        "currentStateTimestamp": -1, "members": members}))
    return {"key": key, "value": value, "timestamp": 1_767_225_600_000 + generation * 3_600_000, "offset": generation}


def test_an_upgrade_that_finished_is_information_not_trouble():
    rows = [_generation(10, {"a": 1, "b": 1}), _generation(11, {"a": 3, "b": 1}), _generation(12, {"a": 3, "b": 3})]
    tl = build_timeline(offsets_rows=rows).group("shop")
    assert [f.kind for f in tl.findings] == ["upgrade-finished"] and tl.findings[0].severity == "info"
    assert tl.findings[0].generations == [11, 12] and "everyone on consumer v3" in tl.findings[0].summary
    assert tl.rounds[1].triggers == ["metadata changed: a (was consumer v1, now consumer v3)"]
    halfway = build_timeline(offsets_rows=rows[:2]).group("shop")  # the log ends mixed
    assert [(f.kind, f.severity, f.member) for f in halfway.findings] == [("stuck-upgrade", "warning", "b")]


JUNK = st.sampled_from([None, "x", -1, 0, 2**40, 1.5, True, [], {}, ["a"], [{"topic": 1}], {"a": None}, b"\x00"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_exchanges_of_any_shape_never_break_the_timeline(coop_exchanges, data):
    """Rows from JSON files can hold anything: the timeline skips or reports them, never raises."""
    exchanges = copy.deepcopy(coop_exchanges)
    for _ in range(data.draw(st.integers(1, 12))):
        node: Any = data.draw(st.sampled_from(exchanges))
        parent, key = None, None
        while True:  # walk down to a random place inside the exchange
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            if not keys:
                break
            parent, key = node, data.draw(st.sampled_from(keys))
            child = node[key]
            if not isinstance(child, dict | list) or not child or data.draw(st.booleans()):
                break
            node = child
        if parent is not None:
            parent[key] = copy.deepcopy(data.draw(JUNK))  # the samples are shared objects
    timeline = build_timeline(exchanges)
    terminal_text(AnalysisReport(timeline=timeline))
    json.dumps(AnalysisReport(timeline=timeline).to_json(), default=str)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_offsets_rows_of_any_shape_are_reported_not_raised(data):
    rows = sample_rows()
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, len(rows) - 1))
        field = data.draw(st.sampled_from(["key", "value", "timestamp", "offset"]))
        original = rows[i].get(field)
        cut = original[: data.draw(st.integers(0, len(original)))] if isinstance(original, str) else None
        rows[i] = dict(rows[i], **{field: data.draw(st.sampled_from([cut, None, 7, -1, "zz", [], {}, True]))})
    timeline = build_timeline(offsets_rows=rows)
    assert all(" line " in e or " offset " in e for e in timeline.errors)  # each error says where
    terminal_text(AnalysisReport(timeline=timeline))


GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden" / "SubscriptionInfo"


def test_a_captured_streams_round_gets_the_negotiation_account(range_exchanges):
    """The range capture's second round, its members sending Kafka Streams subscriptions instead: one
    still on v10 (Java's bytes, latest supported 11), the others on v11 (Java's bytes), as the protocol layer
    nests them under the "stream" protocol."""
    v10 = (GOLDEN / "v10" / "java-013-no-tasks-no-endpoint-no-tags.bin").read_bytes()
    v11 = (GOLDEN / "v11" / "java-014-no-tasks-no-endpoint-no-tags.bin").read_bytes()
    exchanges = copy.deepcopy(range_exchanges)
    joins = [e for e in exchanges if e["apiName"] == "JoinGroup" and e["response"]["generationId"] == 3]
    behind = joins[-1]["memberId"]
    for e in joins:
        info = v10 if e["memberId"] == behind else v11
        wrapped = km.encode(km.model("ConsumerProtocolSubscription")(topics=["orders"], user_data=info), 0)
        metadata = decode_member_metadata(wrapped, "consumer", "stream", assignment=False)
        e["request"]["protocols"] = [{"name": "stream", "metadata": metadata}]
        e["response"]["protocolName"] = "stream"
        for m in e["response"]["members"]:
            m["metadata"] = metadata if m["memberId"] == e["memberId"] else m["metadata"]
    tl = build_timeline(exchanges).group("g-aio-range")
    r = next(x for x in tl.rounds if x.generation == 3)
    assert tl.kind == "streams" and r.protocol == "stream"
    assert sorted((m.streams_version, m.streams_latest) for m in r.members) == [(10, 11), (11, 11), (11, 11)]
    # the negotiation layer's account (its wording is that layer's): the census, and the member behind
    assert "v10" in r.explanation[0] and "v11" in r.explanation[0] and behind in " ".join(r.explanation)
    assert not r.eager and "eager-pause" not in {f.kind for f in tl.findings if 3 in f.generations}


def test_captured_streams_and_cooperative_groups():
    timeline = build_timeline(capture_exchanges(CAPTURES["streams"]) + capture_exchanges(CAPTURES["cooperative"]))
    streams = timeline.group("g-aio-streams")
    assert streams.kind == "streams" and all(r.protocol == "stream" for r in streams.rounds)
    first = streams.rounds[0]
    assert {(m.streams_version, m.streams_latest, m.streams_assignment_version) for m in first.members} == {
        (11, 11, 11)}
    assert "v11" in first.explanation[0] and "v10" not in " ".join(first.explanation)
    coop = timeline.group("g-cfk-coop")
    assert [r.phase for r in coop.rounds[1:3]] == ["revoke", "assign"]
    withheld = {tp for m in coop.rounds[1].members for tp in m.revoked}
    assert withheld and withheld <= {tp for m in coop.rounds[2].members for tp in m.added}  # handed out next


def test_a_join_turned_away_by_a_broker_that_is_not_the_coordinator_is_no_member():
    """A Java consumer's first JoinGroup can reach a broker that is not (yet) the group's coordinator: answered
    NOT_COORDINATOR without a member id, it joined nothing, and the client finds the coordinator and joins there."""
    from kafka_meta.capture import read_capture

    path = Path(__file__).resolve().parents[1] / "fixtures" / "lab" / "classic" / "capture.pcapng"
    exchanges = [e.to_dict() for e in read_capture(path)]
    first = next(e for e in exchanges if e["apiName"] == "JoinGroup" and e["groupId"] == "lab-classic-range")
    turned_away = copy.deepcopy(first)
    turned_away["request"]["memberId"] = turned_away["memberId"] = ""
    turned_away["response"] = {**turned_away["response"], "errorCode": 16, "memberId": "", "generationId": -1,
                               "leader": "", "members": []}
    turned_away.update(errorCode=16, stream=-1, ts=first["ts"] - 1, responseTs=first["ts"] - 0.99)
    before = build_timeline(exchanges).group("lab-classic-range")
    after = build_timeline([turned_away, *exchanges]).group("lab-classic-range")
    assert all(m.member_id for r in after.rounds for m in r.members)
    assert [[m.member_id for m in r.members] for r in after.rounds] == \
        [[m.member_id for m in r.members] for r in before.rounds]
