"""Kafka Streams SubscriptionInfo: described by our spec (schemas/streams/SubscriptionInfo.json); this module
adds the model base with the readable view and the framing (the int32 version leads the body, followed
from v3 by latestSupportedVersion, which Java requires to be at least the version)."""

from __future__ import annotations

from pydantic import computed_field

from kafka_meta.codec.framing import Companion, ForwardPolicy, LeadingVersion
from kafka_meta.models.base import Message
from kafka_meta.streams.views import SubscriptionView, subscription_view

TYPE_NAME = "SubscriptionInfo"
SPEC_NAME = "SubscriptionInfoData"

# Defaults that differ from the spec's (Kafka's generated SubscriptionInfoData): what Streams' own
# SubscriptionInfo constructor writes. It fills the offset sums from TaskIds, and a task without a named
# topology has a null name, written as null, not the generated class's "" (which no Kafka writer produces).
SUBSCRIPTION_DEFAULTS = {"TaskOffsetSum.namedTopology": "null"}


def subscription_framing() -> LeadingVersion:
    return LeadingVersion("int32", "version", ForwardPolicy.PROBE,
                          [Companion("latestSupportedVersion", since=3, at_least_version=True)])


class SubscriptionInfoBase(Message):
    @computed_field  # type: ignore[prop-decorator]
    @property
    def streams_view(self) -> SubscriptionView:
        """Task ids, offset sums, endpoint and client tags as Kafka Streams reads them."""
        return subscription_view(self)
