"""Kafka's assignors, checked against the expectations of Kafka's own assignor tests (apache/kafka
clients/src/test/java/org/apache/kafka/clients/consumer/internals/AbstractStickyAssignorTest.java,
clients/src/test/java/org/apache/kafka/clients/consumer/CooperativeStickyAssignorTest.java, RangeAssignorTest.java,
RoundRobinAssignorTest.java). Member names, topics and generations are the tests' own (consumer1..., generationId 1)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_meta.negotiation.assignors import (
    Member,
    cooperative_sticky_assign,
    java_hash_map_order,
    java_string_hash,
    range_assign,
    round_robin_assign,
    sticky_assign,
)

T, T1, T2, T3 = "topic", "topic1", "topic2", "topic3"
C1, C2, C3, C4 = "consumer1", "consumer2", "consumer3", "consumer4"


def m(member_id, topics, owned=(), generation=1, instance_id=None):
    return Member(member_id, frozenset(topics), tuple(owned), generation, instance_id)


def test_java_hashing():
    assert java_string_hash("consumer1") == 3873962747 and java_string_hash("") == 0 and java_string_hash("a") == 97
    # buckets 12, 11, 10 of a 16-slot table: consumer3 iterates first
    assert java_hash_map_order([C1, C2, C3]) == [C3, C2, C1]


def test_consumer_owning_min_quota_expected_max_quota():
    # testConsumerOwningMinQuotaExpectedMaxQuota (the list order is asserted too)
    members = [m(C1, [T1, T2], [(T1, 0), (T2, 1)]), m(C2, [T1, T2], [(T1, 1), (T2, 2)])]
    result = sticky_assign({T1: 2, T2: 3}, members)
    assert result.assignment[C1] == [(T1, 0), (T2, 1), (T2, 0)]
    assert result.assignment[C2] == [(T1, 1), (T2, 2)]
    assert result.transferring == {}


def test_max_quota_consumer_more_than_num_expected_max_capacity_members():
    # testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers: which of consumer1/consumer2 keeps two is
    # decided by the HashMap's iteration order
    members = [m(C1, [T1, T2], [(T1, 0), (T2, 0)]), m(C2, [T1, T2], [(T1, 1), (T2, 1)]), m(C3, [T1, T2])]
    result = sticky_assign({T1: 2, T2: 2}, members)
    assert result.transferring == {(T2, 0): C3}
    assert result.assignment == {C1: [(T1, 0)], C2: [(T1, 1), (T2, 1)], C3: [(T2, 0)]}


def test_all_consumers_are_under_min_quota():
    members = [m(C1, [T1, T2], [(T1, 0)]), m(C2, [T1, T2], [(T1, 1)]), m(C3, [T1, T2])]
    result = sticky_assign({T1: 2, T2: 3}, members)
    assert result.transferring == {}
    assert result.assignment == {C1: [(T1, 0), (T2, 1)], C2: [(T1, 1), (T2, 2)], C3: [(T2, 0)]}


def test_add_remove_consumer_one_topic():
    first = sticky_assign({T: 3}, [m(C1, [T], generation=-1)]).assignment
    assert first == {C1: [(T, 0), (T, 1), (T, 2)]}
    second = sticky_assign({T: 3}, [m(C1, [T], first[C1]), m(C2, [T])])
    assert second.transferring == {(T, 2): C2}
    assert second.assignment == {C1: [(T, 0), (T, 1)], C2: [(T, 2)]}
    third = sticky_assign({T: 3}, [m(C2, [T], second.assignment[C2])])
    assert set(third.assignment[C2]) == {(T, 0), (T, 1), (T, 2)} and third.transferring == {}


def test_all_consumers_reach_expected_quota_and_are_considered_filled():
    members = [m(C1, [T], [(T, 0), (T, 1)]), m(C2, [T], [(T, 2)]), m(C3, [T])]
    result = sticky_assign({T: 4}, members)
    assert result.assignment == {C1: [(T, 0), (T, 1)], C2: [(T, 2)], C3: [(T, 3)]} and not result.transferring


@pytest.mark.parametrize("stale", [9, -1])
def test_owned_partitions_are_invalidated_for_a_stale_or_missing_generation(stale):
    # testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration / ...WithNoGeneration
    claim = [(T, 0), (T, 2), (T2, 1)]
    result = sticky_assign({T: 3, T2: 3}, [m(C1, [T, T2], claim, 10), m(C2, [T, T2], claim, stale)])
    assert set(result.assignment[C1]) == set(claim)
    assert set(result.assignment[C2]) == {(T, 1), (T2, 0), (T2, 2)} and not result.transferring


def test_partition_claimed_by_two_members_of_one_generation():
    members = [m(C1, [T], [(T, 0), (T, 1)]), m(C2, [T], [(T, 0), (T, 2)]), m(C3, [T])]
    # testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration
    sticky = sticky_assign({T: 3}, members)
    assert sticky.transferring == {(T, 0): C3}
    assert sticky.assignment == {C1: [(T, 1)], C2: [(T, 2)], C3: [(T, 0)]}
    # CooperativeStickyAssignorTest ...WithEqualPartitionsPerConsumer: "topic-0 has to be considered owned and
    # so it cant be assigned until both have revoked it"
    coop = cooperative_sticky_assign({T: 3}, members)
    assert coop.assignment == {C1: [(T, 1)], C2: [(T, 2)], C3: []}
    # ...WithUnequalPartitionsPerConsumer
    coop4 = cooperative_sticky_assign({T: 4}, members)
    assert coop4.assignment == {C1: [(T, 1), (T, 3)], C2: [(T, 2)], C3: []}


def test_ensure_partitions_assigned_to_highest_generation():
    members = [m(C1, [T, T2, T3], [(T, 0), (T2, 0), (T3, 0)], 10),
               m(C2, [T, T2, T3], [(T, 1), (T2, 1), (T3, 1)], 9),
               m(C3, [T, T2, T3], [(T2, 1), (T3, 0), (T3, 2)], 8)]
    result = sticky_assign({T: 3, T2: 3, T3: 3}, members)
    assert {k: set(v) for k, v in result.assignment.items()} == {
        C1: {(T, 0), (T2, 0), (T3, 0)}, C2: {(T, 1), (T2, 1), (T3, 1)}, C3: {(T, 2), (T2, 2), (T3, 2)}}
    assert not result.transferring


def test_no_reassignment_on_current_members():
    topics = [T, T2, T3, T1]
    members = [m(C1, topics, [], -1), m(C2, topics, [(T, 0), (T2, 0), (T1, 0)], 9),
               m(C3, topics, [(T3, 2), (T2, 2), (T1, 1)], 8), m(C4, topics, [(T3, 1), (T, 1), (T, 2)], 7)]
    result = sticky_assign({T: 3, T1: 3, T2: 3, T3: 3}, members)
    assert set(result.assignment[C1]) == {(T1, 2), (T2, 1), (T3, 0)} and not result.transferring


def test_range():
    # RangeAssignorTest.testTwoConsumersOneTopicTwoPartitions and testMultipleConsumersMixedTopics
    assert range_assign({T1: 2}, [m(C1, [T1]), m(C2, [T1])]) == {C1: [(T1, 0)], C2: [(T1, 1)]}
    mixed = range_assign({T1: 3, T2: 2}, [m(C1, [T1]), m(C2, [T1, T2]), m(C3, [T1])])
    assert mixed == {C1: [(T1, 0)], C2: [(T1, 1), (T2, 0), (T2, 1)], C3: [(T1, 2)]}
    # testTwoConsumersTwoTopicsSixPartitions
    six = range_assign({T1: 3, T2: 3}, [m(C1, [T1, T2]), m(C2, [T1, T2])])
    assert six == {C1: [(T1, 0), (T1, 1), (T2, 0), (T2, 1)], C2: [(T1, 2), (T2, 2)]}
    # testTwoStaticConsumersTwoTopicsSixPartitions / testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions:
    # "the comparison happens on instance id level"; a member with an instance id wins over one without
    static = range_assign({T1: 3, T2: 3}, [m("consumer-b", [T1, T2], instance_id="instance1"),
                                           m("consumer-a", [T1, T2], instance_id="instance2")])
    assert static["consumer-b"] == [(T1, 0), (T1, 1), (T2, 0), (T2, 1)]
    one = range_assign({T1: 3, T2: 3}, [m("consumer-b", [T1, T2], instance_id="instance1"), m("consumer-a", [T1, T2])])
    assert one["consumer-a"] == [(T1, 2), (T2, 2)]


def test_round_robin():
    # RoundRobinAssignorTest.testTwoDynamicConsumersTwoTopicsSixPartitions
    rr = round_robin_assign({T1: 3, T2: 3}, [m(C1, [T1, T2]), m(C2, [T1, T2])])
    assert rr == {C1: [(T1, 0), (T1, 2), (T2, 1)], C2: [(T1, 1), (T2, 0), (T2, 2)]}
    # testMultipleConsumersMixedTopics
    mixed = round_robin_assign({T1: 3, T2: 2}, [m(C1, [T1]), m(C2, [T1, T2]), m(C3, [T1])])
    assert mixed == {C1: [(T1, 0)], C2: [(T1, 1), (T2, 0), (T2, 1)], C3: [(T1, 2)]}


def test_sticky_with_different_subscriptions():
    # AbstractStickyAssignorTest.testMultipleConsumersMixedTopicSubscriptions: the general algorithm, which
    # leaves partitionsTransferringOwnership null
    members = [m(C1, [T1]), m(C2, [T1, T2]), m(C3, [T1])]
    result = sticky_assign({T1: 3, T2: 2}, members)
    assert result.assignment == {C1: [(T1, 0), (T1, 2)], C2: [(T2, 0), (T2, 1)], C3: [(T1, 1)]}
    assert result.transferring is None


def _replica_racks(topics, replication, broker_racks):
    """AbstractPartitionAssignorTest.partitionsPerTopic: replica j of partition i (counted over the topics in
    order) on broker (i + j + offset) % brokers."""
    racks, offset = {}, 0
    for topic, count in topics.items():
        for p in range(count):
            racks[(topic, p)] = [broker_racks[(p + j + offset) % len(broker_racks)] for j in range(replication)]
        offset += count
    return racks


@pytest.mark.parametrize(("replication", "expected"), [
    (1, ["t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"]),
    (2, ["t1-0, t1-2, t2-0, t2-2, t2-3, t3-1", "t1-1, t1-3, t2-1, t2-4, t3-0", "t1-4, t1-5, t2-5, t2-6"]),
])
def test_range_with_racks(replication, expected):
    # RangeAssignorTest.testRackAwareAssignmentWithUniformSubscription: consumers on racks a, b, c
    topics = {"t1": 6, "t2": 7, "t3": 2}
    members = [Member(f"consumer{i}", frozenset(topics), rack="abc"[i]) for i in range(3)]
    out = range_assign(topics, members, _replica_racks(topics, replication, "abc"))
    assert [", ".join(f"{t}-{p}" for t, p in sorted(out[f"consumer{i}"])) for i in range(3)] == expected


@given(st.integers(1, 12), st.lists(st.integers(0, 11), max_size=12), st.integers(1, 5))
def test_sticky_is_balanced_and_keeps_what_it_can(count, owned_by, members):
    names = [f"member-{i}" for i in range(members)]
    owned: dict[str, list] = {n: [] for n in names}
    for p, who in enumerate(owned_by[:count]):
        owned[names[who % members]].append((T, p))
    result = sticky_assign({T: count}, [m(n, [T], owned[n]) for n in names])
    sizes = sorted(len(v) for v in result.assignment.values())
    assert sum(sizes) == count and sizes[-1] - sizes[0] <= 1
    assert sorted(tp for v in result.assignment.values() for tp in v) == [(T, p) for p in range(count)]
    for n in names:   # a partition changes owner only when its owner is over quota
        for tp in owned[n]:
            if tp not in result.assignment[n]:
                assert len(result.assignment[n]) >= count // members
