"""The cost of a rebalance from rounds alone (sans-IO): which partitions had no owner, from when to when, for
each kind of group (kafka_meta.analysis.unowned), and the crashed-member finding made of it."""

from __future__ import annotations

import pytest

from kafka_meta.analysis.causes import Cause
from kafka_meta.analysis.findings import Thresholds, crashed_members
from kafka_meta.analysis.moves import moves
from kafka_meta.analysis.timeline import Commit, GroupTimeline, MemberRound, Round
from kafka_meta.analysis.unowned import cost_json, group_cost

P0, P1, P2 = ("t", 0), ("t", 1), ("t", 2)


def member(member_id: str, joined: float | None, synced: float | None, assigned: set, **kw) -> MemberRound:
    return MemberRound(member_id, joined_at=joined, synced_at=synced, assigned=set(assigned), **kw)


def classic(group: str, protocol: str, *rounds: tuple[int, list[MemberRound]], causes=None) -> GroupTimeline:
    tl = GroupTimeline(group)
    previous = None
    for generation, members in rounds:
        r = Round(group, "capture", generation=generation, protocol=protocol, members=members,
                  start=min(m.joined_at for m in members if m.joined_at is not None),
                  end=max(m.synced_at for m in members if m.synced_at is not None))
        r.causes = (causes or {}).get(generation, [])
        moves(r, previous)
        tl.rounds.append(r)
        previous = r
    return tl


def gaps(tl: GroupTimeline) -> list[tuple]:
    return [(g.partition, g.start, g.end, g.released_by, g.taken_by, g.how) for g in group_cost(tl).gaps]


def test_eager_every_owned_partition_is_unowned_from_its_owners_join_to_its_next_owners_sync():
    tl = classic("g", "range",
                 (1, [member("a", 0.0, 1.0, {P0, P1, P2})]),
                 (2, [member("a", 10.0, 11.5, {P0, P1}), member("b", 10.4, 11.0, {P2})]))
    assert gaps(tl) == [(P0, 10.0, 11.5, "a", "a", "revoked"), (P1, 10.0, 11.5, "a", "a", "revoked"),
                        (P2, 10.0, 11.0, "a", "b", "revoked")]
    cost = group_cost(tl)
    assert cost.partition_seconds == pytest.approx(4.0)
    assert (cost.longest.partition, cost.longest.seconds) == (P0, 1.5)
    assert list(cost.by_round) == [1]  # the round that handed them out again
    assert cost.summary() == "unowned: 4.0 partition-s, longest 1.5 s (t-0)"


def test_cooperative_only_the_moved_partition_waits_from_its_revocation_to_the_follow_up():
    tl = classic("g", "cooperative-sticky",
                 (1, [member("a", 0.0, 1.0, {P0, P1})]),
                 (2, [member("a", 10.0, 11.0, {P0}), member("b", 10.2, 11.0, set())]),
                 (3, [member("a", 11.1, 12.0, {P0}), member("b", 11.2, 12.5, {P1})]))
    assert tl.rounds[1].phase == "revoke" and tl.rounds[2].phase == "assign"
    assert gaps(tl) == [(P1, 11.0, 12.5, "a", "b", "revoked")]  # P0 stayed with a throughout


def test_kip848_partitions_move_one_by_one_from_the_heartbeat_that_gave_them_up():
    tl = GroupTimeline("g", kind="consumer (KIP-848)")
    first = Round("g", "capture", generation=1, start=0.0, end=1.0, protocol="uniform",
                  members=[member("a", 0.0, 1.0, {P0, P1, P2}, epoch=1, gained_at={P0: 1.0, P1: 1.0, P2: 1.0})])
    second = Round("g", "capture", generation=2, start=10.0, end=12.0, protocol="uniform", members=[
        member("a", 0.0, 11.0, {P0, P1}, epoch=2, released_at={P2: 10.6}),
        member("b", 10.0, 12.0, {P2}, epoch=2, gained_at={P2: 11.8})])
    tl.rounds = [first, second]
    assert gaps(tl) == [(P2, 10.6, 11.8, "a", "b", "revoked")]


