"""Models built by hand write Kafka's bytes: the ``constructed`` conformance family (values built through the public
model constructors, against the same values built through Kafka 4.4's own constructors by the Java peer), and the
defaults it holds to Kafka's, pinned with bytes Kafka 4.4 wrote for the same values (docs/conformance.md, "Models
built by hand")."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

import kafka_meta as km
from kafka_meta.codec.registry import schema_root
from kafka_meta.formats.family import with_defaults
from kafka_meta.java_hash import JavaHashMap, hash_map_order, string_hash
from kafka_meta.spec import load_spec
from kafka_meta.streams import with_topic_dictionary
from kafka_meta.testing.conformance import constructed
from kafka_meta.testing.conformance.peer import Peer

SUB, ASG = "SubscriptionInfo", "AssignmentInfo"
# new SubscriptionInfo(11, 11, new ProcessId(UUID(0, 1)), null, {new TaskId(0, 1): -2L}, (byte) 0, 0, {}).encode()
KAFKA_SUBSCRIPTION = ("0000000b" "0000000b" "00000000000000000000000000000001" "00000000" "00000001"
                      "00000000" "00000001" "fffffffffffffffe" "ffff" "00" "00000000" "00000000")
# new AssignmentInfo(11, [new TaskId(0, 1)], {}, {}, {}, 4).encode(): the constructor without commonlySupportedVersion
KAFKA_ERROR_ASSIGNMENT = ("0000000b" "0000000b" "00000001" "00000000" "00000001" "00000000" "00000000" "00000000"
                          "00000000" "00000000" "00000004" "7fffffffffffffff")
# v11, partitionsByHost {h:1 -> [orders-0, audit-3, payments-1]}, standbyPartitionsByHost {g:2 -> [clicks-2, orders-1]}:
# Kafka's topic dictionary is audit 0, payments 1, clicks 2, orders 3 (hash orders), not the order topics first come
KAFKA_HOST_MAPS = ("0000000b0000000b00000000000000000000000400000000000561756469740000000100087061796d656e7473000000"
                   "020006636c69636b730000000300066f726465727300000001000168000000010000000300000003000000000000000000"
                   "000003000000010000000100000001000167000000020000000200000002000000020000000300000001000000007fff"
                   "ffffffffffff")


def test_a_subscription_built_by_hand_has_no_named_topology_and_writes_kafkas_bytes():
    sub = km.model(SUB)(latest_supported_version=11, process_id=uuid.UUID(int=1),
                        task_offset_sums=[{"topic_group_id": 0, "partition": 1, "offset_sum": -2}])
    assert sub.task_offset_sums[0].named_topology is None
    assert km.encode(sub, 11).hex() == KAFKA_SUBSCRIPTION
    # at v7-v9, which have no named topology, the default is what a version without the field reads
    grouped = km.model(SUB)(latest_supported_version=11, task_offset_sums=[
        {"topic_group_id": 0, "partition_to_offset_sum": [{"partition": 1, "offset_sum": -2}]}])
    back = km.decode(SUB, km.encode(grouped, 9))
    assert back.task_offset_sums[0].named_topology is None and km.encode(back) == km.encode(grouped, 9)
    # an empty name read from the wire stays one, and is written back as it came
    empty = bytes.fromhex(KAFKA_SUBSCRIPTION.replace("fffffffffffffffeffff", "fffffffffffffffe0000"))
    assert km.decode(SUB, empty).task_offset_sums[0].named_topology == ""
    assert km.encode(km.decode(SUB, empty)) == empty


def test_an_assignment_built_by_hand_writes_the_commonly_supported_version_kafka_writes():
    info = km.model(ASG)(active_tasks=[{"topic_group_id": 0, "partition": 1}], err_code=4)
    assert info.commonly_supported_version == 11
    assert km.encode(info, 11).hex() == KAFKA_ERROR_ASSIGNMENT
    # versions 1 and 2 have none: read as Java reads them, UNKNOWN
    assert km.decode(ASG, km.encode(info, 2)).commonly_supported_version == -1


def test_the_topic_dictionary_helper_numbers_topics_as_kafka_does():
    def partitions(*pairs: tuple[str, int]) -> list[dict[str, object]]:
        return [{"topic": t, "partition": p} for t, p in pairs]

    info = km.model(ASG)(
        partitions_by_host=[{"host": "h", "port": 1, "partitions": partitions(("orders", 0), ("audit", 3),
                                                                               ("payments", 1))}],
        standby_partitions_by_host=[{"host": "g", "port": 2, "partitions": partitions(("clicks", 2), ("orders", 1))}])
    complete = with_topic_dictionary(info, 11)
    assert [(e.index, e.topic) for e in complete.topic_dictionary] == [
        (0, "audit"), (1, "payments"), (2, "clicks"), (3, "orders")]
    assert km.encode(complete, 11).hex() == KAFKA_HOST_MAPS
    # version 5 writes the active host map only, and so does its dictionary
    assert [e.topic for e in with_topic_dictionary(info, 5).topic_dictionary] == ["audit", "payments", "orders"]


def test_compute_if_absent_orders_as_kafkas_writers_do():
    # "Aa" and "BB" share a hash code, 1 and 17 a bucket: computeIfAbsent puts the later one first, put last
    by_topic: JavaHashMap[str, list[int]] = JavaHashMap(string_hash)
    for topic, partition in (("Aa", 0), ("BB", 1)):
        by_topic.compute_if_absent(topic, list).append(partition)
    assert by_topic.keys() == ["BB", "Aa"] and hash_map_order(["Aa", "BB"], string_hash) == ["Aa", "BB"]
    sticky = km.model("StickyAssignorUserData")(previous_assignment=[
        {"topic": t, "partitions": ps} for t, ps in by_topic.items()], generation=3)
    # StickyAssignor told of [Aa-0, BB-1] at generation 3, then subscriptionUserData
    assert km.encode(sticky).hex() == "0000000200024242000000010000000100024161000000010000000000000003"
    groups: JavaHashMap[int, list[int]] = JavaHashMap(lambda sub: sub)
    for sub in (1, 17):
        groups.compute_if_absent(sub, list)
    assert groups.keys() == [17, 1]
    # new SubscriptionInfo(8, 11, ..., {1_0: 5, 17_0: 6}, ...): the subtopologies grouped by computeIfAbsent
    sub = km.model(SUB)(latest_supported_version=11, task_offset_sums=[
        {"topic_group_id": 17, "partition_to_offset_sum": [{"partition": 0, "offset_sum": 6}]},
        {"topic_group_id": 1, "partition_to_offset_sum": [{"partition": 0, "offset_sum": 5}]}])
    assert km.encode(sub, 8).hex() == ("00000008" "0000000b" + "00" * 16 + "00000000" "00000002" "00000011" "00000001"
                                       "00000000" "0000000000000006" "00000001" "00000001" "00000000"
                                       "0000000000000005" "00")


def test_a_default_is_replaced_only_where_the_spec_has_the_field_and_it_can_take_it():
    spec = load_spec(schema_root() / "streams" / "SubscriptionInfo.json")
    assert spec.structs["TaskOffsetSum"].field("namedTopology").default_value() == ""  # Kafka's spec, unchanged
    assert with_defaults(spec, {"TaskOffsetSum.namedTopology": "null"}).structs["TaskOffsetSum"].field(
        "namedTopology").default_value() is None
    with pytest.raises(KeyError):
        with_defaults(spec, {"TaskOffsetSum.noSuchField": "null"})
    with pytest.raises(ValueError, match="never nullable"):
        with_defaults(spec, {"TaskOffsetSum.partition": "null"})


def test_types_are_named_for_the_registered_types():
    assert constructed.types() == [f"{t} (built by hand)" for t in (
        "ConsumerProtocolSubscription", "ConsumerProtocolAssignment", "StickyAssignorUserData",
        "CooperativeStickyAssignorUserData", "SubscriptionInfo", "AssignmentInfo")]


# ---------------------------------------------------------------------------------------------- against Kafka
@pytest.fixture(scope="module")
def peer(lab) -> Iterator[Peer]:
    with Peer() as running:
        yield running


@pytest.mark.kafka
def test_every_type_built_by_hand_writes_kafkas_bytes(peer):
    results = constructed.run(peer, 150, None, 0)
    assert [r.type for r in results] == constructed.types()
    for r in results:
        assert r.cases == 150 and r.unexplained == 0, (r.type, [(d.what, d.example) for d in r.differences])
        assert r.identical + r.both_refused == r.cases and r.identical > 0
    by_type = {r.type: r for r in results}
    # the refusals both sides share are reached: versions out of range, names older versions cannot carry, strings
    # too long for their length prefix
    assert by_type["SubscriptionInfo (built by hand)"].both_refused > 0
    assert by_type["AssignmentInfo (built by hand)"].both_refused > 0


@pytest.mark.kafka
def test_a_registered_type_name_selects_its_family_type(peer):
    assert [r.type for r in constructed.run(peer, 5, {SUB}, 0)] == ["SubscriptionInfo (built by hand)"]


def rebuilt_with_default(model: type, field: str, default: object) -> None:
    model.model_fields[field].default = default
    model.model_rebuild(force=True)


@pytest.fixture
def named_topology_default_of_empty_string() -> Iterator[None]:
    """The bug this family was written for, planted again: a task built by hand without a named topology holds
    ``""``, written as an empty string where Kafka writes null."""
    root = km.model(SUB)
    task = root.model_fields["task_offset_sums"].annotation.__args__[0]  # type: ignore[union-attr]
    rebuilt_with_default(task, "named_topology", "")
    root.model_rebuild(force=True)
    try:
        yield
    finally:
        rebuilt_with_default(task, "named_topology", None)
        root.model_rebuild(force=True)


@pytest.mark.kafka
def test_a_default_planted_back_is_an_unexplained_difference(peer, named_topology_default_of_empty_string):
    assert km.model(SUB)(task_offset_sums=[{}]).task_offset_sums[0].named_topology == ""
    (result,) = constructed.run(peer, 200, {SUB}, 0)
    assert result.unexplained > 0
    bytes_differ = next(d for d in result.differences if d.what == "bytes differ")
    assert bytes_differ.deliberate is None and "task_offset_sums" in bytes_differ.example["arguments"]
