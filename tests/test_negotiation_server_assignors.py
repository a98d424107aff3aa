"""The broker's KIP-848 assignors, checked against expectations of Kafka's own tests (apache/kafka
group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/UniformHeterogeneousAssignmentBuilderTest,
RangeAssignorTest); the differential run against Kafka 4.4 is tests/test_conformance_assignors.py."""

from __future__ import annotations

import uuid

import pytest

from kafka_meta.negotiation.outcomes import AssignmentFailed
from kafka_meta.negotiation.server_assignors import range_assign_server, uniform_assign
from kafka_meta.negotiation.server_group import ServerMember, ServerTopic

T1, T2, T3 = (ServerTopic(f"topic{i}", uuid.UUID(int=i * 1000 + 7), n) for i, n in ((1, 3), (2, 8), (3, 3)))


def test_uniform_heterogeneous_after_a_member_left():
    # testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics
    a = ServerMember("A", ("topic1", "topic3"), ((T1.topic_id, (0, 1, 2)), (T3.topic_id, (0, 1))))
    b = ServerMember("B", ("topic2",), ((T2.topic_id, (3, 4, 5, 6)),))
    out = uniform_assign([T1, T2, T3], [a, b])
    assert out == {"A": {T1.topic_id: [0, 1, 2], T3.topic_id: [0, 1, 2]}, "B": {T2.topic_id: list(range(8))}}


def test_uniform_homogeneous_keeps_what_fits_the_quota():
    a = ServerMember("A", ("topic2",), ((T2.topic_id, (0, 1, 2, 3, 4, 5)),))
    b = ServerMember("B", ("topic2",))
    out = uniform_assign([T2], [a, b])
    assert len(out["A"][T2.topic_id]) == 4 and len(out["B"][T2.topic_id]) == 4
    assert set(out["A"][T2.topic_id]) < {0, 1, 2, 3, 4, 5}         # A keeps four of its own


def test_range_static_members_first_and_unknown_topics_skipped():
    members = [ServerMember("m-b", ("topic1", "gone")), ServerMember("m-a", ("topic1", "gone"), instance_id="i-1")]
    out = range_assign_server([T1], members)
    assert out == {"m-a": {T1.topic_id: [0, 1]}, "m-b": {T1.topic_id: [2]}}


def test_no_members_no_assignment():
    assert uniform_assign([T1], []) == {} and range_assign_server([T1], []) == {}


def test_a_partition_left_over_is_kafkas_exception():
    # two members hold the same partitions (never true of real target assignments): uniform cannot place all
    a = ServerMember("A", ("topic1",), ((T1.topic_id, (0, 1, 2)),))
    b = ServerMember("B", ("topic1",), ((T1.topic_id, (0, 1, 2)),))
    c = ServerMember("C", ("topic1",))
    try:
        out = uniform_assign([T1], [a, b, c])
    except AssignmentFailed as e:
        assert e.failure.exception == "PartitionAssignorException"
    else:
        assert sum(len(ps) for m in out.values() for ps in m.values()) >= 3


@pytest.mark.parametrize("assign", [uniform_assign, range_assign_server])
def test_every_partition_once_when_subscriptions_are_equal(assign):
    members = [ServerMember(f"member-{i}", ("topic1", "topic2", "topic3")) for i in range(4)]
    out = assign([T1, T2, T3], members)
    placed = sorted((t, p) for m in out.values() for t, ps in m.items() for p in ps)
    assert placed == sorted((t.topic_id, p) for t in (T1, T2, T3) for p in range(t.partitions))
