"""The correlator on frames written by kafka-python 3 (an independent implementation of every request and
response) carrying member metadata written by Kafka's Java code (the golden vectors in ../shared/golden):
every version of every covered api, nested metadata per protocol, and the ways traffic goes wrong."""

from __future__ import annotations

import json

import pytest
from conftest import GOLDEN_DIR, need_shared
from hypothesis import given, settings
from hypothesis import strategies as st

import kafka_meta as km
from kafka_meta.protocol import APIS, Connection, Correlator, read_request_header, read_response_header
from kafka_meta.protocol.apis import response_header_version
from kafka_meta.protocol.member_metadata import as_dict

kp_group = pytest.importorskip("kafka.protocol.consumer.group", reason="kafka-python 3 writes the frames")
kp_metadata = pytest.importorskip("kafka.protocol.metadata")
kp_admin = pytest.importorskip("kafka.protocol.admin")
kp_produce = pytest.importorskip("kafka.protocol.producer.produce")
kp_txn = pytest.importorskip("kafka.protocol.producer.transaction")

CONN = Connection("10.0.0.1:50000", "10.0.0.2:9092", 1)
KAFKA_PYTHON_APIS = {
    "ApiVersions": kp_metadata, "FindCoordinator": kp_metadata, "JoinGroup": kp_group, "SyncGroup": kp_group,
    "Heartbeat": kp_group, "LeaveGroup": kp_group, "OffsetCommit": kp_group, "OffsetFetch": kp_group,
    "DescribeGroups": kp_admin, "ListGroups": kp_admin, "DeleteGroups": kp_admin, "OffsetDelete": kp_group,
    "Metadata": kp_metadata, "TxnOffsetCommit": kp_txn, "EndTxn": kp_txn,
}


def request_frame(message, correlation_id: int = 7, client_id: str = "kp-client") -> bytes:
    message.with_header(correlation_id=correlation_id, client_id=client_id)
    return bytes(message.encode(header=True))


def response_frame(message, correlation_id: int = 7) -> bytes:
    message.with_header(correlation_id=correlation_id)
    return bytes(message.encode(header=True))


def golden(name: str) -> list[dict]:
    need_shared()
    return [json.loads(line) for line in (GOLDEN_DIR / "java" / name).read_text().splitlines() if line.strip()]


def richest_golden(name: str) -> bytes:
    """The newest version's longest case (the one with the most in it)."""
    cases = [case for case in golden(name) if case.get("hex")]
    return bytes.fromhex(max(cases, key=lambda case: (case["version"] or 0, len(case["hex"])))["hex"])


def subscription(topics: list[str], user_data: bytes) -> bytes:
    return km.encode(km.model("ConsumerProtocolSubscription")(topics=topics, user_data=user_data), 1)


def assignment(topic: str, partitions: list[int], user_data: bytes) -> bytes:
    return km.encode(km.model("ConsumerProtocolAssignment")(
        assigned_partitions=[{"topic": topic, "partitions": partitions}], user_data=user_data), 0)


def pair(correlator: Correlator, request: bytes, response: bytes, ts: float = 1.0):
    assert correlator.on_request(CONN, ts, request, {"file": "t", "frame": 1}) == []
    [ex] = correlator.on_response(CONN, ts + 0.25, response)
    return ex


@pytest.mark.parametrize("api", sorted(KAFKA_PYTHON_APIS))
def test_every_version_kafka_python_writes(api):
    module = KAFKA_PYTHON_APIS[api]
    request_cls, response_cls = getattr(module, api + "Request"), getattr(module, api + "Response")
    correlator = Correlator()
    for version in range(request_cls.max_version + 1):
        request = request_frame(request_cls[version](), correlation_id=version)
        response = response_frame(response_cls[version](), correlation_id=version)
        ex = pair(correlator, request, response)
        assert ex.error is None, (api, version, ex.error)
        assert (ex.api_name, ex.api_version, ex.correlation_id, ex.client_id) == (api, version, version, "kp-client")
        assert ex.latency_ms == 250.0
        # our codec writes back exactly what kafka-python wrote
        header = read_request_header(request)
        body = request[header.body_offset:]
        assert km.encode(km.decode(api + "Request", body, version=version), version) == body
        rheader = read_response_header(response, response_header_version(header.api_key, version))
        body = response[rheader.body_offset:]
        assert km.encode(km.decode(api + "Response", body, version=version), version) == body


