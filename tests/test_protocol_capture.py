"""The protocol layer on real traffic: two captures of real clients (librdkafka, aiokafka) and librdkafka's
mock broker. Every request is paired, every body of a covered api decodes and re-encodes to its bytes, and
every consumer-protocol payload listed in member-metadata.jsonl comes out decoded as kafka_meta.decode
reads it."""

from __future__ import annotations

import pytest
from protocol_support import (
    CAPTURE_FILES,
    FIXTURE_CAPTURES,
    capture_frames,
    correlate,
    member_metadata_cases,
    need_captures,
    requests_and_responses,
)

import kafka_meta as km
from kafka_meta.protocol import APIS, read_request_header, read_response_header, response_header_version
from kafka_meta.protocol.member_metadata import as_dict

FAILED_SYNC = {27, 42}  # REBALANCE_IN_PROGRESS, INVALID_REQUEST
KIND_TYPES = {"consumer-subscription": "ConsumerProtocolSubscription",
              "consumer-assignment": "ConsumerProtocolAssignment"}


@pytest.fixture(scope="module", params=CAPTURE_FILES)
def capture(request):
    need_captures()
    return request.param


@pytest.fixture(scope="module")
def exchanges(capture):
    return correlate(capture)


def test_every_request_is_paired_with_its_response(capture, exchanges):
    requests, responses = requests_and_responses(capture)
    assert len(exchanges) == len(requests)
    answered = [ex for ex in exchanges if ex.response is not None]
    assert len(answered) == len(responses)  # no response left without its request
    for ex in answered:
        assert ex.response_ts >= ex.ts and ex.latency_ms >= 0
    # the correlation ids really match: re-read each response header from its bytes
    by_key = {(ex.stream, ex.correlation_id): ex for ex in answered}
    for f in responses:
        correlation_id = int.from_bytes(f.data[:4], "big", signed=True)
        ex = by_key[(f.stream, correlation_id)]
        header = read_response_header(f.data, response_header_version(ex.api_key, ex.api_version))
        assert header.correlation_id == ex.correlation_id


def test_headers_of_every_request(capture, exchanges):
    requests, _ = requests_and_responses(capture)
    ordered = sorted(exchanges, key=lambda e: e.source["frame"])
    for f, ex in zip(sorted(requests, key=lambda f: f.first), ordered, strict=True):
        header = read_request_header(f.data)
        assert (header.api_key, header.api_version, header.correlation_id, header.client_id) == (
            ex.api_key, ex.api_version, ex.correlation_id, ex.client_id)
        assert ex.api_name == APIS[header.api_key].name
        assert header.client_id and header.client_id.startswith(("cfk-", "aio-"))


def test_every_covered_body_decodes(capture, exchanges):
    covered = 0
    for ex in exchanges:
        has_spec = ex.api_name + "Request" in km.types()
        assert ("_raw" not in ex.request) == has_spec, ex.api_name
        if not has_spec:
            continue
        covered += 1
        if ex.error is None:
            continue
        # the only damage in these captures: the mock broker answers a failed SyncGroup (27 rebalance in
        # progress, 42 invalid request) with a null assignment, which Kafka's spec does not allow; the rest
        # of the body is still read
        assert ex.api_name == "SyncGroup" and ex.error.startswith("response read leniently"), ex.error
        assert "field assignment, byte 6" in ex.error
        assert ex.error_code in FAILED_SYNC and ex.response["assignment"] is None
    assert covered >= 20


def test_bodies_reencode_to_their_bytes(capture):
    """decode then encode at the same version gives back every request and response body found."""
    requests, responses = requests_and_responses(capture)
    versions = {}
    checked = 0
    for f in requests:
        header = read_request_header(f.data)
        versions[(f.stream, header.correlation_id)] = header
        name = APIS[header.api_key].name + "Request"
        if name in km.types():
            body = f.data[header.body_offset:]
            assert km.encode(km.decode(name, body, version=header.api_version), header.api_version) == body
            checked += 1
    for f in responses:
        request = versions[(f.stream, int.from_bytes(f.data[:4], "big"))]
        name = APIS[request.api_key].name + "Response"
        if name not in km.types():
            continue
        header = read_response_header(f.data, response_header_version(request.api_key, request.api_version))
        body = f.data[header.body_offset:]
        try:
            message = km.decode(name, body, version=request.api_version)
        except km.DecodeError:
            assert name == "SyncGroupResponse"  # the mock broker's null assignment (see above)
            continue
        assert km.encode(message, request.api_version) == body
        checked += 1
    assert checked >= 30


