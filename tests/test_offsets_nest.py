"""The whole nest: group members' consumer-protocol bytes and assignor user data, decoded in one call."""

from __future__ import annotations

import kafka_meta as km
from kafka_meta.offsets import decode_record, encode_record, new_record

GROUP_KEY = {"group": "g"}


def sub(topics, user_data=None, version=3, **kw):
    return km.encode(km.model("ConsumerProtocolSubscription")(topics=topics, user_data=user_data, **kw), version)


def asg(parts, version=3):
    groups = [{"topic": t, "partitions": p} for t, p in parts.items()]
    return km.encode(km.model("ConsumerProtocolAssignment")(assigned_partitions=groups), version)


def member(mid, subscription, assignment):
    return {"memberId": mid, "clientId": "c", "clientHost": "h", "sessionTimeout": 1, "rebalanceTimeout": 2,
            "subscription": subscription, "assignment": assignment}


def group(protocol_type, protocol, members):
    value = {"protocolType": protocol_type, "generation": 3, "protocol": protocol, "leader": "m1",
             "members": members}
    record = new_record("GroupMetadata", GROUP_KEY, value)
    return decode_record(*encode_record(record))


def test_consumer_group_members_decoded_with_sticky_user_data():
    sticky = km.encode(km.model("StickyAssignorUserData").model_validate(
        {"previous_assignment": [{"topic": "a", "partitions": [1]}], "generation": 2}))
    record = group("consumer", "sticky", [member("m1", sub(["a"], sticky, 0), asg({"a": [0, 1]}))])
    nest = record.members[0]
    assert nest.errors == [] and nest.member_id == "m1"
    assert nest.subscription.topics == ["a"] and nest.subscription.version == 0
    assert nest.assignment.assigned_partitions[0].partitions == [0, 1]
    assert nest.subscription_user_data.generation == 2 and nest.subscription_user_data.variant == "java"


def test_cooperative_sticky_and_an_unsynced_member():
    coop = km.encode(km.model("CooperativeStickyAssignorUserData")(generation=5))
    record = group("consumer", "cooperative-sticky", [member("m1", sub(["a"], coop), b"")])
    nest = record.members[0]
    assert nest.subscription_user_data.generation == 5
    assert nest.assignment is None and nest.errors == []  # joined, not yet assigned: no error


def test_corrupt_member_bytes_are_reported_on_the_member_and_the_record_survives():
    record = group("consumer", "range", [member("bad", b"\x00\x01\xff", asg({"a": [0]})),
                                         member("ok", sub(["a"]), asg({"a": [1]}))])
    bad, ok = record.members
    assert bad.subscription is None and len(bad.errors) == 1 and "subscription:" in bad.errors[0]
    assert bad.assignment is not None  # the assignment still decoded
    assert ok.errors == [] and ok.subscription.topics == ["a"]
    assert record.value.members[0].subscription == b"\x00\x01\xff"  # the wire value is untouched
    assert encode_record(record)[1] == encode_record(group("consumer", "range", [
        member("bad", b"\x00\x01\xff", asg({"a": [0]})), member("ok", sub(["a"]), asg({"a": [1]}))]))[1]


def test_unreadable_sticky_user_data_falls_back_like_kafka():
    record = group("consumer", "sticky", [member("m1", sub(["a"], b"\xde\xad"), b"")])
    data = record.members[0].subscription_user_data
    assert data.variant == "unreadable" and data.generation == -1 and data.previous_assignment == []
    assert data.decode_problem


def test_streams_members_decoded_with_subscription_and_assignment_info():
    import uuid

    info = km.encode(km.model("SubscriptionInfo")(latest_supported_version=11, process_id=uuid.UUID(int=7),
                                                  task_offset_sums=[{"topic_group_id": 0, "partition": 2,
                                                                     "offset_sum": -2}]), 11)
    answer = km.encode(km.model("AssignmentInfo")(commonly_supported_version=11, active_tasks=[
        {"topic_group_id": 0, "partition": 2}]), 11)
    assignment = km.encode(km.model("ConsumerProtocolAssignment")(
        assigned_partitions=[{"topic": "words", "partitions": [2]}], user_data=answer))
    nest = group("consumer", "stream", [member("s1", sub(["words"], info), assignment)]).members[0]
    assert nest.errors == []
    assert nest.subscription_user_data.version == 11 and nest.subscription_user_data.streams_view.prev_tasks == ["0_2"]
    assert nest.assignment_user_data.version == 11 and nest.assignment_user_data.active_tasks[0].partition == 2


def test_connect_and_unknown_assignors_keep_raw_bytes():
    assert group("connect", "sessioned", [member("w", b"\x00\x01", b"\x00")]).members is None
    record = group("consumer", "my-assignor", [member("m", sub(["a"], b"\x01\x02"), b"")])
    assert record.members[0].subscription_user_data is None
    assert record.members[0].subscription.user_data == b"\x01\x02"


def test_kip848_classic_member_protocols_decoded():
    coop = km.encode(km.model("CooperativeStickyAssignorUserData")(generation=4))
    value = {"ClientId": "c", "ClientHost": "h", "SubscribedTopicNames": ["a"],
             "ClassicMemberMetadata": {"SessionTimeoutMs": 10, "SupportedProtocols": [
                 {"Name": "cooperative-sticky", "Metadata": sub(["a"], coop)},
                 {"Name": "range", "Metadata": b"\x00"}]}}
    record = decode_record(*encode_record(new_record(5, {"GroupId": "g", "MemberId": "m"}, value)))
    coop_nest, range_nest = record.classic_protocols
    assert coop_nest.name == "cooperative-sticky" and coop_nest.subscription_user_data.generation == 4
    assert range_nest.subscription is None and "subscription:" in range_nest.errors[0]


def test_nesting_can_be_turned_off():
    record = group("consumer", "range", [member("m1", sub(["a"]), b"")])
    key, value = encode_record(record)
    assert decode_record(key, value, nested=False).members is None
