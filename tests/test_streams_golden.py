"""Every Kafka Streams vector from Kafka's Java code: decode, compare with Kafka's view, re-encode byte for byte."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED_REASON, case_id, golden_cases
from support import mismatches, plain

import kafka_meta as km
from kafka_meta.codec.probe import VersionProbe
from kafka_meta.models.factory import to_plain
from kafka_meta.streams import task_id_text

SUBSCRIPTIONS = golden_cases("java/streams-subscription.jsonl")
ASSIGNMENTS = golden_cases("java/streams-assignment.jsonl")
EVERY = SUBSCRIPTIONS + ASSIGNMENTS


def kafka_task_text(task: dict) -> str:
    return task_id_text(task["subtopology"], task["partition"], task["topologyName"])


@pytest.mark.skipif(not SUBSCRIPTIONS, reason=SHARED_REASON)
@pytest.mark.parametrize("case", SUBSCRIPTIONS, ids=case_id)
def test_subscription_vector(case):
    data = bytes.fromhex(case["hex"])
    message = km.decode("SubscriptionInfo", data)
    assert message.version == case["version"]
    if case.get("decodeOnly"):
        # a future version: only the version-probing header is read, the rest is kept unread
        assert isinstance(message, VersionProbe) and message.read_forward
        assert message.model_dump(by_alias=True) == case["decoded"]
        assert message.unknown_trailing == data[8:]
        assert km.encode(message) == data
        with pytest.raises(km.DecodeError, match="newer than the newest known"):
            km.decode("SubscriptionInfo", data, strict=True)
        return
    assert not message.read_forward and message.version_ == case["version"]
    assert mismatches(case["fields"], plain(message)) == []  # Kafka's generated JSON view of SubscriptionInfoData
    assert km.encode(message) == data
    assert km.decode("SubscriptionInfo", data, strict=True) == message
    # what Kafka Streams' SubscriptionInfo accessors return
    java, view = case["decoded"], message.streams_view
    assert view.process_id == java["processId"] and view.user_end_point == java["userEndPoint"]
    assert sorted(view.prev_tasks) == sorted(kafka_task_text(t) for t in java["prevTasks"])
    assert sorted(view.standby_tasks) == sorted(kafka_task_text(t) for t in java["standbyTasks"])
    assert {s.task: s.offset_sum for s in view.task_offset_sums} == {
        kafka_task_text(s["task"]): s["offsetSum"] for s in java["taskOffsetSums"]}
    assert view.client_tags == java["clientTags"]
    assert (message.latest_supported_version, message.unique_field, message.error_code) == (
        java["latestSupportedVersion"], java["uniqueField"], java["errorCode"])


def canonical(value):
    """Sets and maps as Kafka's oracle lists them: sorted (activeTasks is a list and keeps its order)."""
    if isinstance(value, dict):
        return {k: (v if k == "activeTasks" else canonical(v)) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def kafka_assignment(message) -> dict:
    """Our decoded AssignmentInfo in the shape of Kafka's AssignmentInfo.decode() view."""
    def task(t):
        return {"subtopology": t.topic_group_id, "partition": t.partition, "topologyName": t.named_topology}

    def partitions(ps):
        return [{"topic": p.topic, "partition": p.partition} for p in ps]

    def hosts(hs):
        return [{"host": h.host, "port": h.port, "partitions": partitions(h.partitions)} for h in hs]

    return {
        "version": message.version, "commonlySupportedVersion": message.commonly_supported_version,
        "activeTasks": [task(t) for t in message.active_tasks],
        "standbyTasks": [{"task": task(s.task), "partitions": partitions(s.partitions)} for s in message.standby_tasks],
        "partitionsByHost": hosts(message.partitions_by_host),
        "standbyPartitionsByHost": hosts(message.standby_partitions_by_host),
        "errCode": message.err_code, "nextRebalanceMs": message.next_rebalance_ms,
    }


@pytest.mark.skipif(not ASSIGNMENTS, reason=SHARED_REASON)
@pytest.mark.parametrize("case", ASSIGNMENTS, ids=case_id)
def test_assignment_vector(case):
    data = bytes.fromhex(case["hex"])
    message = km.decode("AssignmentInfo", data)
    assert message.version == message.version_ == case["version"] and not message.read_forward
    assert canonical(kafka_assignment(message)) == canonical(case["fields"])
    # the dictionary keeps Java's hash-map order, which re-encoding needs
    assert [e.model_dump() for e in message.topic_dictionary] == case.get("topicDictionary", [])
    assert km.encode(message) == data
    assert km.decode("AssignmentInfo", data, strict=True) == message
    assert message.streams_view.active_tasks == [kafka_task_text(t) for t in case["fields"]["activeTasks"]]


@pytest.mark.skipif(not EVERY, reason=SHARED_REASON)
def test_every_prefix_of_every_vector_is_a_decode_error():
    for case in EVERY:
        data = bytes.fromhex(case["hex"])
        for cut in range(len(data)):
            if case.get("decodeOnly") and cut >= 8:
                continue  # a version probe reads only its first 8 bytes
            with pytest.raises(km.DecodeError) as info:
                km.decode(case["type"], data[:cut])
            assert info.value.offset is not None and info.value.offset <= cut


@pytest.mark.skipif(not EVERY, reason=SHARED_REASON)
def test_the_bulk_path_reads_the_same_values():
    for case in EVERY:
        data = bytes.fromhex(case["hex"])
        message = km.decode(case["type"], data)
        value, version = km.decode_plain(case["type"], data)
        assert version == case["version"] and value == to_plain(message)
