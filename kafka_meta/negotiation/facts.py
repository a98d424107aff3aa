"""The small typed facts the Streams rules read, and the adapters that take them from decoded messages.

A fact carries only what a rule looks at, so that a rule can be called from a captured group, from a
simulator, or by hand (``StreamsSubscription("c1", used_version=11, latest_supported_version=11)``). The
adapters below read the decoded ``SubscriptionInfo`` / ``AssignmentInfo`` models: a future subscription
(newer than the reader knows) carries only its version and latestSupportedVersion, as in Java.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_meta.streams.protocol import UNKNOWN


@dataclass(frozen=True)
class StreamsSubscription:
    """What the leader reads from one member's SubscriptionInfo."""

    member_id: str
    used_version: int
    latest_supported_version: int = UNKNOWN
    error_code: int = 0
    process_id: str | None = None


@dataclass(frozen=True)
class StreamsAssignment:
    """What a member reads from its AssignmentInfo (``commonly_supported_version`` is UNKNOWN for v1/v2)."""

    version: int
    commonly_supported_version: int = UNKNOWN
    error_code: int = 0
    next_rebalance_ms: int | None = None


def _field(message: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        value = getattr(message, name, None)
        if value is not None:
            return value
    return default


def subscription_facts(member_id: str, info: Any) -> StreamsSubscription:
    """Facts from a decoded SubscriptionInfo (any version, future ones included)."""
    process = _field(info, "process_id")
    return StreamsSubscription(
        member_id=member_id,
        used_version=int(info.version),
        latest_supported_version=int(_field(info, "latest_supported_version", default=UNKNOWN)),
        error_code=int(_field(info, "error_code", default=0)),
        process_id=None if process is None else str(process),
    )


def assignment_facts(info: Any) -> StreamsAssignment:
    """Facts from a decoded AssignmentInfo."""
    return StreamsAssignment(
        version=int(info.version),
        commonly_supported_version=int(_field(info, "commonly_supported_version", "latest_supported_version",
                                              default=UNKNOWN)),
        error_code=int(_field(info, "error_code", "err_code", default=0)),
        next_rebalance_ms=_field(info, "next_rebalance_ms"),
    )
