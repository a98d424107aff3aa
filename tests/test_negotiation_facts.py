"""The adapters: facts from decoded SubscriptionInfo / AssignmentInfo, Java's bytes included."""

from __future__ import annotations

import pytest
from conftest import golden_cases

import kafka_meta as km
from kafka_meta.negotiation.facts import assignment_facts, subscription_facts
from kafka_meta.streams.protocol import UNKNOWN

SUBSCRIPTIONS = golden_cases("java/streams-subscription.jsonl")
ASSIGNMENTS = golden_cases("java/streams-assignment.jsonl")


@pytest.mark.skipif(not SUBSCRIPTIONS, reason="../shared golden vectors are not available")
@pytest.mark.parametrize("case", SUBSCRIPTIONS, ids=lambda c: f"v{c['version']}-{c['note'][:30]}")
def test_subscription_facts_from_java_bytes(case):
    facts = subscription_facts("m", km.decode("SubscriptionInfo", bytes.fromhex(case["hex"])))
    fields = case["fields"]
    assert facts.used_version == case["version"]
    assert facts.latest_supported_version == fields.get("latestSupportedVersion", UNKNOWN)
    assert facts.error_code == (0 if case.get("decodeOnly") else fields.get("errorCode", 0))
    if not case.get("decodeOnly"):
        assert facts.process_id == case["input"]["processId"]


@pytest.mark.skipif(not ASSIGNMENTS, reason="../shared golden vectors are not available")
@pytest.mark.parametrize("case", ASSIGNMENTS, ids=lambda c: f"v{c['version']}-{c['note'][:30]}")
def test_assignment_facts_from_java_bytes(case):
    facts = assignment_facts(km.decode("AssignmentInfo", bytes.fromhex(case["hex"])))
    fields = case["fields"]
    assert facts.version == case["version"]
    second = fields.get("commonlySupportedVersion", fields.get("latestSupportedVersion", UNKNOWN))
    assert facts.commonly_supported_version == second
    assert facts.error_code == fields.get("errCode", 0)
