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

from kafka_meta.codec.framing import ForwardPolicy, ForwardReading
from kafka_meta.codec.registry import Registry
from kafka_meta.formats.family import Family, FormatPlugin
from kafka_meta.streams.assignment import TYPE_NAME as ASSIGNMENT_TYPE
from kafka_meta.streams.assignment import assignment_format
from kafka_meta.streams.protocol import EARLIEST_PROBEABLE_VERSION
from kafka_meta.streams.subscription import (
    SPEC_NAME,
    SUBSCRIPTION_DEFAULTS,
    TYPE_NAME,
    SubscriptionInfoBase,
    subscription_framing,
)

FAMILIES = {
    "streams": Family(lambda spec: subscription_framing(), {SPEC_NAME: SubscriptionInfoBase}, {SPEC_NAME: TYPE_NAME},
                      {SPEC_NAME: SUBSCRIPTION_DEFAULTS}),
}


def register(registry: Registry) -> None:
    registry.register(assignment_format())


ASSIGNMENT_NOTE = ("Java's AssignmentInfo.decode fails on a version above its latest; kafka_meta reads one as a "
                   "version probe (version and commonlySupportedVersion) to show what was sent")


SUBSCRIPTION_NOTE = ("version probing (KIP-268) exists from subscription v3 (Kafka 2.0): older members fail on "
                     "any version they do not know")


def forward_reading(fmt: Any) -> ForwardReading | None:
    """Compatibility-matrix hook: what Kafka's readers do with a newer version. A subscription is probed
    (from v3 on, before that refused); an AssignmentInfo is refused."""
    if getattr(fmt, "family", None) != "streams":
        return None
    if fmt.name == ASSIGNMENT_TYPE:
        return ForwardReading(ForwardPolicy.REFUSE, ASSIGNMENT_NOTE)
    return ForwardReading(ForwardPolicy.PROBE, SUBSCRIPTION_NOTE, since=EARLIEST_PROBEABLE_VERSION)


PLUGIN = FormatPlugin("streams", FAMILIES, register=register, forward_reading=forward_reading)
