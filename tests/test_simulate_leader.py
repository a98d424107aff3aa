"""Who leads during a rolling upgrade, and what the bounce order changes.

Kafka's classic coordinator promotes an arbitrary remaining member when the leader leaves (the first key of a
hash map of random member ids), so the simulator runs both ends of that choice (``Succession``). What the
leader's position changes depends on the Streams rules of the releases involved:

* no release makes a rolling bounce with the leader bounced last cost more rebalances than another order:
  every bounce costs one rebalance, plus one version-probing rebalance when the new code's latest version is
  higher, wherever the leader is;
* before KAFKA-8649 (2.0.0 - 2.2.1 and 2.3.0 as new code), a new-code leader facing old-code members makes
  them adopt a version their code cannot write, so upgrades from 2.0.x fail unless the old code leads until
  the last old member is gone, which bouncing the leader last guarantees whatever the coordinator picks;
* from 2.2.2, 2.3.1 and 2.4 the leader writes the commonly supported version, and every order is safe.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_meta.negotiation import latest_supported_version
from kafka_meta.negotiation.releases import Release
from kafka_meta.simulate import STREAMS, Succession, render_table, rolling_upgrade, simulate
from kafka_meta.simulate.coordinator import Coordinator

FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = ["m0", "m1", "m2"]
LEADER_FIRST = NAMES                     # m0 leads from the start
LEADER_LAST = ["m1", "m2", "m0"]
LEADER_MIDDLE = ["m1", "m0", "m2"]

# new code from before KAFKA-8649 with a higher latest version than the old code (3 -> 4)
BEFORE_FIX = [("2.0", "2.1"), ("2.0.1", "2.1.1"), ("2.0", "2.2.1"), ("2.0.1", "2.3.0")]
# the same upgrades to releases with the fix, and later one-bounce paths (KIP-268 without a protocol change)
AFTER_FIX = [("2.0", "2.2.2"), ("2.0.1", "2.3.1"), ("2.4", "2.5"), ("2.4", "3.9"), ("2.6.0", "2.6.1"),
             ("2.7", "2.8"), ("3.0", "3.2"), ("3.1", "4.4")]
NO_VERSION_CHANGE = [("2.1", "2.3"), ("2.2.1", "2.3.1"), ("3.9", "4.0"), ("2.6.1", "2.7")]


def bounce_cost(old: str, new: str) -> int:
    """Rebalances per bounce: the bounce itself, plus version probing when the new code speaks more."""
    return 2 if latest_supported_version(new) > latest_supported_version(old) else 1


def new_leader_met_old_member(report, old: str, new: str) -> bool:
    """Whether some rebalance was led by new code while a member still ran the old code."""
    old_r, new_r = str(Release.parse(old)), str(Release.parse(new))
    return any(any(row.leader for row in r.rows if row.release == new_r) and
               any(row.release == old_r for row in r.rows) for r in report.rounds)


# -- the coordinator's rule --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("succession", "after_leave", "after_replace"), [
    (Succession.OLDEST, "b", "c"),
    (Succession.NEWEST, "c", "c2"),
])
def test_the_first_joiner_leads_and_the_succession_rule_picks_the_next(succession, after_leave, after_replace):
    c = Coordinator(succession=succession)
    for m in ("a", "b", "c"):
        c.join(m)
    assert c.leader == "a"
    c.leave("a")
    assert c.leader == after_leave
    c.join("a2")
    c.leave("a2")                                   # a non-leader leaving changes nothing
    assert c.leader == after_leave
    c.replace(c.leader, c.leader + "2")             # a restarted leader: the new incarnation is a candidate
    assert c.leader == after_replace
    for m in list(c.members):
        c.leave(m)
    assert c.leader is None
    c.join("z")
    assert c.leader == "z"                          # an empty group's first member leads


def test_a_restarted_leader_can_succeed_itself():
    report = simulate(rolling_upgrade(STREAMS, "2.4", "3.9", orders=[LEADER_FIRST], succession=Succession.NEWEST))
    assert report.ok, render_table(report)
    bounce = report.rounds[1]
    assert bounce.trigger == "bounce m0 -> 3.9" and bounce.leader == "m0"
    assert next(row for row in bounce.rows if row.leader).release == "3.9.0"
    oldest = simulate(rolling_upgrade(STREAMS, "2.4", "3.9", orders=[LEADER_FIRST]))
    assert oldest.rounds[1].leader == "m1"
    assert report.succession == "newest" and "leader succession: newest" in render_table(report)


# -- the number of rebalances does not depend on the leader's position -----------------------------------------

@pytest.mark.parametrize("path", BEFORE_FIX + AFTER_FIX + NO_VERSION_CHANGE)
def test_the_leader_bounced_last_costs_no_extra_rebalance(path):
    old, new = path
    cost = bounce_cost(old, new)
    counts = {}
    for name, order in (("first", LEADER_FIRST), ("middle", LEADER_MIDDLE), ("last", LEADER_LAST)):
        report = simulate(rolling_upgrade(STREAMS, old, new, orders=[order]))
        assert report.ok, render_table(report)
        assert [n for _, n in report.rebalances_per_step] == [1] + [cost] * len(NAMES)
        counts[name] = report.rebalances
    assert counts["last"] == counts["first"] == counts["middle"] == 1 + cost * len(NAMES)


@pytest.mark.parametrize("path", AFTER_FIX + NO_VERSION_CHANGE)
def test_after_kafka_8649_any_leader_succession_costs_the_same(path):
    old, new = path
    cost = bounce_cost(old, new)
    for order in (LEADER_FIRST, LEADER_MIDDLE, LEADER_LAST):
        report = simulate(rolling_upgrade(STREAMS, old, new, orders=[order], succession=Succession.NEWEST))
        assert report.ok, render_table(report)
        assert report.rebalances == 1 + cost * len(NAMES)


# -- what the leader's position does change: before KAFKA-8649 ---------------------------------------------------

@pytest.mark.parametrize("path", BEFORE_FIX)
def test_before_kafka_8649_a_new_code_leader_makes_old_members_fail(path):
    old, new = path
    report = simulate(rolling_upgrade(STREAMS, old, new, orders=[LEADER_FIRST], succession=Succession.NEWEST))
    assert not report.ok
    assert new_leader_met_old_member(report, old, new)
    # the new leader writes its own latest (4) as the supported version; the 2.0 members adopt it unchecked
    bounce = report.rounds[1]
    assert {row.received for row in bounce.rows} == {"v3/4"}
    assert {m: f.exception for m, f in report.failures.items()} == {"m1": "IllegalStateException",
                                                                    "m2": "IllegalStateException"}
    assert all("unknown metadata version 4; latest supported version 3" in f.reason
               for f in report.failures.values())


@pytest.mark.parametrize("path", BEFORE_FIX)
@pytest.mark.parametrize("succession", list(Succession))
def test_before_kafka_8649_bouncing_the_leader_last_is_safe_whoever_succeeds_it(path, succession):
    old, new = path
    report = simulate(rolling_upgrade(STREAMS, old, new, orders=[LEADER_LAST], succession=succession))
    assert report.ok, render_table(report)
    assert not new_leader_met_old_member(report, old, new)
    assert all(leader == "m0" for _, leader, _ in report.leaders()[:-2])     # the old leader leads throughout


@pytest.mark.parametrize(("old", "new"), [("2.0", "2.2.2"), ("2.0.1", "2.3.1"), ("2.0", "2.4")])
def test_from_2_2_2_and_2_3_1_a_new_code_leader_writes_the_old_members_version(old, new):
    upgrade_from = "2.0" if new == "2.4" else None       # 2.4 also changes the rebalance protocol (KIP-429)
    report = simulate(rolling_upgrade(STREAMS, old, new, orders=[LEADER_FIRST], succession=Succession.NEWEST,
                                      upgrade_from=upgrade_from))
    assert report.ok, render_table(report)
    assert new_leader_met_old_member(report, old, new)
    assert {row.received for row in report.rounds[1].rows} == {"v3/3"}


# -- every order, both successions --------------------------------------------------------------------------------

ALL_PATHS = BEFORE_FIX + AFTER_FIX + NO_VERSION_CHANGE


@FAST
@given(st.sampled_from(ALL_PATHS), st.sampled_from(list(Succession)),
       st.integers(2, 5).flatmap(lambda n: st.permutations([f"m{i}" for i in range(n)])))
def test_any_order_holds_the_invariants_and_costs_the_same(path, succession, order):
    old, new = path
    report = simulate(rolling_upgrade(STREAMS, old, new, members=len(order), orders=[order], succession=succession))
    # nothing is ever handed over while owned, nor owned twice, whatever happens to the versions
    assert not report.violations, render_table(report)
    hazard = (path in BEFORE_FIX) and new_leader_met_old_member(report, old, new)
    assert report.ok == (not hazard), render_table(report)
    if report.ok:
        assert set(report.final_versions.values()) == {f"v{latest_supported_version(new)}"}
        assert [n for _, n in report.rebalances_per_step] == [1] + [bounce_cost(old, new)] * len(order)