def join_request(version: int, protocols: list[tuple[str, bytes]], protocol_type: str = "consumer",
                 member_id: str = "") -> bytes:
    cls = kp_group.JoinGroupRequest
    return request_frame(cls[version](group_id="app", session_timeout_ms=10000, rebalance_timeout_ms=30000,
                                      member_id=member_id, protocol_type=protocol_type,
                                      protocols=[cls.JoinGroupRequestProtocol(name=n, metadata=m)
                                                 for n, m in protocols]), correlation_id=1)


def join_response(version: int, name: str, members: list[tuple[str, bytes]], protocol_type: str = "consumer"):
    cls = kp_group.JoinGroupResponse
    return response_frame(cls[version](error_code=0, generation_id=4, protocol_type=protocol_type,
                                       protocol_name=name, leader="m-1", member_id="m-1",
                                       members=[cls.JoinGroupResponseMember(member_id=m, metadata=md)
                                                for m, md in members]), correlation_id=1)


def sync_request(version: int, assignments: list[tuple[str, bytes]], protocol: tuple[str, str] | None = None):
    cls = kp_group.SyncGroupRequest
    extra = {"protocol_type": protocol[0], "protocol_name": protocol[1]} if protocol else {}
    return request_frame(cls[version](group_id="app", generation_id=4, member_id="m-1", **extra,
                                      assignments=[cls.SyncGroupRequestAssignment(member_id=m, assignment=a)
                                                   for m, a in assignments]), correlation_id=2)


def sync_response(version: int, data: bytes, protocol: tuple[str, str] | None = None) -> bytes:
    extra = {"protocol_type": protocol[0], "protocol_name": protocol[1]} if protocol else {}
    return response_frame(kp_group.SyncGroupResponse[version](error_code=0, assignment=data, **extra),
                          correlation_id=2)


def expected(type_name: str, data: bytes) -> dict:
    return as_dict(km.decode(type_name, data)) | {"_type": type_name}


@pytest.mark.parametrize(("join_version", "sync_version"), [(5, 3), (9, 5)])
def test_kafka_streams_metadata_is_decoded_in_place(join_version, sync_version):
    """protocol "stream": the consumer subscription's user data is a Java SubscriptionInfo, the assignment's
    an AssignmentInfo; the SyncGroup before v5 learns the protocol from the JoinGroup response."""
    info = richest_golden("streams-subscription.jsonl")
    assignment_info = richest_golden("streams-assignment.jsonl")
    metadata = subscription(["input"], info)
    correlator = Correlator()
    join = pair(correlator, join_request(join_version, [("stream", metadata)]),
                join_response(join_version, "stream", [("m-1", metadata)]))
    nested = join.request["protocols"][0]["metadata"]
    assert nested["_type"] == "ConsumerProtocolSubscription" and nested["topics"] == ["input"]
    assert nested["userData"] == expected("SubscriptionInfo", info)
    assert join.response["members"][0]["metadata"] == nested
    assert (join.group_id, join.member_id, join.generation_id, join.error_code) == ("app", "m-1", 4, 0)

    data = assignment("input", [0, 1], assignment_info)
    named = ("consumer", "stream") if sync_version >= 5 else None
    sync = pair(correlator, sync_request(sync_version, [("m-1", data)], named),
                sync_response(sync_version, data, named))
    assert sync.error is None
    for value in (sync.request["assignments"][0]["assignment"], sync.response["assignment"]):
        assert value["_type"] == "ConsumerProtocolAssignment"
        assert value["assignedPartitions"] == [{"topic": "input", "partitions": [0, 1]}]
        assert value["userData"] == expected("AssignmentInfo", assignment_info)


