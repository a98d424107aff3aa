"""The simulator's placements and invariant checks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kafka_meta.negotiation.rebalance_protocol import handed_over_while_claimed
from kafka_meta.simulate.coordinator import Coordinator
from kafka_meta.simulate.engine import SimMember, Simulation
from kafka_meta.simulate.placement import round_robin, sticky_balanced, withhold_claimed
from kafka_meta.simulate.report import Round
from kafka_meta.simulate.scenario import MemberSetup

members_st = st.lists(st.sampled_from("abcdef"), min_size=1, max_size=6, unique=True)


@given(members_st, st.integers(0, 20), st.data())
def test_sticky_balanced_places_everything_once_and_keeps_what_it_can(members, count, data):
    items = list(range(count))
    owned = {m: frozenset(data.draw(st.sets(st.sampled_from(items)) if items else st.just(set()))) for m in members}
    out = sticky_balanced(members, items, owned)
    placed = [i for m in members for i in out[m]]
    assert sorted(placed) == items
    sizes = [len(out[m]) for m in members]
    assert max(sizes) - min(sizes) <= 1
    for m in members:       # an uncontested item a member keeps stays with it unless the quota forces it out
        contested = {i for o in members if o != m for i in owned[o]}
        kept = set(out[m]) & (owned[m] - contested)
        assert len(kept) == min(len(owned[m] - contested), len(out[m]))


@given(members_st, st.integers(0, 12), st.data())
def test_withholding_leaves_no_handover_conflict(members, count, data):
    items = list(range(count))
    owned = {m: frozenset(data.draw(st.sets(st.sampled_from(items)) if items else st.just(set()))) for m in members}
    target = round_robin(members, items)
    assigned, withheld = withhold_claimed(target, owned)
    named = {m: {("t", i) for i in v} for m, v in assigned.items()}
    claims = {m: {("t", i) for i in v} for m, v in owned.items()}
    assert not handed_over_while_claimed(claims, named)
    for m in members:
        assert sorted(assigned[m] + withheld[m]) == sorted(target[m])


def test_coordinator_leader_and_protocol_selection():
    c = Coordinator()
    for mid in ("a-1", "b-1", "c-1"):
        c.join(mid)
    assert c.leader == "a-1"
    c.leave("b-1")
    assert c.leader == "a-1"
    c.leave("a-1")
    assert c.leader == "c-1"
    assert Coordinator.select([["cooperative-sticky", "range"], ["range"]]) == "range"
    assert Coordinator.select([["cooperative-sticky", "range"], ["cooperative-sticky", "range"]]) == \
        "cooperative-sticky"
    assert Coordinator.select([["x", "y"], ["y", "x"]]) == "x"          # a tie: the senior member's preference
    assert Coordinator.select([["x"], ["y"]]) is None
    assert not c.accepts(["cooperative-sticky"], [["range"], ["range", "sticky"]])
    assert c.accepts(["cooperative-sticky", "range"], [["range"]])


def test_handover_and_exclusivity_checks_report_violations():
    a = SimMember("a", MemberSetup("3.9"))
    b = SimMember("b", MemberSetup("3.9"))
    members = {a.member_id: a, b.member_id: b}
    r = Round(1, 1, "test", "a", "x")
    Simulation._check_handover(r, members, b.member_id, frozenset({("t", 1)}), {a.member_id: frozenset({("t", 1)}),
                                                                               b.member_id: frozenset()}, "partition")
    assert r.violations == ["partition t-1 handed to b while a still owned it"]
    a.tasks = frozenset({"0_1"})
    b.tasks = frozenset({"0_1"})
    Simulation._check_exclusive(r, [a, b])
    assert r.violations[-1] == "active task 0_1 owned by both a and b"
