"""Static members in the simulator.

Kafka's system test tests/kafkatest/tests/streams/streams_static_membership_test.py
(``test_rolling_bounces_will_not_trigger_rebalance_under_static_membership``) bounces three Streams instances
with group.instance.id three times and asserts that the generation never changes ("Stream rolling bounce
have caused unexpected generation bump"). A bounce that outlasts the session timeout, or that changes the
group's selected protocol, does rebalance (GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin).
"""

from __future__ import annotations

import pytest

from kafka_meta.simulate import (
    CONSUMER,
    STREAMS,
    Bounce,
    MemberSetup,
    Scenario,
    render_table,
    rolling_upgrade,
    simulate,
)


def test_rolling_bounces_of_static_streams_members_keep_the_generation():
    members = {n: MemberSetup("3.9", instance_id=n) for n in ("a", "b", "c")}
    steps = tuple(Bounce(n) for _ in range(3) for n in ("a", "b", "c"))
    report = simulate(Scenario(STREAMS, members, steps, partitions=18))
    assert report.ok, render_table(report)
    assert {r.generation for r in report.rounds} == {1} and report.rebalances == 1
    assert all(n == 0 for trigger, n in report.rebalances_per_step if trigger != "start")
    assert report.leaders()[-1][1] == "a"          # the leader's member id is replaced, the leadership kept


def test_the_same_bounces_without_instance_ids_rebalance_every_time():
    members = {n: MemberSetup("3.9") for n in ("a", "b", "c")}
    report = simulate(Scenario(STREAMS, members, tuple(Bounce(n) for n in ("a", "b", "c")), partitions=18))
    assert report.ok and all(n >= 1 for _, n in report.rebalances_per_step)


def test_a_static_bounce_past_the_session_timeout_rebalances():
    report = simulate(rolling_upgrade(STREAMS, "3.9", "4.0", members=3, static=True, downtime_ms=45_000))
    assert report.ok, render_table(report)
    assert all(n >= 2 for trigger, n in report.rebalances_per_step if trigger.startswith("bounce"))
    assert any(r.trigger == "m0's session expires" for r in report.rounds)


def test_static_bounce_to_new_code_rejoins_only_for_its_own_version_change():
    # no version change (3.9 -> 4.0: both speak 11): no rebalance at all
    same = simulate(rolling_upgrade(STREAMS, "3.9", "4.0", members=3, static=True))
    assert same.ok and same.rebalances == 1
    # future code gets its old v11 assignment back without a rebalance, then probes by itself: one rebalance
    # per bounce and the end-of-upgrade one, instead of two per bounce
    future = simulate(rolling_upgrade(STREAMS, "3.9", "latest+1", members=3, static=True))
    assert future.ok and set(future.final_versions.values()) == {"v12"}
    assert [n for _, n in future.rebalances_per_step] == [1, 1, 1, 2]


@pytest.mark.parametrize(("static", "rebalances"), [(True, 2), (False, 7)])
def test_consumer_kip_429_path_rebalances_only_when_the_selected_protocol_changes(static, rebalances):
    report = simulate(rolling_upgrade(CONSUMER, "3.9", "3.9", members=3, static=static))
    assert report.ok, render_table(report)
    assert report.rebalances == rebalances
    if static:
        # the third bounce makes cooperative-sticky everyone's first choice: the selected protocol changes
        assert [n for _, n in report.rebalances_per_step] == [1, 0, 0, 1, 0, 0, 0]


def test_static_membership_needs_2_3_on_both_sides_of_the_bounce():
    # a 2.2 consumer ignores group.instance.id: every bounce rebalances; bounced to 2.3 it registers the id
    # only with this join, so the bounce itself still rebalances, and the next one does not
    members = {n: MemberSetup("2.2", instance_id=n) for n in ("a", "b")}
    report = simulate(Scenario(STREAMS, members, (Bounce("a"), Bounce("a", release="2.3"), Bounce("a"))))
    assert report.ok, render_table(report)
    assert [n for _, n in report.rebalances_per_step] == [1, 1, 1, 0]