def test_every_listed_member_metadata_payload_is_found_decoded():
    need_captures()
    cases = member_metadata_cases()
    assert cases, "member-metadata.jsonl lists the payloads of both captures"
    by_capture = {name: correlate(name) for name in CAPTURE_FILES}
    for case in cases:
        fields = case["fields"]
        exchanges = by_capture[fields["pcap"]]
        [ex] = [ex for ex in exchanges if ex.client_id == fields["client_id"]
                and ex.correlation_id == fields["correlation_id"] and ex.api_key == fields["api_key"]]
        assert ex.api_version == fields["api_version"] and ex.group_id == fields["group_id"]
        assert ex.source["frame"] <= fields["frame"] and ex.stream == fields["tcp_stream"]
        type_name = KIND_TYPES[case["kind"]]
        expected = as_dict(km.decode(type_name, bytes.fromhex(case["hex"])))
        if case["kind"] == "consumer-subscription":
            [protocol] = [p for p in ex.request["protocols"] if p["name"] == fields["protocol_name"]]
            found = protocol["metadata"]
        else:
            [item] = [a for a in ex.request["assignments"] if a["memberId"] == fields["assigned_member_id"]]
            found = item["assignment"]
        assert found["_type"] == type_name and found["_version"] == case["version"]
        user_data = found["userData"]
        if isinstance(user_data, dict):  # assignor user data, decoded in place
            assert user_data["_type"] == "CooperativeStickyAssignorUserData"
            assert user_data == as_dict(km.decode(user_data["_type"], expected["userData"])) | {
                "_type": user_data["_type"]}
            found = found | {"userData": expected["userData"]}
        assert found == expected


def test_pre_v5_syncs_are_decoded_with_what_the_join_said(exchanges):
    """SyncGroup v3 carries no protocol name; the assignments are still decoded (the JoinGroup response
    named the protocol), and the leader's JoinGroup response lists every member's subscription."""
    syncs = [ex for ex in exchanges if ex.api_name == "SyncGroup"]
    assert syncs and all(ex.api_version < 5 for ex in syncs)
    leader_syncs = [ex for ex in syncs if ex.request["assignments"]]
    assert leader_syncs
    for ex in leader_syncs:
        for item in ex.request["assignments"]:
            assert item["assignment"]["_type"] == "ConsumerProtocolAssignment"
    for ex in syncs:
        if ex.error is None:
            assert ex.response["assignment"]["_type"] == "ConsumerProtocolAssignment"
    joins = [ex for ex in exchanges if ex.api_name == "JoinGroup" and ex.response and ex.response["members"]]
    assert joins
    for ex in joins:
        assert ex.response["leader"] == ex.member_id  # only the leader gets the member list
        assert all(m["metadata"]["_type"] == "ConsumerProtocolSubscription" for m in ex.response["members"])


def test_group_facts_come_from_the_bodies(capture, exchanges):
    group = {"cfk_coop.pcapng": "g-cfk-coop", "aio_range.pcapng": "g-aio-range"}[capture]
    for ex in exchanges:
        if ex.api_name in ("JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit"):
            assert ex.group_id == group
        if ex.api_name == "JoinGroup" and ex.response is not None:
            assert ex.generation_id == ex.response["generationId"] and ex.member_id == ex.response["memberId"]
            assert ex.error_code == ex.response["errorCode"]
        if ex.api_name == "FindCoordinator" and ex.request.get("keyType") == 0:
            assert ex.group_id == group
    generations = [ex.generation_id for ex in exchanges if ex.api_name == "JoinGroup" and ex.response]
    assert generations == sorted(generations) and len(set(generations)) >= 2


def test_unanswered_requests_come_out_of_finish(capture, exchanges):
    unanswered = [ex for ex in exchanges if ex.response is None]
    requests, responses = requests_and_responses(capture)
    assert len(unanswered) == len(requests) - len(responses)
    for ex in unanswered:
        assert ex.response_ts is None and ex.latency_ms is None and ex.request is not None
        assert ex.error is None  # the last requests before the capture stopped, not lost answers


def test_dict_shape(exchanges):
    keys = ["ts", "responseTs", "latencyMs", "client", "broker", "stream", "apiKey", "apiName", "apiVersion",
            "correlationId", "clientId", "groupId", "memberId", "generationId", "errorCode", "request", "response",
            "_error", "source"]
    frames = {f.first for f in capture_frames(exchanges[0].source["file"])}
    for ex in exchanges:
        d = ex.to_dict()
        assert list(d) == keys
        assert d["client"].startswith("127.0.0.1:") and d["broker"].startswith("127.0.0.1:")
        assert d["source"]["frame"] in frames


FIXTURES = sorted(p.name for p in FIXTURE_CAPTURES.glob("*.pcap*")) if FIXTURE_CAPTURES.is_dir() else []


@pytest.mark.parametrize("name", FIXTURES or [pytest.param(None, marks=pytest.mark.skip(
    reason="fixtures/captures/pcap (the capture reader's fixtures) is not in this checkout"))])
def test_the_capture_fixtures_decode(name):
    """More real clients (aiokafka's sticky assignor, librdkafka's KIP-848 heartbeats, a rebalance storm):
    every covered body decodes (the mock broker's null assignments leniently) and re-encodes."""
    need_captures()
    exchanges = correlate(name)
    assert exchanges
    for ex in exchanges:
        if ex.api_name + "Request" not in km.types():
            continue
        assert "_raw" not in ex.request, ex.error
        if "_raw" in (ex.response or {}):
            # librdkafka's mock answers a failed LeaveGroup v3+ without its members array (kafkajs.pcapng):
            # shorter than Kafka defines, so it stays raw with the error naming the field
            assert ex.api_name == "LeaveGroup" and "field members" in (ex.error or ""), ex.error
    for ex in exchanges:
        if ex.api_name == "ConsumerGroupHeartbeat" and ex.response is not None:
            assert ex.generation_id == ex.response["memberEpoch"] and ex.group_id == ex.request["groupId"]
            for topic in (ex.response["assignment"] or {}).get("topicPartitions", []):
                assert topic["topicId"].int != 0 and topic["partitions"]
