"""The simulator on plain consumer groups: KIP-429's two-bounce assignor-list path and its shortcuts."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kafka_meta as km
from kafka_meta.simulate import CONSUMER, Join, Leave, MemberSetup, Scenario, render_table, rolling_upgrade, simulate

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def orders(n: int, rounds: int):
    names = [f"m{i}" for i in range(n)]
    return st.lists(st.permutations(names), min_size=rounds, max_size=rounds)


@FAST
@given(st.integers(2, 5).flatmap(lambda n: st.tuples(st.just(n), orders(n, 2))),
       st.sampled_from(["2.3", "2.4", "2.8.1", "3.0.0", "3.3"]), st.sampled_from(["3.9", "4.0", "4.4"]))
def test_two_bounce_assignor_list_path_succeeds_in_any_order(members_and_orders, old, new):
    n, bounce_orders = members_and_orders
    report = simulate(rolling_upgrade(CONSUMER, old, new, members=n, orders=bounce_orders))
    assert report.ok, render_table(report)
    assert set(report.final_versions.values()) == {"COOPERATIVE"}
    # during the first bounce round every member stays EAGER; cooperative-sticky is only chosen once
    # every member offers it
    first_round = report.rounds[: 1 + n]
    assert all(row.protocol == "EAGER" for r in first_round for row in r.rows)


def test_single_bounce_straight_to_cooperative_sticky_is_refused_by_the_coordinator():
    report = simulate(rolling_upgrade(CONSUMER, "3.9", "3.9", members=3, assignors=[("cooperative-sticky",)]))
    assert not report.ok
    assert {f.exception for f in report.failures.values()} == {"InconsistentGroupProtocolException"}
    # the last member bounced is alone in the group by then and is accepted
    assert set(report.failures) == {"m0", "m1"}
    assert any("out of the group" in p for p in report.problems())


def test_one_bounce_with_both_assignors_is_safe_but_stays_eager():
    report = simulate(rolling_upgrade(CONSUMER, "3.9", "3.9", members=3,
                                      assignors=[("cooperative-sticky", "range")]))
    assert report.ok
    assert set(report.final_versions.values()) == {"EAGER"}
    assert report.rounds[-1].assignor == "cooperative-sticky"


def test_wire_versions_follow_the_release():
    report = simulate(rolling_upgrade(CONSUMER, "2.3", "3.3", members=2, assignors=[("cooperative-sticky", "range")]))
    sent = {(row.release, row.sent.split()[0]) for r in report.rounds for row in r.rows}
    assert sent == {("2.3.0", "v0"), ("3.3.0", "v1")}
    report = simulate(rolling_upgrade(CONSUMER, "3.3", "3.4", members=2, assignors=[("cooperative-sticky", "range")]))
    assert {row.sent.split()[0] for row in report.rounds[-1].rows} == {"v3"}


def test_scale_out_under_cooperative_takes_a_follow_up_rebalance():
    coop = MemberSetup("3.9", assignors=("cooperative-sticky",))
    report = simulate(Scenario(CONSUMER, {"a": coop, "b": coop}, (Join("c", coop), Leave("a")), partitions=6))
    assert report.ok, render_table(report)
    join_rounds = [r for r in report.rounds if r.trigger == "c joins on 3.9" or r.trigger.startswith("rejoin")]
    assert len(join_rounds) == 2
    assert any("withholds" in e for e in join_rounds[0].events)
    # Kafka's CooperativeStickyAssignor: a and b keep their two lowest (0,2 and 1,3), 4 and 5 change owner and
    # are withheld (partitionsTransferringOwnership) until a and b have revoked them
    c_rows = [row for r in join_rounds for row in r.rows if row.member == "c"]
    assert c_rows[0].owned == "-" and c_rows[1].owned == "4,5"
    assert [row.action for row in join_rounds[0].rows] == ["revoke 4", "revoke 5", "keep"]


def test_sticky_user_data_round_trips_through_the_leader():
    sticky = MemberSetup("3.9", assignors=("sticky",))
    report = simulate(Scenario(CONSUMER, {"a": sticky, "b": sticky}, (Join("c", sticky),), partitions=6))
    assert report.ok
    # the first round deals 0,2,4 / 1,3,5; then a and b keep the two lowest partitions their user data says
    # they had (StickyAssignor reads the previous assignment from it) and c gets the rest
    last = report.rounds[-1]
    owned = {row.member: row.owned for row in last.rows}
    assert owned == {"a": "0,2", "b": "1,3", "c": "4,5"}


def test_startup_errors_are_reported():
    bad = MemberSetup("2.3", assignors=("cooperative-sticky",))     # the class does not exist before 2.4
    report = simulate(Scenario(CONSUMER, {"a": MemberSetup("2.3"), "b": bad}))
    assert report.failures["b"].exception == "ConfigException"


def test_the_bytes_are_the_codec_s():
    # what the simulator sends is readable by the public decoder and re-encodes byte for byte
    from kafka_meta.simulate.consumer import ConsumerBehaviour
    from kafka_meta.simulate.engine import SimMember

    behaviour = ConsumerBehaviour({"t": 4})
    member = SimMember("a", MemberSetup("3.9", assignors=("cooperative-sticky", "range")))
    assert behaviour.start(member) is None
    member.owned, member.generation = frozenset({("t", 1)}), 7
    for name, data in behaviour.join(member):
        sub = km.decode("ConsumerProtocolSubscription", data)
        assert km.encode(sub) == data and sub.version == 3 and sub.generation_id == 7
        assert sub.client_view.owned_partitions == []     # EAGER (range listed): owned partitions were revoked
        if name == "cooperative-sticky":
            assert km.decode("CooperativeStickyAssignorUserData", sub.user_data).generation == 7


def test_every_round_fires_the_callbacks_consumer_coordinator_fires():
    # ConsumerCoordinatorTest's getRevoked/getAdded: EAGER revokes everything it owned before the join and is
    # assigned everything; COOPERATIVE revokes only owned - assigned after the sync and is assigned only the new
    from kafka_meta.simulate import CONSUMER, rolling_upgrade, simulate

    report = simulate(rolling_upgrade(CONSUMER, "2.3", "3.9", members=3))
    assert report.ok
    previous: dict[str, str] = {}
    for r in report.rounds:
        for row in r.rows:
            restarted = r.trigger.split(" ")[:2] == ["bounce", row.member]     # a new consumer owns nothing
            owned_before = "" if restarted else previous.get(row.member, "")
            names = [c.split("(")[0] for c in row.callbacks.split()]
            assert names[-1] == "onPartitionsAssigned"
            if row.protocol == "EAGER" and owned_before not in ("", "-"):
                assert names[0] == "onPartitionsRevoked"
                everything = ",".join(f"input-{p}" for p in row.owned.split(","))
                assert row.callbacks.endswith(f"onPartitionsAssigned({everything})")
            if row.protocol == "COOPERATIVE":
                assert ("onPartitionsRevoked" in names) == ("revoke" in row.action)
            previous[row.member] = row.owned


def test_a_subscription_change_revokes_only_the_dropped_topics_under_cooperative():
    # ConsumerCoordinator.onJoinPrepare, COOPERATIVE: "only revoke those partitions that are not in the
    # subscription anymore"; EAGER revokes everything, as before every join
    from kafka_meta.simulate import CONSUMER, MemberSetup, Resubscribe, Scenario, simulate

    def run(assignor):
        setup = MemberSetup("3.9", assignors=(assignor,))
        return simulate(Scenario(CONSUMER, {"a": setup, "b": setup}, (Resubscribe(("input",)),), partitions=4,
                                 more_topics=(("audit", 2),)))

    coop = run("cooperative-sticky")
    assert coop.ok
    change = {row.member: row for row in coop.rounds[1].rows}
    assert change["a"].callbacks == "onPartitionsRevoked(audit-0) onPartitionsAssigned(none)"
    assert change["b"].callbacks == "onPartitionsRevoked(audit-1) onPartitionsAssigned(none)"
    assert change["a"].owned == "input-0,input-2" and change["a"].sent == "v3 owns 2"
    eager = run("range")
    assert eager.ok
    assert {row.member: row.callbacks for row in eager.rounds[1].rows} == {
        "a": "onPartitionsRevoked(audit-0,input-0,input-1) onPartitionsAssigned(input-0,input-1)",
        "b": "onPartitionsRevoked(audit-1,input-2,input-3) onPartitionsAssigned(input-2,input-3)"}


def test_unequal_or_unknown_subscriptions_are_refused():
    import pytest

    from kafka_meta.simulate import CONSUMER, MemberSetup, Resubscribe, Scenario

    with pytest.raises(ValueError, match="same topics"):
        Scenario(CONSUMER, {"a": MemberSetup("3.9", topics=("input",)), "b": MemberSetup("3.9")})
    with pytest.raises(ValueError, match="must name topics of the scenario"):
        Scenario(CONSUMER, {"a": MemberSetup("3.9")}, (Resubscribe(("nope",)),))
