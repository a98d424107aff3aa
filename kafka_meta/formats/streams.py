"""Kafka Streams rebalance metadata (section 4 of the wire-format notes).

* ``SubscriptionInfo``: our spec ``schemas/streams/SubscriptionInfo.json`` (Kafka's SubscriptionInfoData);
* ``AssignmentInfo``: declared by hand in :mod:`kafka_meta.streams.assignment` (Java writes it with
  ``DataOutputStream``; there is no spec).

Both start with an int32 version that is part of the body. A version above the newest known (11) is read
as Kafka Streams reads a future subscription: a :class:`~kafka_meta.codec.probe.VersionProbe` holding the
version and the second int32 (latestSupportedVersion / commonlySupportedVersion), the rest kept unread.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.formats.family import Family
from kafka_meta.streams.assignment import assignment_format
from kafka_meta.streams.subscription import SPEC_NAME, TYPE_NAME, SubscriptionInfoBase, subscription_framing

FAMILIES = {
    "streams": Family(lambda spec: subscription_framing(), {SPEC_NAME: SubscriptionInfoBase}, {SPEC_NAME: TYPE_NAME}),
}


def register(registry: Any) -> None:
    registry.register(assignment_format())