def test_a_v5_sync_names_its_protocol_itself():
    assignment_info = richest_golden("streams-assignment.jsonl")
    data = assignment("t", [3], assignment_info)
    ex = pair(Correlator(), sync_request(5, [("m-1", data)], ("consumer", "stream")),
              sync_response(5, data, ("consumer", "stream")))
    assert ex.response["assignment"]["userData"]["_type"] == "AssignmentInfo"


def test_assignor_user_data_follows_the_protocol_name():
    sticky = richest_golden("sticky-userdata.jsonl")
    protocols = [("sticky", subscription(["t"], sticky)), ("range", subscription(["t"], b"\x01\x02")),
                 ("my-assignor", subscription(["t"], b"\x03"))]
    ex = pair(Correlator(), join_request(7, protocols), join_response(7, "sticky", [("m-1", protocols[0][1])]))
    by_name = {p["name"]: p["metadata"] for p in ex.request["protocols"]}
    assert by_name["sticky"]["userData"] == expected("StickyAssignorUserData", sticky)
    assert by_name["range"]["userData"] == b"\x01\x02" and by_name["my-assignor"]["userData"] == b"\x03"
    assert ex.response["members"][0]["metadata"]["userData"]["_type"] == "StickyAssignorUserData"


def test_other_protocol_types_keep_their_bytes():
    ex = pair(Correlator(), join_request(6, [("sessioned", b"\x00\x01connect-config")], protocol_type="connect"),
              join_response(6, "sessioned", [("m-1", b"\x00\x01connect-config")], protocol_type="connect"))
    assert ex.error is None
    assert ex.request["protocols"][0]["metadata"] == b"\x00\x01connect-config"
    assert ex.response["members"][0]["metadata"] == b"\x00\x01connect-config"


def test_undecodable_metadata_is_kept_and_reported():
    garbage = b"\x00\x01\x00\x00\x00\x09ab"  # a subscription claiming 9 topics in 2 bytes
    ex = pair(Correlator(), join_request(5, [("range", garbage)]), join_response(5, "range", [("m-1", garbage)]))
    nested = ex.request["protocols"][0]["metadata"]
    assert nested["_type"] == "ConsumerProtocolSubscription" and nested["_raw"] == garbage
    assert "byte 2" in nested["_error"]
    assert "request protocols[0].metadata: ConsumerProtocolSubscription v1" in ex.error
    assert "response members[0].metadata" in ex.error
    assert ex.request["groupId"] == "app" and ex.response["generationId"] == 4  # the rest is there


def test_describe_groups_members_are_decoded():
    cls = kp_admin.DescribeGroupsResponse
    sub, asg = subscription(["t"], b""), assignment("t", [0], b"")
    group = cls.DescribedGroup(error_code=0, group_id="app", group_state="Stable", protocol_type="consumer",
                               protocol_data="range", members=[cls.DescribedGroup.DescribedGroupMember(
                                   member_id="m-1", client_id="c", client_host="/10.0.0.1", member_metadata=sub,
                                   member_assignment=asg)])
    ex = pair(Correlator(), request_frame(kp_admin.DescribeGroupsRequest[5](groups=["app"])),
              response_frame(cls[5](groups=[group])))
    member = ex.response["groups"][0]["members"][0]
    assert member["memberMetadata"] == expected("ConsumerProtocolSubscription", sub)
    assert member["memberAssignment"] == expected("ConsumerProtocolAssignment", asg)
    assert ex.group_id == "app"


