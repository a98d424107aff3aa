"""The simulator on Kafka Streams groups: Kafka's documented upgrade paths succeed with the invariants held,
and the unsafe shortcuts are reported the way Kafka reports them."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kafka_meta as km
from kafka_meta.negotiation import latest_supported_version
from kafka_meta.simulate import STREAMS, Bounce, MemberSetup, Scenario, render_table, rolling_upgrade, simulate

FAST = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def bounce_orders(rounds: int, low: int = 2, high: int = 5):
    return st.integers(low, high).flatmap(lambda n: st.tuples(
        st.just(n), st.lists(st.permutations([f"m{i}" for i in range(n)]), min_size=rounds, max_size=rounds)))


# one rolling bounce, no config: the rebalance protocol does not change between these releases
PROBING_PATHS = [("2.0", "2.1"), ("2.1", "2.3"), ("2.4", "2.5"), ("2.4", "3.9"), ("2.6.0", "2.6.1"), ("2.6.3", "2.7"),
                 ("2.7", "2.8"), ("3.0", "3.9"), ("3.1", "3.2"), ("3.9", "4.0"), ("3.0", "4.4")]


@FAST
@given(st.sampled_from(PROBING_PATHS), bounce_orders(1))
def test_version_probing_takes_one_rolling_bounce(path, members_and_orders):
    old, new = path
    n, orders = members_and_orders
    report = simulate(rolling_upgrade(STREAMS, old, new, members=n, orders=orders))
    assert report.ok, render_table(report)
    target = latest_supported_version(new)
    assert set(report.final_versions.values()) == {f"v{target}"}
    # each bounced member probes once (one extra rebalance); the last bounce's extra rebalance moves everyone
    # up; without a version change nothing extra happens at all
    steps = dict(report.rebalances_per_step)
    assert steps.pop("start") == 1
    expected = 2 if latest_supported_version(old) < target else 1
    assert all(count == expected for count in steps.values())


def test_leader_bounced_last_is_replaced_in_the_final_rebalance_which_upgrades_everyone():
    report = simulate(rolling_upgrade(STREAMS, "2.7", "2.8", members=3, orders=[["m1", "m2", "m0"]]))
    assert report.ok
    *_, bounce, extra = report.rounds
    assert bounce.trigger == "bounce m0 -> 2.8"
    assert bounce.leader == "m1"                      # the old leader left; the longest-standing member leads
    assert {row.received for row in bounce.rows} == {"v8/9"}
    assert {row.action.split(";")[0] for row in bounce.rows} == {"upgrade -> v9", "rejoin (stays v9)"}
    assert extra.trigger.startswith("rejoin") and {row.sent.split()[0] for row in extra.rows} == {"v9"}
    # until then the old leader led and every bounced member probed it
    assert all(r.leader == "m0" for r in report.rounds[:-2])
    assert [r.events[0].split(": ", 1)[1].split(":")[0] for r in report.rounds[1:-2:2]] == ["version probing"] * 2


def test_2_0_to_2_3_probing_gets_an_empty_assignment_and_upgrades_at_the_next_rebalance():
    report = simulate(rolling_upgrade(STREAMS, "2.0", "2.1", members=3))
    assert report.ok
    first_bounce = report.rounds[1]
    new = next(row for row in first_bounce.rows if row.member == "m0")
    assert new.sent == "v4" and new.received == "v3/3" and new.owned == "-"
    assert "not applied" in new.action
    final_bounce = report.rounds[-2]
    assert {row.action.split(";")[0] for row in final_bounce.rows if row.member != "m2"} == {"upgrade -> v4 next time"}


# 0.10.0 - 1.1 to 2.0+: two rolling bounces with upgrade.from
UPGRADE_FROM_PATHS = [("0.10.0", "2.0", "0.10.0"), ("0.10.1", "2.3", "0.10.1"), ("1.1", "2.3", "1.1"),
                      ("0.11.0", "3.9", "0.11.0"), ("1.0", "2.1", "1.0"), ("0.10.0", "1.1.1", "0.10.0")]


@FAST
@given(st.sampled_from(UPGRADE_FROM_PATHS), bounce_orders(2))
def test_two_bounce_upgrade_from_path_before_2_0(path, members_and_orders):
    old, new, value = path
    n, orders = members_and_orders
    report = simulate(rolling_upgrade(STREAMS, old, new, members=n, orders=orders, upgrade_from=value))
    assert report.ok, render_table(report)
    first_round = report.rounds[1: 1 + n]
    pinned = 1 if value == "0.10.0" else 2
    assert all(row.sent == f"v{pinned}" for r in first_round for row in r.rows)


@pytest.mark.parametrize(("old", "new"), [("0.10.0", "2.0"), ("1.1", "2.3"), ("0.10.0", "1.0.2")])
def test_a_single_bounce_from_before_2_0_breaks_the_old_leader(old, new):
    report = simulate(rolling_upgrade(STREAMS, old, new, members=3))
    assert not report.ok
    assert {f.exception for f in report.failures.values()} == {"TaskAssignmentException"}
    assert all("unable to decode subscription data" in f.reason for f in report.failures.values())


def test_versions_1_and_2_speakers_need_no_upgrade_from_between_them():
    assert simulate(rolling_upgrade(STREAMS, "0.10.1", "1.1.1", members=3)).ok


def test_an_upgrade_from_value_on_a_release_without_the_config_is_ignored():
    # 1.1.0 predates the KAFKA-6054 backport: upgrade.from=0.10.0 is an unknown config there
    report = simulate(rolling_upgrade(STREAMS, "0.10.0", "1.1.0", members=3, upgrade_from="0.10.0"))
    assert not report.ok and {f.exception for f in report.failures.values()} == {"TaskAssignmentException"}


# 2.3 or older to cooperative 2.4+: two rolling bounces with upgrade.from (KIP-429)
KIP_429_PATHS = [("2.3", "2.4"), ("2.3", "3.9"), ("2.0", "2.5"), ("2.1", "2.6.1"), ("2.2", "3.3"), ("2.3", "3.6.2")]


@FAST
@given(st.sampled_from(KIP_429_PATHS), bounce_orders(2))
def test_two_bounce_upgrade_to_cooperative(path, members_and_orders):
    old, new = path
    n, orders = members_and_orders
    report = simulate(rolling_upgrade(STREAMS, old, new, members=n, orders=orders, upgrade_from=old))
    assert report.ok, render_table(report)
    first_round = [row for r in report.rounds[: 1 + 2 * n] for row in r.rows]
    assert all(row.protocol == "EAGER" for row in first_round)
    assert all(row.protocol == "COOPERATIVE" for row in report.rounds[-1].rows)


@FAST
@given(st.sampled_from([*KIP_429_PATHS, ("2.3", "4.0"), ("2.3", "4.4")]), bounce_orders(1, low=3))
def test_a_single_bounce_to_cooperative_hands_over_tasks_still_owned(path, members_and_orders):
    old, new = path
    n, orders = members_and_orders
    report = simulate(rolling_upgrade(STREAMS, old, new, members=n, orders=orders))
    assert not report.ok
    assert not report.failures
    assert any("active task" in v and "still owned it" in v for v in report.violations)


@pytest.mark.parametrize("new", ["4.0", "4.1"])
def test_4_0_refuses_eager_upgrade_from_values(new):
    report = simulate(rolling_upgrade(STREAMS, "2.3", new, members=3, upgrade_from="2.3"))
    assert {f.exception for f in report.failures.values()} == {"ConfigException"}
    assert all("StreamsPartitionAssignor" in f.raised_by for f in report.failures.values())


def test_4_2_refuses_them_in_streams_config():
    report = simulate(rolling_upgrade(STREAMS, "2.3", "4.2", members=3, upgrade_from="2.3"))
    assert {f.raised_by for f in report.failures.values()} == {"StreamsConfig"}


def test_a_bridge_release_makes_2_3_to_4_0_work():
    setups = {f"m{i}": MemberSetup("2.3") for i in range(3)}
    steps = [Bounce(m, release="3.9", upgrade_from="2.3") for m in setups]
    steps += [Bounce(m, upgrade_from=None) for m in setups]
    steps += [Bounce(m, release="4.0") for m in setups]
    report = simulate(Scenario(STREAMS, setups, tuple(steps)))
    assert report.ok, render_table(report)
    assert set(report.final_versions.values()) == {"v11"}


def test_the_bytes_are_the_codec_s():
    from kafka_meta.simulate.engine import SimMember
    from kafka_meta.simulate.streams import StreamsBehaviour

    behaviour = StreamsBehaviour("input", 4)
    for release, version in (("2.3", 4), ("2.6.0", 7), ("2.7", 8), ("3.9", 11), ("1.1", 2)):
        member = SimMember("a", MemberSetup(release))
        assert behaviour.start(member) is None
        member.state.last_active = frozenset({1})
        member.state.on_disk = frozenset({1, 2})
        ((name, data),) = behaviour.join(member)
        sub = km.decode("ConsumerProtocolSubscription", data)
        info = km.decode("SubscriptionInfo", sub.user_data)
        assert name == "stream" and info.version == version and km.encode(info) == bytes(sub.user_data)
        assert info.streams_view.prev_tasks == ["0_1"] and info.streams_view.standby_tasks == ["0_2"]


def test_a_2_1_leader_makes_2_0_members_fail_to_subscribe():
    # 2.0-2.3 leaders write their own latest as the supported version and 2.0-2.3 members take it unchecked:
    # "used version 4; latest supported version 3" is the 2.0 member failing to write its next subscription
    report = simulate(Scenario(STREAMS, {"m0": MemberSetup("2.1"), "m1": MemberSetup("2.0"), "m2": MemberSetup("2.0")}))
    assert {m: f.exception for m, f in report.failures.items()} == {"m1": "IllegalStateException",
                                                                    "m2": "IllegalStateException"}
    assert "unknown metadata version 4; latest supported version 3" in report.failures["m1"].reason
    assert report.versions_by_round("m1") == ["v3"]
    assert report.versions_by_round("m0") == ["v4", "v4"]
