"""The Streams leader's rules (section 5.1 A) at every release boundary where they changed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_meta.negotiation.facts import StreamsSubscription
from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.releases import KNOWN_LINES, Release
from kafka_meta.negotiation.streams_leader import Outcome, TaskPlan, decide_leader
from kafka_meta.negotiation.streams_versions import latest_supported_version
from kafka_meta.streams.protocol import UNKNOWN


def sub(member, u, s=None, error=0):
    if s is None:
        s = UNKNOWN if u < 3 else u
    return StreamsSubscription(member, u, s, error)


def test_normal_group_2_4_plus_encodes_min_received_and_min_supported():
    d = decide_leader("3.9", [sub("a", 11), sub("b", 10, 11), sub("c", 10)])
    assert d.outcome is Outcome.ASSIGNED
    assert {m.version for m in d.members.values()} == {10}
    assert {m.commonly_supported_version for m in d.members.values()} == {10}
    assert not d.probing and d.host_maps


def test_2_0_to_2_3_leader_writes_its_own_latest_as_c():
    d = decide_leader("2.3", [sub("a", 3, 4), sub("b", 3, 3)])
    assert {(m.version, m.commonly_supported_version) for m in d.members.values()} == {(3, 4)}
    d24 = decide_leader("2.4", [sub("a", 3, 4), sub("b", 3, 3)])
    assert {(m.version, m.commonly_supported_version) for m in d24.members.values()} == {(3, 3)}


@pytest.mark.parametrize(("release", "c"), [
    ("2.0", 3), ("2.1.1", 4), ("2.2.1", 4), ("2.2.2", 3), ("2.2.3", 3), ("2.3.0", 4), ("2.3.1", 3), ("2.4", 3),
])
def test_kafka_8649_leaders_write_the_commonly_supported_version_from_2_2_2_and_2_3_1(release, c):
    # one member still on 2.0 code (latest 3): before the fix the leader writes its own latest, after it the minimum
    d = decide_leader(release, [sub("new", 3, latest_supported_version(release)), sub("old", 3, 3)])
    assert {(m.version, m.commonly_supported_version) for m in d.members.values()} == {(3, c)}


def test_probing_2_3_empty_assignment_vs_2_4_pooled():
    subs = [sub("old", 4), sub("new", 11)]
    old = decide_leader("2.3", subs)
    assert old.probing and old.outcome is Outcome.ASSIGNED
    assert old.members["new"].tasks is TaskPlan.EMPTY
    assert (old.members["new"].version, old.members["new"].commonly_supported_version) == (4, 4)
    assert old.members["old"].tasks is TaskPlan.PREVIOUS
    assert (old.members["old"].version, old.members["old"].commonly_supported_version) == (4, 4)
    new = decide_leader("2.4", [sub("old", 4), sub("new", 11)])
    assert new.members["new"].tasks is TaskPlan.POOLED
    assert (new.members["new"].version, new.members["new"].commonly_supported_version) == (4, 4)
    assert new.members["old"].tasks is TaskPlan.COMPUTED
    assert not new.reports_unstable
    assert decide_leader("2.7", subs).reports_unstable


@pytest.mark.parametrize(("release", "outcome"), [
    ("2.0", Outcome.ASSIGN_FAILS), ("2.3", Outcome.ASSIGN_FAILS), ("2.6.3", Outcome.ASSIGN_FAILS),
    ("2.7", Outcome.ERROR_ASSIGNMENTS), ("3.9", Outcome.ERROR_ASSIGNMENTS), ("4.0", Outcome.ERROR_ASSIGNMENTS),
])
def test_future_with_a_version_1_2_member(release, outcome):
    d = decide_leader(release, [sub("legacy", 2), sub("future", 12)])
    assert d.outcome is outcome
    L = latest_supported_version(release)
    if outcome is Outcome.ASSIGN_FAILS:
        assert d.failure.exception == "IllegalStateException" and not d.members
    else:
        assert {(m.version, m.commonly_supported_version, m.error_code, m.tasks) for m in d.members.values()} == \
            {(L, L, 3, TaskPlan.NONE)}


def test_error_assignments_are_never_version_probing():
    # StreamsPartitionAssignor.assign (apache/kafka streams/src/main/java/.../StreamsPartitionAssignor.java):
    # the shutdown request returns errorAssignment(SHUTDOWN_REQUESTED) in "Step One", before
    # checkMetadataVersions is called; a future subscription next to a pre-2.0 one makes checkMetadataVersions
    # throw TaskAssignmentException, caught into errorAssignment(ASSIGNMENT_ERROR). versionProbing is never set.
    mixed = decide_leader("3.9", [sub("legacy", 2), sub("future", 12)])
    assert mixed.outcome is Outcome.ERROR_ASSIGNMENTS and not mixed.probing
    assert mixed.members["future"].future and mixed.members["future"].tasks is TaskPlan.NONE
    stop = decide_leader("2.8", [sub("a", 9), sub("b", 12, 12), sub("stop", 9, 9, error=4)])
    assert stop.outcome is Outcome.ERROR_ASSIGNMENTS and not stop.probing and not stop.reports_unstable
    # the same future member without the shutdown request or the legacy member is a probing rebalance
    assert decide_leader("2.8", [sub("a", 9), sub("b", 12, 12)]).probing


def test_shutdown_request_wins_from_2_8_only():
    subs = [sub("legacy", 2), sub("future", 12), sub("stop", 9, 9, error=4)]
    assert decide_leader("2.7", subs).members["stop"].error_code == 3
    d = decide_leader("2.8", subs)
    assert d.outcome is Outcome.ERROR_ASSIGNMENTS
    assert {(m.version, m.commonly_supported_version, m.error_code) for m in d.members.values()} == {(9, 9, 4)}
    # code 4 below version 9 is not on the wire; a future subscription's code is never read
    assert decide_leader("3.9", [sub("a", 8, 8, error=4), sub("b", 11)]).outcome is Outcome.ASSIGNED
    assert decide_leader("2.8", [sub("a", 9), sub("b", 12, 12, error=4)]).outcome is Outcome.ASSIGNED


@pytest.mark.parametrize(("release", "fails"), [("2.4", False), ("2.5", True), ("3.9", True), ("4.4", True)])
def test_inconsistent_subscription_fails_in_the_decoder_from_2_5(release, fails):
    d = decide_leader(release, [sub("a", 5, 5), sub("bad", 5, 4)])
    assert (d.outcome is Outcome.ASSIGN_FAILS) is fails
    if fails:
        assert d.failure.exception == "IllegalArgumentException" and not d.members


@pytest.mark.parametrize(("release", "exception"), [("2.4", "TaskAssignmentException"),
                                                    ("2.5", "IllegalArgumentException"),
                                                    ("4.4", "IllegalArgumentException")])
def test_a_version_0_subscription(release, exception):
    # from 2.5 the decoder's check of the two version fields refuses it (Kafka 4.4, through the peer)
    d = decide_leader(release, [sub("a", 5, 5), sub("zero", 0)])
    assert d.outcome is Outcome.ASSIGN_FAILS and d.failure.exception == exception


def test_pre_2_0_leader_cannot_decode_a_newer_subscription():
    d = decide_leader("1.1", [sub("a", 2), sub("b", 4)])
    assert d.outcome is Outcome.ASSIGN_FAILS and d.failure.exception == "TaskAssignmentException"
    ok = decide_leader("1.1", [sub("a", 2), sub("b", 1)])
    assert {(m.version, m.commonly_supported_version) for m in ok.members.values()} == {(1, UNKNOWN)}
    assert not ok.host_maps


def test_legacy_members_without_future_need_no_probing():
    d = decide_leader("3.9", [sub("a", 2), sub("b", 11)])
    assert d.outcome is Outcome.ASSIGNED and not d.probing
    assert {(m.version, m.commonly_supported_version) for m in d.members.values()} == {(2, UNKNOWN)}
    assert d.min_supported == UNKNOWN and d.host_maps


def test_bad_input():
    with pytest.raises(NegotiationError):
        decide_leader("3.9", [])
    with pytest.raises(NegotiationError):
        decide_leader("3.9", [sub("a", 11), sub("a", 11)])


releases = st.sampled_from([line for line in KNOWN_LINES if Release.parse(line) >= Release.parse("2.0")])
versions = st.integers(1, 13)


@given(releases, st.lists(versions, min_size=1, max_size=6))
def test_invariants(release, used):
    subs = [sub(f"m{i}", u) for i, u in enumerate(used)]
    d = decide_leader(release, subs)
    L = latest_supported_version(release)
    if d.outcome is Outcome.ASSIGN_FAILS:
        assert d.failure is not None and not d.members
        return
    assert set(d.members) == {s.member_id for s in subs}
    for s in subs:
        plan = d.members[s.member_id]
        assert 1 <= plan.version <= L
        # nobody is handed a version above what it sent, unless it is an error or empty probing assignment
        if plan.tasks in (TaskPlan.COMPUTED, TaskPlan.PREVIOUS):
            assert plan.version <= s.used_version
        if plan.version < 3:
            assert plan.commonly_supported_version == UNKNOWN


def test_followup_expected_from_members_that_switch_versions():
    d = decide_leader("3.9", [sub("a", 11), sub("b", 10, 11), sub("c", 10)])
    assert d.followup_by == ("a",)                     # a was ahead (r < u); c's latest caps the group at 10
    d = decide_leader("3.9", [sub("a", 10, 11), sub("b", 11)])
    assert d.followup_by == ("a", "b")                 # a upgrades (c = 11 > 10), b was ahead
    d = decide_leader("2.3", [sub("a", 3, 4), sub("b", 3, 4)])
    assert not d.followup                              # 2.0-2.3 members upgrade at the next rebalance only
    d = decide_leader("2.7", [sub("old", 8), sub("new", 9)])
    assert d.followup_by == ("new",) and d.reports_unstable
    assert not decide_leader("3.9", [sub("a", 11), sub("b", 11)]).followup


def test_future_code_leads_by_its_latest_version():
    # Kafka's own future code (streams/src/test/java/.../tests/StreamsUpgradeTest.java,
    # FutureStreamsPartitionAssignor: usedSubscriptionMetadataVersion = LATEST_SUPPORTED_VERSION + 1) is the
    # newest rules with a higher latest version: 11-speaking members make it answer at 11 ...
    d = decide_leader("latest+1", [sub("f1", 11, 12), sub("f2", 11, 12), sub("f3", 12)])
    assert d.latest == 12 and d.outcome is Outcome.ASSIGNED and not d.probing
    assert {(m.version, m.commonly_supported_version) for m in d.members.values()} == {(11, 12)}
    assert d.followup_by == ("f1", "f2", "f3")        # f1, f2 upgrade to 12, f3 was ahead of the group
    assert "leader future code (latest version 12)" in d.steps[0]
    # ... a member newer still (latest + 2) is probing for it, as 12 is for a 3.9 leader
    d = decide_leader(12, [sub("a", 12), sub("b", 13)])
    assert d.probing and d.members["b"].tasks is TaskPlan.POOLED and d.members["b"].version == 12
    old = decide_leader("3.9", [sub("a", 11), sub("b", 12)])
    assert old.probing and (old.members["b"].version, old.members["b"].commonly_supported_version) == (11, 11)
    # and a pre-2.0 member next to a future one is still error code 3, at the leader's own latest
    err = decide_leader("v12", [sub("legacy", 2), sub("b", 13)])
    assert {(m.version, m.error_code) for m in err.members.values()} == {(12, 3)} and not err.probing


@pytest.mark.parametrize(("party", "latest", "rules_of"), [
    ("3.9", 11, "3.9.0"), (7, 7, "2.6.0"), (8, 8, "2.6.1"), ("v11", 11, "3.2.0"), (12, 12, "4.4.0"),
    ("latest+2", 13, "4.4.0"),
])
def test_parties_by_release_or_latest_version(party, latest, rules_of):
    from kafka_meta.negotiation.streams_versions import streams_code

    code = streams_code(party)
    assert (code.latest, str(code.release), code.future) == (latest, rules_of, latest > 11)
    with pytest.raises(NegotiationError):
        streams_code(0)