def test_an_expired_member_counts_from_its_last_request_and_is_a_warning():
    tl = classic("g", "range",
                 (1, [member("a", 0.0, 1.0, {P0}), member("c", 0.1, 1.0, {P1, P2})]),
                 (2, [member("a", 15.0, 15.5, {P0, P1, P2})]),
                 causes={2: [Cause("expiry", "c", "no LeaveGroup")]})
    tl.last_seen = {"a": 15.0, "c": 4.0}
    assert gaps(tl) == [(P1, 4.0, 15.5, "c", "a", "expiry"), (P2, 4.0, 15.5, "c", "a", "expiry"),
                        (P0, 15.0, 15.5, "a", "a", "revoked")]
    tl.unowned = group_cost(tl)
    [f] = crashed_members(tl, Thresholds())
    assert (f.kind, f.severity, f.member, f.ts, f.partitions) == ("crashed-member", "warning", "c", 4.0,
                                                                   ["t-1", "t-2"])
    assert "for 11.5 s" in f.summary and "23.0 partition-s" in f.summary


def test_an_expiry_handed_over_fast_stays_information_and_a_clean_leave_is_no_finding():
    tl = classic("g", "range",
                 (1, [member("a", 0.0, 1.0, {P0}), member("c", 0.1, 1.0, {P1})]),
                 (2, [member("a", 5.0, 5.2, {P0, P1})]),
                 causes={2: [Cause("expiry", "c")]})
    tl.last_seen = {"c": 4.5}
    tl.unowned = group_cost(tl)
    assert [f.severity for f in crashed_members(tl, Thresholds())] == ["info"]
    tl.rounds[1].causes = [Cause("leave", "c", "LeaveGroup")]
    tl.unowned = group_cost(tl)
    assert crashed_members(tl, Thresholds()) == []
    assert [g.how for g in tl.unowned.gaps if g.released_by == "c"] == ["leave"]


def test_an_expired_member_never_heard_from_counts_from_the_round_at_least():
    tl = classic("g", "range",
                 (1, [member("a", 0.0, 1.0, {P0}), member("c", 0.1, 1.0, {P1})]),
                 (2, [member("a", 15.0, 15.5, {P0, P1})]))
    [late] = [g for g in group_cost(tl).gaps if g.partition == P1]
    assert (late.start, late.bound) == (15.0, "at least")


def test_from_the_log_a_gap_ends_at_the_generation_record_and_an_eager_one_is_a_lower_bound():
    tl = GroupTimeline("g")
    one = Round("g", "offsets", generation=1, start=100.0, protocol="range", members=[member("a", None, None, {P0})])
    two = Round("g", "offsets", generation=2, start=130.0, protocol="range", members=[
        member("a", None, None, set()), member("b", None, None, {P0})])
    tl.rounds = [one, two]
    tl.commits = [Commit("g", 127.0, generation=1, partitions=1)]  # a one-pass reading has no such second
    [gap] = group_cost(tl).gaps
    assert (gap.start, gap.end, gap.bound, gap.taken_by) == (130.0, 130.0, "at least", "b")
    coop = GroupTimeline("c")
    revoke = Round("c", "offsets", generation=2, start=200.0, protocol="cooperative-sticky",
                   members=[member("a", None, None, set()), member("b", None, None, set())])
    assign = Round("c", "offsets", generation=3, start=201.5, protocol="cooperative-sticky",
                   members=[member("a", None, None, set()), member("b", None, None, {P0})])
    first = Round("c", "offsets", generation=1, start=100.0, protocol="cooperative-sticky",
                  members=[member("a", None, None, {P0})])
    for previous, r in ((None, first), (first, revoke), (revoke, assign)):
        moves(r, previous)
    coop.rounds = [first, revoke, assign]
    [gap] = group_cost(coop).gaps
    assert (gap.start, gap.end, gap.bound, gap.released_by, gap.taken_by) == (200.0, 201.5, "", "a", "b")
    doc = cost_json(coop, group_cost(coop))
    assert doc["partitionSeconds"] == 1.5 and [r["generation"] for r in doc["rounds"]] == [3]
    assert doc["longest"]["partition"] == "t-0" and doc["longest"]["bound"] is None


def test_the_group_emptying_is_no_cost_and_a_share_group_has_none():
    tl = classic("g", "range", (1, [member("a", 0.0, 1.0, {P0})]))
    tl.rounds.append(Round("g", "capture", generation=2, start=5.0, end=5.0, causes=[Cause("emptied")]))
    tl.last_seen = {"a": 4.0}
    cost = group_cost(tl)
    assert cost.gaps == [] and cost.longest is None and cost.summary() == "unowned: none"
    share = classic("s", "simple", (1, [member("a", 0.0, 1.0, {P0})]), (2, [member("b", 5.0, 6.0, {P0})]))
    share.kind = "share (KIP-932)"
    assert group_cost(share).gaps == []
