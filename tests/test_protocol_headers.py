"""The api table, request/response headers and the plausibility check, on real frames and damaged ones."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_support import CAPTURE_FILES, need_captures, requests_and_responses

from kafka_meta.protocol import (
    APIS,
    ProtocolError,
    api_name,
    looks_like_request,
    read_request_header,
    read_response_header,
    request_header_bytes,
    request_header_version,
    response_header_version,
)

# a real JoinGroup v5 request header of librdkafka (cfk_coop.pcapng, frame 46): key 11, version 5,
# correlation id 3, client id "cfk-g-cfk-coop-0"
JOIN_HEADER = bytes.fromhex("000b000500000003001063666b2d672d63666b2d636f6f702d30")


def test_every_api_key_has_a_name_and_sane_versions():
    assert sorted(APIS) == list(range(len(APIS)))  # 0..N without gaps
    assert len(APIS) >= 90
    for key, api in APIS.items():
        assert api.key == key and api.name.isidentifier()
        assert 0 <= api.low <= api.high
        assert api.first_flexible is None or api.first_flexible <= api.high
    assert api_name(11) == "JoinGroup" and api_name(68) == "ConsumerGroupHeartbeat"
    assert api_name(88) == "StreamsGroupHeartbeat"
    assert api_name(4000) == "Unknown(4000)" and api_name(-1) == "Unknown(-1)"


def test_header_versions_follow_the_first_flexible_version():
    assert [request_header_version(11, v) for v in (0, 5, 6, 9)] == [1, 1, 2, 2]
    assert [response_header_version(11, v) for v in (0, 5, 6, 9)] == [0, 0, 1, 1]
    # ApiVersions: flexible requests from v3, but the response header stays v0 (clients read it first)
    assert request_header_version(18, 3) == 2 and response_header_version(18, 3) == 0
    assert request_header_version(7, 0) == 0 and request_header_version(7, 1) == 1  # ControlledShutdown v0
    assert request_header_version(17, 1) == 1  # SaslHandshake has no flexible version
    assert request_header_version(999, 3) == 1 and response_header_version(999, 3) == 0


def test_reads_a_real_header():
    header = read_request_header(JOIN_HEADER + b"body")
    assert (header.api_key, header.api_version, header.correlation_id, header.client_id) == (11, 5, 3,
                                                                                              "cfk-g-cfk-coop-0")
    assert header.header_version == 1 and header.body_offset == len(JOIN_HEADER)


def test_the_written_header_is_a_real_clients_and_reads_back():
    assert request_header_bytes(11, 5, 3, "cfk-g-cfk-coop-0") == JOIN_HEADER
    for key, version in ((18, 0), (18, 3), (17, 1), (11, 9), (0, 13)):  # header v1 and v2 (flexible) alike
        for client_id in ("kafka-meta", "", None):
            written = request_header_bytes(key, version, 7, client_id)
            header = read_request_header(written + b"body")
            assert (header.api_key, header.api_version, header.correlation_id, header.client_id) == (
                key, version, 7, client_id)
            assert header.body_offset == len(written) and header.header_version == request_header_version(key,
                                                                                                          version)


def test_flexible_header_skips_tagged_fields():
    # ApiVersions v3, correlation id 1, client id "c", one tagged field (tag 5, 2 bytes)
    frame = bytes.fromhex("001200030000000100016301050200aa") + b"BODY"
    header = read_request_header(frame)
    assert header.header_version == 2 and frame[header.body_offset:] == b"BODY"
    response = read_response_header(bytes.fromhex("0000000100") + b"X", 1)
    assert response.correlation_id == 1 and response.body_offset == 5


@pytest.mark.parametrize(("frame", "offset", "reason"), [
    (b"\x00\x0b\x00", 2, "apiVersion needs 2 bytes"),
    (JOIN_HEADER[:7], 4, "correlationId needs 4 bytes"),
    (JOIN_HEADER[:9], 8, "clientId length needs 2 bytes"),
    (JOIN_HEADER[:20], 8, "clientId of 16 bytes, 10 left"),
    (JOIN_HEADER[:8] + b"\xff\xfe", 8, "clientId length -2"),
    (JOIN_HEADER[:8] + b"\x00\x02\xc3\x28", 10, "clientId is not UTF-8"),
    (bytes.fromhex("0012000300000001000163") + b"\x80", 11, "varint runs past the end"),
    (bytes.fromhex("001200030000000100016301050900"), 14, "tagged field of 9 bytes, 1 left"),
])
def test_damaged_headers_say_what_and_where(frame, offset, reason):
    with pytest.raises(ProtocolError) as info:
        read_request_header(frame)
    assert info.value.offset == offset and reason in str(info.value)


def test_every_real_request_looks_like_one():
    need_captures()
    for name in CAPTURE_FILES:
        requests, responses = requests_and_responses(name)
        assert all(looks_like_request(f.data) for f in requests)
        # a response starts with its correlation id, which can pass for api key 0 (Produce) at a small
        # version; the check reads on into what would be the Produce body, and refuses them all
        assert not any(looks_like_request(f.data) for f in responses)


def test_real_produce_requests_of_every_version_look_like_requests():
    produce = pytest.importorskip("kafka.protocol.producer.produce", reason="kafka-python 3 writes the frames")
    cls = produce.ProduceRequest
    for version in range(cls.max_version + 1):
        for acks in (-1, 0, 1):
            message = cls[version](transactional_id=None if version < 3 else "tx", acks=acks, timeout_ms=30000,
                                   topic_data=[cls.TopicProduceData(name="orders.v1", partition_data=[])])
            message.with_header(correlation_id=3, client_id="kp")
            frame = bytes(message.encode(header=True))
            assert looks_like_request(frame), (version, acks)
            # the first bytes of the same frame, the rest still arriving, are plausible too
            assert all(looks_like_request(frame[:n], len(frame)) for n in range(10, len(frame)))
            if version < 13:  # while a whole frame that ends inside its topic name does not
                assert not looks_like_request(frame[:frame.index(b"orders.v1") + 3])


@pytest.mark.parametrize("frame", [
    b"",
    JOIN_HEADER[:7],
    b"\x03\xe8" + JOIN_HEADER[2:],  # api key 1000
    b"\x00\x0b\x00\x63" + JOIN_HEADER[4:],  # JoinGroup v99
    b"\x00\x0b\xff\xff" + JOIN_HEADER[4:],  # negative version
    JOIN_HEADER[:4] + b"\x80\x00\x00\x03" + JOIN_HEADER[8:],  # negative correlation id
    JOIN_HEADER[:8] + b"\x7f\xff" + JOIN_HEADER[10:],  # client id longer than the frame
    JOIN_HEADER[:8] + b"\x00\x03\x00\x01\x02",  # control bytes
])
def test_implausible_frames_are_refused(frame):
    assert not looks_like_request(frame)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_give_a_header_or_a_protocol_error(data):
    try:
        header = read_request_header(data)
    except ProtocolError as exc:
        assert exc.offset is not None and 0 <= exc.offset <= len(data)
    else:
        assert header.body_offset <= len(data)
    looks_like_request(data)  # never raises


def test_a_frame_still_arriving_is_judged_on_what_arrived():
    size = len(JOIN_HEADER) + 40
    assert all(looks_like_request(JOIN_HEADER[:n], size) for n in range(8, len(JOIN_HEADER) + 1))
    assert not looks_like_request(JOIN_HEADER[:12])  # complete, its client id would not fit
    assert not looks_like_request(JOIN_HEADER[:10] + b"\x01", size)  # what arrived of the client id is not text
    assert not looks_like_request(JOIN_HEADER[:8] + b"\x00\x40", 20)  # a 64-byte client id in a 20-byte frame
