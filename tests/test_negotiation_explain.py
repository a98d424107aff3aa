"""explain: accounts of captured groups, from facts and from bytes (members and __consumer_offsets dumps)."""

from __future__ import annotations

from pathlib import Path

import pytest

import kafka_meta as km
from kafka_meta.negotiation.capture import CapturedGroup, CapturedMember, explain_group, read_groups
from kafka_meta.negotiation.explain import (
    ConsumerMember,
    census,
    explain_consumer,
    explain_message,
    explain_streams,
)
from kafka_meta.negotiation.facts import StreamsAssignment, StreamsSubscription
from kafka_meta.negotiation.outcomes import NegotiationError

ROOT = Path(__file__).resolve().parents[1]


def s(member, u, latest=None):
    return StreamsSubscription(member, u, latest if latest is not None else u)


def test_census():
    assert census([11, 11, 7, 11]) == "3 members on v11, 1 on v7"
    assert census([3]) == "1 member on v3"


def test_the_issue_s_example():
    e = explain_streams([s("a", 11), s("b", 11), s("c", 11), s("x", 7)], releases={"a": "3.9"}, leader="a")
    assert e.summary.startswith("3 members on v11, 1 on v7: the leader (a, 3.9.0) encodes v7 for everyone")
    assert "members a, b, c switch to v7 and rejoin" in e.summary
    assert e.data["members"]["x"]["release"] == "2.6.0" and not e.data["members"]["x"]["releaseGiven"]
    assert any("x: release not given" in d for d in e.details)


def test_end_of_upgrade_and_pre_2_4_upgrade_at_next_rebalance():
    e = explain_streams([s("a", 7, 11), s("b", 7, 11), s("c", 11)], leader="a")
    assert "members a, b upgrade to v11 and rejoin" in e.summary
    assert "member c stays on v11 but rejoins" in e.summary
    old = explain_streams([s("a", 3, 4), s("b", 3, 4)], releases={"a": "2.3", "b": "2.3"}, leader="a")
    assert "members a, b upgrade to v4 at the next rebalance" in old.summary


def test_a_2_0_member_under_a_newer_2_x_leader_cannot_write_its_next_subscription():
    e = explain_streams([s("a", 3, 4), s("b", 3, 3)], leader="a")
    assert "member b upgrades to v4 at the next rebalance, then fails" in e.summary


def test_probing_with_a_2_3_leader_and_failures():
    e = explain_streams([s("old", 4), s("new", 11)], releases={"old": "2.3", "new": "3.9"}, leader="old")
    assert "probes: new gets an empty v4 assignment" in e.summary
    assert e.data["members"]["new"]["tasks"] == "EMPTY"
    group = [s("legacy", 2, -1), s("lead", 8), s("new", 11)]
    fails = explain_streams(group, releases={"legacy": "1.1", "lead": "2.6.2", "new": "3.9"}, leader="lead")
    assert "cannot assign: IllegalStateException" in fails.summary
    group = [s("legacy", 2, -1), s("lead", 9), s("new", 11)]
    err = explain_streams(group, releases={"legacy": "1.1", "lead": "2.8", "new": "3.9"}, leader="lead")
    assert "sends everyone error ASSIGNMENT_ERROR (3) at v9" in err.summary
    assert "member legacy fails" in err.summary          # a v2 member cannot read a v11 error assignment
    assert "member new stops on error ASSIGNMENT_ERROR (3)" in err.summary


def test_captured_assignments_are_judged_as_captured():
    e = explain_streams([s("a", 11), s("b", 10)], {"a": StreamsAssignment(10, 10), "b": StreamsAssignment(10, 10)},
                        leader="a")
    assert "member a switches to v10 and rejoins" in e.summary
    differs = explain_streams([s("a", 11), s("b", 11)], {"a": StreamsAssignment(10, 10),
                                                         "b": StreamsAssignment(10, 10)}, leader="a")
    assert any("differs from what" in d for d in differs.details)


def test_unknown_leaders_and_impossible_releases_are_refused():
    with pytest.raises(NegotiationError):
        explain_streams([s("a", 11)], leader="zz")
    with pytest.raises(NegotiationError):
        explain_streams([s("a", 12)], releases={"a": "3.9"})      # 3.9 code cannot write version 12


