"""Kafka's assignors against real clients: three librdkafka consumers (confluent-kafka) join a group on
librdkafka's mock cluster, and the partitions they end up with are the ones kafka_meta's assignors compute for
the same member ids and subscriptions (range, round-robin), or a fixed point of them (cooperative-sticky: the
balanced result of the real group's incremental rebalances is kept as it is, with nothing to hand over)."""

from __future__ import annotations

import time

import pytest

from kafka_meta.negotiation.assignors import Member, cooperative_sticky_assign, range_assign, round_robin_assign

confluent_kafka = pytest.importorskip("confluent_kafka", reason="confluent-kafka is not installed (the test extra)")

TOPICS = ("orders", "payments")


@pytest.fixture(scope="module")
def cluster():
    producer = confluent_kafka.Producer({"test.mock.num.brokers": 1, "log_level": 3})
    for topic in TOPICS:
        producer.produce(topic, b"seed")
    producer.flush(10)
    metadata = producer.list_topics(timeout=10)
    broker = next(iter(metadata.brokers.values()))
    yield f"127.0.0.1:{broker.port}", {t: len(metadata.topics[t].partitions) for t in TOPICS}
    producer.flush(1)


def settled_group(bootstrap: str, partitions: dict[str, int], strategy: str) -> dict[str, list[tuple[str, int]]]:
    """Member id -> sorted assignment once three consumers together own every partition."""
    consumers = [confluent_kafka.Consumer({
        "bootstrap.servers": bootstrap, "group.id": f"g-{strategy}", "client.id": f"c{i}", "log_level": 3,
        "partition.assignment.strategy": strategy, "session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
        for i in range(3)]
    try:
        for consumer in consumers:
            consumer.subscribe(list(TOPICS))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for consumer in consumers:
                consumer.poll(0.05)
            owned = [sorted((tp.topic, tp.partition) for tp in c.assignment()) for c in consumers]
            if all(owned) and sum(map(len, owned)) == sum(partitions.values()):
                return {c.memberid(): owned[i] for i, c in enumerate(consumers)}
        raise AssertionError(f"the {strategy} group did not settle")
    finally:
        for consumer in consumers:
            consumer.close()


@pytest.mark.parametrize(("strategy", "assign"), [("range", range_assign), ("roundrobin", round_robin_assign)])
def test_eager_assignors_match_a_real_group(cluster, strategy, assign):
    bootstrap, partitions = cluster
    real = settled_group(bootstrap, partitions, strategy)
    members = [Member(member_id, frozenset(TOPICS)) for member_id in real]
    computed = {m: sorted(parts) for m, parts in assign(partitions, members).items()}
    assert computed == real


def test_cooperative_sticky_keeps_a_real_groups_balanced_assignment(cluster):
    bootstrap, partitions = cluster
    real = settled_group(bootstrap, partitions, "cooperative-sticky")
    members = [Member(member_id, frozenset(TOPICS), tuple(parts), 5) for member_id, parts in real.items()]
    result = cooperative_sticky_assign(partitions, members)
    assert {m: sorted(p) for m, p in result.assignment.items()} == real and result.transferring == {}
    # one member gone: its partitions go to the others in this very rebalance (nobody else owned them)
    gone = members[0].member_id
    rest = cooperative_sticky_assign(partitions, members[1:])
    assert sorted(tp for parts in rest.assignment.values() for tp in parts) == sorted(
        tp for parts in real.values() for tp in parts)
    assert all(set(real[m.member_id]) <= set(rest.assignment[m.member_id]) for m in members[1:])
    assert gone not in rest.assignment
