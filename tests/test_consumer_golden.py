"""Every consumer-protocol vector from Kafka's Java code and other clients: decode, compare, re-encode."""

from __future__ import annotations

import pytest
from conftest import SHARED_REASON, case_id, golden_cases
from support import mismatches, plain

import kafka_meta as km

JAVA = golden_cases("java/consumer-protocol.jsonl")
CLIENT_KINDS = {"consumer-subscription": "ConsumerProtocolSubscription",
                "consumer-assignment": "ConsumerProtocolAssignment"}
CLIENTS = [c for f in ("clients/kafka-python.jsonl", "clients/kafkajs.jsonl") for c in golden_cases(f)
           if c["kind"] in CLIENT_KINDS]
NONCONFORMING = [c for c in golden_cases("clients/kafkajs.jsonl") if "nonconforming" in c["kind"]]


@pytest.mark.skipif(not JAVA, reason=SHARED_REASON)
@pytest.mark.parametrize("case", JAVA, ids=case_id)
def test_java_vector(case):
    data = bytes.fromhex(case["hex"])
    message = km.decode(case["type"], data)
    assert message.version == case["version"]
    assert mismatches(case["fields"], plain(message)) == []
    if case.get("decodeOnly"):
        # a future version: read with the v3 layout; what Java's consumer sees is the client view
        assert message.read_forward
        assert mismatches(case["decoded"], plain(message.client_view)) == []
        assert km.encode(message) == data, "unknown trailing bytes are kept and written back"
        assert km.encode(message, 3) == data[:2].replace(data[:2], b"\x00\x03") + data[2:len(data) - len(
            message.unknown_trailing)]
    else:
        assert not message.read_forward
        assert km.encode(message) == data
        assert mismatches(case["decoded"], plain(message.client_view)) == []


@pytest.mark.skipif(not CLIENTS, reason=SHARED_REASON)
@pytest.mark.parametrize("case", CLIENTS, ids=lambda c: f"{c['source']}-{case_id(c)}")
def test_other_client_vector(case):
    data = bytes.fromhex(case["hex"])
    message = km.decode(CLIENT_KINDS[case["kind"]], data)
    # a Python client's decode of the bytes (kafkajs vectors carry kafka-python's too), else the encoder's
    # input; bytes appear as {"hex": ...}, and "version"/"assignor" are not message fields
    fields = case["fields"]
    expected = (case.get("cross_decoded") or {}).get("kafka-python 3.0.12") or fields.get("impl_decoded") or fields
    expected = {k: v for k, v in unwrap_hex(expected).items() if k not in ("version", "assignor")}
    assert message.version == case["version"]
    assert mismatches(expected, plain(message)) == []
    assert km.encode(message) == data


def unwrap_hex(value):
    if isinstance(value, dict):
        if set(value) == {"hex"}:
            return value["hex"]
        return {k: unwrap_hex(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwrap_hex(v) for v in value]
    return value


@pytest.mark.skipif(not NONCONFORMING, reason=SHARED_REASON)
@pytest.mark.parametrize("case", NONCONFORMING, ids=case_id)
def test_nonconforming_version_stamp_is_refused_like_java(case):
    """kafkajs stamps v1 on a v0 body; Kafka's reader fails on it, and so do we, saying where."""
    with pytest.raises(km.DecodeError) as info:
        km.decode("ConsumerProtocolSubscription", bytes.fromhex(case["hex"]))
    assert info.value.path == "ownedPartitions"
    assert info.value.offset == len(bytes.fromhex(case["hex"]))