@pytest.mark.parametrize("version", [3, 8, 9, 11])
def test_produce_without_acks_gets_no_response(version):
    cls = kp_produce.ProduceRequest
    correlator = Correlator()
    [ex] = correlator.on_request(CONN, 1.0, request_frame(cls[version](transactional_id="tx", acks=0,
                                                                         timeout_ms=100, topic_data=[])))
    assert ex.api_name == "Produce" and ex.response is None and ex.request == {"_raw": ex.request["_raw"]}
    assert correlator.on_request(CONN, 2.0, request_frame(cls[version](acks=1, timeout_ms=100, topic_data=[]),
                                                          correlation_id=8)) == []
    [waiting] = correlator.finish()
    assert waiting.correlation_id == 8 and waiting.response is None and waiting.error is None


def test_unknown_api_keys_are_named_and_kept_raw():
    request = (1000).to_bytes(2, "big") + bytes.fromhex("0001 00000005 0002 6b70") + b"payload"
    ex = pair(Correlator(), request, bytes.fromhex("00000005") + b"answer")
    assert (ex.api_key, ex.api_name, ex.api_version) == (1000, "Unknown(1000)", 1)
    assert ex.request == {"_raw": b"payload"} and ex.response == {"_raw": b"answer"} and ex.error is None


def test_a_response_without_request_is_reported():
    correlator = Correlator()
    [ex] = correlator.on_response(CONN, 3.0, bytes.fromhex("0000002a0000"))
    assert ex.request is None and ex.correlation_id == 42 and ex.api_key is None
    assert "response without a request (correlation id 42)" in ex.error
    assert correlator.unmatched_responses == 1
    [short] = correlator.on_response(CONN, 3.0, b"\x00")
    assert short.correlation_id is None and "shorter than its correlation id" in short.error


def test_a_reused_correlation_id_gives_up_on_the_first_request():
    correlator = Correlator()
    heartbeat = request_frame(kp_group.HeartbeatRequest[4](group_id="app", generation_id=1, member_id="m"), 5)
    assert correlator.on_request(CONN, 1.0, heartbeat) == []
    [first] = correlator.on_request(CONN, 2.0, heartbeat)
    assert first.ts == 1.0 and "no response before correlation id 5 was used again" in first.error
    [second] = correlator.on_response(CONN, 2.5, response_frame(kp_group.HeartbeatResponse[4](), 5))
    assert second.ts == 2.0 and second.error is None
    # the same correlation id on another connection is another exchange
    other = Connection("10.0.0.3:50001", "10.0.0.2:9092", 2)
    assert correlator.on_request(other, 3.0, heartbeat) == []
    assert [ex.client for ex in correlator.finish()] == ["10.0.0.3:50001"]


def test_requests_passed_over_by_a_later_answer_are_given_up():
    """A broker answers a connection's requests in order: when a later one is answered, the earlier ones
    lost their response (from the capture) and are finished at once, not kept until the end."""
    correlator = Correlator()
    for correlation_id in (1, 2, 3):
        frame = request_frame(kp_group.HeartbeatRequest[4](group_id="app", generation_id=1, member_id="m"),
                              correlation_id)
        assert correlator.on_request(CONN, float(correlation_id), frame) == []
    lost1, lost2, answered = correlator.on_response(CONN, 4.0, response_frame(kp_group.HeartbeatResponse[4](), 3))
    assert [lost1.correlation_id, lost2.correlation_id, answered.correlation_id] == [1, 2, 3]
    assert lost1.response is None and "the broker answered a later request on this connection first" in lost1.error
    assert answered.error is None and correlator.finish() == []


def test_a_lone_leaver_is_the_exchanges_member():
    cls = kp_group.LeaveGroupRequest
    ex = pair(Correlator(), request_frame(cls[5](group_id="app", members=[cls.MemberIdentity(member_id="m-9")])),
              response_frame(kp_group.LeaveGroupResponse[5]()))
    assert (ex.group_id, ex.member_id) == ("app", "m-9")