def test_future_code_is_explained_by_its_latest_version():
    # streams_upgrade_test.py test_version_probing_upgrade: an instance bounced to future code (latest 12)
    # next to 11-speaking ones "Sent a version 12 subscription and got version 11 assignment back (successful
    # version probing). Downgrade subscription metadata to commonly supported version 11 ..."
    e = explain_streams([s("a", 11), s("b", 11), s("f", 12)], leader="a")
    assert "member f switches to v11 and rejoins" in e.summary and "pooled as one future client" in e.summary
    assert any("f: release not given; its subscription points to future code (latest version 12)" in d
               for d in e.details)
    # the last bounce: a future leader answers v11 subscriptions that advertise latest 12 with c = 12, and
    # they log "... (successful version probing and end of rolling upgrade). Upgrading ... to 12"
    end = explain_streams([s("f1", 11, 12), s("f2", 11, 12), s("f3", 12)], releases={"f1": "v12"}, leader="f1")
    assert e.data["leaderRelease"] == "3.2.0" and end.data["leaderRelease"] == "future code (latest version 12)"
    assert "members f1, f2 upgrade to v12 and rejoin" in end.summary
    assert "member f3 stays on v12 but rejoins" in end.summary


def test_consumer_group_follow_up_and_validation():
    members = [ConsumerMember("a", 3, frozenset({("t", 0), ("t", 1)}), frozenset({("t", 0)})),
               ConsumerMember("b", 3, frozenset(), frozenset({("t", 1)}))]
    e = explain_consumer(members, "my-assignor", "3.9")
    assert "t-1 handed to a new owner while another member still claims it" in e.summary
    assert "a 3.9 leader rejects this (IllegalStateException)" in e.summary
    skipped = explain_consumer(members, "cooperative-sticky", "3.1")
    assert "unchecked" in skipped.summary
    ok = explain_consumer([ConsumerMember("a", 3, frozenset({("t", 0), ("t", 1)}), frozenset({("t", 0)})),
                           ConsumerMember("b", 3, frozenset(), frozenset())], "cooperative-sticky")
    assert "a revokes partitions and rejoin" in ok.summary


@pytest.mark.parametrize(("line", "needle"), [
    ("INFO Unable to decode subscription data: used version: 12; latest supported version: 12", "version probing"),
    ("TaskAssignmentException: Unable to decode assignment data: used version: 11; latest supported version: 9",
     "no forward compatibility"),
    ("IllegalStateException: Unknown metadata version: 4; latest supported version: 3", "2.0 - 2.3 members"),
    ("Sent a version 8 subscription and got version 7 assignment back (successful version probing).", "switches down"),
    ("Sent a version 7 subscription and group's latest commonly supported version is 8", "End of a rolling upgrade"),
    ("used version 5; latest supported version 4", "three places"),
])
def test_messages(line, needle):
    assert any(needle in text for text in explain_message(line))


def test_unrelated_text():
    assert explain_message("all good") == []


def consumer_bytes(owned, assigned, version=3):
    sub = km.model("ConsumerProtocolSubscription")(topics=["t"], user_data=None, owned_partitions=[
        {"topic": "t", "partitions": sorted(owned)}] if owned else [], generation_id=4, rack_id=None)
    asg = km.model("ConsumerProtocolAssignment")(assigned_partitions=[{"topic": "t", "partitions": sorted(assigned)}],
                                                 user_data=None)
    return km.encode(sub, version).hex(), km.encode(asg, version).hex()


def test_from_captured_consumer_bytes():
    a_sub, a_asg = consumer_bytes({0, 1}, {0})
    b_sub, b_asg = consumer_bytes(set(), {1}, version=1)
    groups = read_groups([
        {"group": "g", "member": "a", "subscription": a_sub, "assignment": a_asg, "protocol": "custom",
         "leader": True},
        {"group": "g", "member": "b", "subscription": b_sub, "assignment": b_asg},
    ])
    assert len(groups) == 1 and groups[0].leader == "a"
    e = explain_group(groups[0], leader_release="2.8.1")
    assert e.summary.startswith("group g: 1 member on v3, 1 on v1 of the consumer protocol")
    assert "a 2.8.1 leader rejects this" in e.summary


def test_from_an_offsets_dump():
    import json

    lines = [json.loads(x) for x in (ROOT / "fixtures/offsets/sample.jsonl").read_text().splitlines() if x.strip()]
    groups = read_groups(lines)
    names = [g.group_id for g in groups]
    assert {"billing", "ledger", "audit"} <= set(names) and "connect-cluster" not in names
    audit = next(g for g in groups if g.group_id == "audit")
    assert audit.protocol == "cooperative-sticky" and audit.leader == "a1-eee"
    e = explain_group(audit)
    assert "a1-eee reports owned partitions" in " ".join(e.details)


def test_bad_capture():
    with pytest.raises(NegotiationError):
        read_groups([{"member": "x"}])
    with pytest.raises(NegotiationError):
        explain_group(CapturedGroup("g", members=[CapturedMember("x", b"\x00")]))


def golden_streams(kind: str, version: int, latest: int | None = None) -> bytes:
    from conftest import golden_cases

    for case in golden_cases(f"java/streams-{kind}.jsonl"):
        fields = case["fields"]
        second = fields.get("latestSupportedVersion", fields.get("commonlySupportedVersion"))
        if case["version"] == version and (latest is None or second == latest) and not fields.get("errCode"):
            return bytes.fromhex(case["hex"])
    pytest.skip("golden Streams cases are not available")


