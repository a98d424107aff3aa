"""Kafka Streams' task assignors, checked against expectations of Kafka's own tests (apache/kafka
streams/src/test/java/org/apache/kafka/streams/processor/internals/assignment/HighAvailabilityTaskAssignorTest,
LegacyStickyTaskAssignorTest); the differential run against Kafka 4.4 is tests/test_conformance_assignors.py."""

from __future__ import annotations

import uuid

import pytest

from kafka_meta.negotiation.legacy_sticky_tasks import legacy_sticky_assign
from kafka_meta.negotiation.outcomes import AssignmentFailed
from kafka_meta.negotiation.task_assignors import high_availability_assign
from kafka_meta.negotiation.task_state import RUNNING, TaskClient, TaskConfigs

PID_1, PID_2, PID_3 = (uuid.UUID(int=i) for i in (1, 2, 3))    # AssignmentTestUtils.processIdForInt
T00, T01, T02, T03 = (0, 0), (0, 1), (0, 2), (0, 3)
NO_STANDBYS = TaskConfigs(num_standby=0, acceptable_lag=100, max_warmups=2)


def test_an_active_task_moves_to_the_caught_up_client_and_warms_up():
    # shouldComputeNewAssignmentIfActiveTasksWasNotOnCaughtUpClient
    c1 = TaskClient(PID_1, 1, frozenset({T00}), lags={T00: 500})
    c2 = TaskClient(PID_2, 1, frozenset({T01}), lags={T00: 0})
    out = high_availability_assign([c1, c2], [T00, T01], [T00], NO_STANDBYS)
    assert out.active == {PID_1: [T01], PID_2: [T00]}
    assert out.standby[PID_1] == [T00]            # the warm-up
    assert out.probing


def test_unassigned_active_tasks_go_to_the_only_client():
    # shouldComputeNewAssignmentIfThereAreUnassignedActiveTasks
    c1 = TaskClient(PID_1, 1, frozenset({T00}), lags={T00: 0})
    out = high_availability_assign([c1], [T00, T01], [T00], NO_STANDBYS)
    assert out.active == {PID_1: [T00, T01]} and not out.probing


def test_standbys_go_to_the_least_loaded_other_client():
    clients = [TaskClient(p, 1, lags={T00: RUNNING if p == PID_1 else 0}) for p in (PID_1, PID_2, PID_3)]
    out = high_availability_assign(clients, [T00], [T00], TaskConfigs(num_standby=1, acceptable_lag=100))
    assert out.active[PID_1] == [T00] and out.standby == {PID_1: [], PID_2: [T00], PID_3: []}


def test_legacy_sticky_keeps_previous_active_tasks():
    # LegacyStickyTaskAssignorTest.shouldAssignBasedOnCapacity-like: previous owners keep their tasks
    c1 = TaskClient(PID_1, 1, frozenset({T00, T02}))
    c2 = TaskClient(PID_2, 1, frozenset({T01, T03}))
    out = legacy_sticky_assign([c1, c2], [T00, T01, T02, T03], [], TaskConfigs())
    assert out.active == {PID_1: [T00, T02], PID_2: [T01, T03]}


def test_legacy_sticky_moves_tasks_off_a_full_client():
    c1 = TaskClient(PID_1, 1, frozenset({T00, T01, T02}))
    c2 = TaskClient(PID_2, 1)
    c3 = TaskClient(PID_3, 1)
    out = legacy_sticky_assign([c1, c2, c3], [T00, T01, T02], [], TaskConfigs())
    assert sorted(len(v) for v in out.active.values()) == [1, 1, 1]


@pytest.mark.parametrize("assign", [high_availability_assign, legacy_sticky_assign])
def test_configs_are_validated_as_streams_config_does(assign):
    with pytest.raises(AssignmentFailed) as refused:
        assign([TaskClient(PID_1, 1)], [T00], [], TaskConfigs(max_warmups=0))
    assert refused.value.failure.exception == "ConfigException"
