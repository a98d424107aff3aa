"""The assignors against Kafka 4.4's own classes, through the Java peer: random groups, member by member.

Each assignor gets a few hundred groups (a long run is recorded in docs/conformance.md). The
comparison is shown not to be vacuous: the groups exercise what they are meant to (racks, unequal
subscriptions, conflicting claims, warm-ups, Kafka's own exceptions), and breaking one piece of the project's
algorithms on purpose makes differences appear.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from kafka_meta.testing.conformance import assignments
from kafka_meta.testing.conformance.client_groups import client_group
from kafka_meta.testing.conformance.peer import Peer
from kafka_meta.testing.conformance.task_groups import task_group

pytestmark = pytest.mark.kafka

CASES = 300
SEED = 20260


@pytest.fixture(scope="module")
def peer(lab) -> Iterator[Peer]:
    with Peer() as running:
        yield running


@pytest.fixture(scope="module")
def results(peer):
    return {r.type: r for r in assignments.run(peer, CASES, None, SEED)}


def test_every_assignor_gives_kafkas_assignment(results):
    assert sorted(results) == sorted(assignments.types())
    for result in results.values():
        assert result.cases == CASES
        assert result.unexplained == 0, (result.type, result.differences[:1])
        assert result.identical + result.both_refused + result.unfinished + result.explained == CASES


def test_refusals_are_compared_too(results):
    # Kafka's general sticky algorithm throws a NullPointerException when a partition's previous owner was set
    # aside; AssignmentConfigs refuses max.warmup.replicas=0: the project refuses the same cases
    for kind in ("assignor sticky", "assignor cooperative-sticky", "assignor high-availability (streams)"):
        assert results[kind].kafka_refusals > 0
        assert results[kind].our_refusals == results[kind].kafka_refusals


def test_the_groups_exercise_racks_conflicts_and_uneven_subscriptions():
    rng = random.Random(SEED)
    groups = [client_group(rng) for _ in range(CASES)]
    assert sum(bool(g.racks) for g in groups) > CASES // 5
    assert sum(len({frozenset(m.topics) for m in g.members}) > 1 for g in groups) > CASES // 4
    assert sum(any(m.instance_id for m in g.members) for g in groups) > CASES // 10
    claimed = [tp for g in groups for m in g.members for tp in m.owned]
    assert len(claimed) > len(set(claimed))                 # some partitions are claimed twice
    streams = [task_group(rng) for _ in range(100)]
    assert sum(g.configs.num_standby > 0 for g in streams) > 30
    assert any(len(g.clients) > 10 for g in streams)


BREAKAGES = {
    # the order Java's HashMap of subscriptions iterates members in
    "assignor sticky": ("kafka_meta.negotiation.sticky.subscription_order", lambda members: list(members)),
    # rack matching before the ranges are dealt
    "assignor range": ("kafka_meta.negotiation.range_assignor._match_racks", lambda out, states: None),
    # the coordinator's HashMap order of members
    "assignor uniform (server)": ("kafka_meta.negotiation.server_group.hash_map_order",
                                  lambda keys, hash_of, capacity=None: sorted(keys)),
    # static members first, by instance id
    "assignor range (server)": ("kafka_meta.negotiation.server_assignors._instance_order",
                                lambda view: sorted(view.member_ids)),
    # warm-up replicas
    "assignor high-availability (streams)": ("kafka_meta.negotiation.task_movement.Warmups.take",
                                             lambda self: False),
    # the task pairs that spread co-located tasks
    "assignor legacy-sticky (streams)": ("kafka_meta.negotiation.legacy_sticky_tasks._Builder._new_pair",
                                         lambda self, task, assigned: True),
}


@pytest.mark.parametrize("kind", sorted(BREAKAGES))
def test_a_broken_algorithm_is_caught(peer, monkeypatch, kind):
    target, replacement = BREAKAGES[kind]
    monkeypatch.setattr(target, replacement)
    [result] = assignments.run(peer, 150, {kind}, SEED)
    assert result.unexplained > 0
    assert any(d.what == "assignment differs" and d.example.get("at") is not None for d in result.differences)