def test_a_damaged_body_says_where_and_keeps_the_rest():
    request = join_request(5, [("range", subscription(["t"], b""))])
    ex = pair(Correlator(), request[:-6], join_response(5, "range", []))
    assert ex.request == {"_raw": request[read_request_header(request).body_offset:-6]}
    assert ex.error.startswith("request: JoinGroupRequest v5, field protocols[0].metadata, byte ")
    assert ex.response["protocolName"] == "range" and ex.group_id is None and ex.generation_id == 4


def test_a_damaged_header_is_an_exchange_with_an_error():
    [ex] = Correlator().on_request(CONN, 1.0, b"\x00\x0b\x00")
    assert ex.api_name == "JoinGroup" and ex.api_version is None
    assert ex.error == "request header: RequestHeader, byte 2: apiVersion needs 2 bytes, 1 left"


def test_a_version_newer_than_known_is_kept_raw():
    request = bytearray(join_request(9, [("range", b"")]))
    request[2:4] = (10).to_bytes(2, "big")
    correlator = Correlator()
    correlator.on_request(CONN, 1.0, bytes(request))
    [ex] = correlator.finish()
    assert ex.api_version == 10 and "_raw" in ex.request
    assert "version 10 is newer than the newest known (9)" in ex.error


def test_api_versions_answered_at_v0_by_an_older_broker():
    """A broker that does not know the requested version answers with a v0 body (UNSUPPORTED_VERSION)."""
    cls = kp_metadata.ApiVersionsResponse
    old = cls[0](error_code=35, api_keys=[cls.ApiVersion(api_key=18, min_version=0, max_version=2)])
    ex = pair(Correlator(), request_frame(kp_metadata.ApiVersionsRequest[4](client_software_name="x",
                                                                             client_software_version="1")),
              response_frame(old))
    assert ex.error is None and ex.error_code == 35
    assert ex.response["apiKeys"] == [{"apiKey": 18, "minVersion": 0, "maxVersion": 2}]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.binary(max_size=48)), max_size=12))
def test_any_frames_give_exchanges_never_exceptions(frames):
    correlator = Correlator()
    out = []
    for is_request, frame in frames:
        out += correlator.on_request(CONN, 1.0, frame) if is_request else correlator.on_response(CONN, 2.0, frame)
    out += correlator.finish()
    for ex in out:
        json.dumps(ex.to_dict(), default=repr)


def test_repeated_payloads_give_independent_values():
    """Decoded payloads are cached; every exchange still owns its values."""
    metadata = subscription(["t"], b"")
    correlator = Correlator()
    first = pair(correlator, join_request(5, [("range", metadata)]), join_response(5, "range", [("m-1", metadata)]))
    second = pair(correlator, join_request(5, [("range", metadata)]), join_response(5, "range", [("m-1", metadata)]))
    first.request["protocols"][0]["metadata"]["topics"].append("changed")
    assert second.request["protocols"][0]["metadata"]["topics"] == ["t"]
    assert first.response["members"][0]["metadata"]["topics"] == ["t"]


COVERED = [(api.key, version) for api in APIS.values() if api.name + "Request" in km.types()
           for version in range(api.low, api.high + 1)]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(COVERED), st.binary(max_size=64), st.binary(max_size=64))
def test_random_bodies_of_covered_apis_are_errors_not_exceptions(api_version, request_body, response_body):
    key, version = api_version
    header = key.to_bytes(2, "big") + version.to_bytes(2, "big") + bytes.fromhex("00000009 0001 63")
    if APIS[key].flexible(version):
        header += b"\x00"
    correlator = Correlator()
    assert correlator.on_request(CONN, 1.0, header + request_body) == []
    [ex] = correlator.on_response(CONN, 2.0, bytes.fromhex("00000009") + (b"\x00" if APIS[key].flexible(version)
                                                                            and key != 18 else b"") + response_body)
    assert ex.api_key == key and ex.api_version == version
    for body in (ex.request, ex.response):
        assert isinstance(body, dict)
        if "_raw" in body:
            assert ex.error is not None
    json.dumps(ex.to_dict(), default=repr)
