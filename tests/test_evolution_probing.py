"""Kafka Streams version probing: version and latestSupportedVersion stay in place."""

from __future__ import annotations

import pytest
from conftest import SHARED_REASON, SPEC_DIR
from evolution_support import field, findings, one, spec

from kafka_meta.spec import load_spec

HEAD = [field("version", versions="1+"), field("latestSupportedVersion", versions="3+", default=-1),
        field("processId", "uuid", versions="1+")]


def test_inserting_a_field_before_latest_supported_version_breaks_probing():
    old = spec(HEAD, "1-4", name="SubscriptionInfoData")
    new = spec([HEAD[0], field("flags", "int8", versions="5+"), *HEAD[1:]], "1-5", name="SubscriptionInfoData")
    moved = one(findings(old, new), "probing-fields-moved")
    assert moved.breaking and moved.path == "SubscriptionInfoData.latestSupportedVersion"
    assert moved.message.endswith("in version 5 it does not")


def test_retyping_the_version_field_breaks_probing():
    new = spec([field("version", "int16", versions="1+"), *HEAD[1:]], "1-4", name="SubscriptionInfoData")
    found = findings(spec(HEAD, "1-4", name="SubscriptionInfoData"), new)
    moved = {f.path for f in found if f.rule == "probing-fields-moved"}
    # latestSupportedVersion moves too: it no longer starts at byte 4
    assert moved == {"SubscriptionInfoData.version", "SubscriptionInfoData.latestSupportedVersion"}


def test_appending_fields_keeps_probing_working():
    new = spec([*HEAD, field("errorCode", versions="5+")], "1-5", name="SubscriptionInfoData")
    assert [f.rule for f in findings(spec(HEAD, "1-4", name="SubscriptionInfoData"), new)
            if f.rule == "probing-fields-moved"] == []


@pytest.mark.skipif(not SPEC_DIR.is_dir(), reason=SHARED_REASON)
def test_kafka_subscription_info_kept_its_probing_fields_through_2026():
    old = load_spec(SPEC_DIR / "streams" / "SubscriptionInfoData.json")
    new = load_spec(SPEC_DIR / "newer" / "streams" / "SubscriptionInfoData.json")
    assert findings(old, new) == []