def wrap_subscription(info: bytes) -> str:
    sub = km.model("ConsumerProtocolSubscription")(topics=["input"], user_data=info, owned_partitions=[],
                                                   generation_id=-1, rack_id=None)
    return km.encode(sub, 3).hex()


def wrap_assignment(info: bytes) -> str:
    return km.encode(km.model("ConsumerProtocolAssignment")(assigned_partitions=[], user_data=info), 3).hex()


def test_from_java_streams_bytes():
    from conftest import need_shared

    need_shared()
    v11 = golden_streams("subscription", 11, 11)
    v8 = golden_streams("subscription", 8, 8)           # a 2.6.1 - 2.7 member
    future = golden_streams("subscription", 12, 12)     # a member newer than any release
    groups = read_groups([
        {"group": "app", "member": "new", "subscription": wrap_subscription(v11), "protocol": "stream",
         "leader": True, "release": "3.9"},
        {"group": "app", "member": "old", "subscription": wrap_subscription(v8)},
    ])
    e = explain_group(groups[0])
    assert e.kind == "streams"
    assert e.summary.startswith("group app: 1 member on v11, 1 on v8: the leader (new, 3.9.0) encodes v8 for everyone")
    assert "member new switches to v8 and rejoins" in e.summary
    assert e.data["members"]["old"]["release"] == "2.6.1"
    # the same with the assignments the leader sent (Java bytes at v8, commonly supported 8)
    a8 = golden_streams("assignment", 8, 8)
    groups = read_groups([
        {"member": "new", "subscription": wrap_subscription(v11), "assignment": wrap_assignment(a8), "leader": True},
        {"member": "old", "subscription": wrap_subscription(v8), "assignment": wrap_assignment(a8)},
    ])
    assert "member new switches to v8 and rejoins" in explain_group(groups[0]).summary
    # a future subscription: the leader probes (2.4+: pooled)
    groups = read_groups([
        {"member": "lead", "subscription": wrap_subscription(v11), "leader": True, "release": "4.0"},
        {"member": "next", "subscription": wrap_subscription(future)},
    ])
    e = explain_group(groups[0])
    assert "pooled as one future client" in e.summary and e.data["probing"]
    assert any("future code" in d and "newer than any release" in d for d in e.details)
    with pytest.raises(NegotiationError):
        explain_group(groups[0], releases={"next": "4.4"})


def test_error_assignments_are_not_explained_as_probing():
    # Kafka's assign() returns the error assignment before checkMetadataVersions decides on probing
    from kafka_meta.negotiation import StreamsSubscription as S

    e = explain_streams([S("a", 11, 11), S("old", 2), S("future", 12, 12)], leader="a",
                        releases={"a": "3.9", "old": "1.1"})
    assert e.data["probing"] is False and e.data["outcome"] == "error assignments"
    assert "no version probing for future" in e.summary and "pooled" not in e.summary


def test_consumer_explanation_names_the_callbacks():
    # ConsumerCoordinator.onJoinComplete: a COOPERATIVE member revokes owned - assigned, then always calls
    # onPartitionsAssigned with assigned - owned
    members = [ConsumerMember("a", 3, frozenset({("t", 0), ("t", 1)}), frozenset({("t", 0)})),
               ConsumerMember("b", 3, frozenset(), frozenset({("t", 2)}))]
    e = explain_consumer(members, "cooperative-sticky")
    assert e.data["members"]["a"]["callbacks"] == ["onPartitionsRevoked(t-1)", "onPartitionsAssigned(none)"]
    assert e.data["members"]["b"]["callbacks"] == ["onPartitionsAssigned(t-2)"]
    assert "a after the SyncGroup: onPartitionsRevoked(t-1) onPartitionsAssigned(none)" in e.details


def test_captured_static_members_are_explained():
    # GroupMetadataValue v3+ (2.3+, KIP-345) carries each member's groupInstanceId and sessionTimeout
    sub = km.encode(km.model("ConsumerProtocolSubscription")(topics=["t"], user_data=None), 3)
    groups = read_groups([
        {"group": "g", "member": "a-1", "subscription": sub.hex(), "groupInstanceId": "a", "sessionTimeout": 30000},
        {"group": "g", "member": "b-1", "subscription": sub.hex()},
    ])
    e = explain_group(groups[0])
    assert ("a-1: static member (group.instance.id a); a restart back within its session timeout (30000 ms) costs "
            "0 rebalances, a longer one 2") in e.details
    assert not any(d.startswith("b-1:") and "static" in d for d in e.details)
    old = explain_group(groups[0], releases={"a-1": "2.2"})
    assert any(d.startswith("a-1: group.instance.id is unknown to a 2.2.0 consumer") for d in old.details)
