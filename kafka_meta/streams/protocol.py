"""Constants of the Kafka Streams rebalance protocol (``StreamsAssignmentProtocolVersions``, ``Task``,
``AssignorError``), unchanged from Kafka 3.2 through the 4.x releases."""

from __future__ import annotations

from enum import IntEnum

LATEST_SUPPORTED_VERSION = 11
EARLIEST_PROBEABLE_VERSION = 3  # the first version with latestSupportedVersion: probing needs every member at 3+
MIN_NAMED_TOPOLOGY_VERSION = 10
MIN_OFFSET_SUM_VERSION = 7
UNKNOWN = -1  # latestSupportedVersion of v1/v2 subscriptions, commonlySupportedVersion of v1/v2 assignments

LATEST_OFFSET = -2  # a task offset sum meaning "a running active task"
UNKNOWN_OFFSET_SUM = -3  # what a v1-v6 standby task maps to in offset-sum form
NO_NEXT_REBALANCE = 2**63 - 1  # Long.MAX_VALUE: nextRebalanceMs when no probing rebalance is scheduled

class AssignorError(IntEnum):
    """The ``errorCode`` of SubscriptionInfo v9+ and ``errCode`` of AssignmentInfo v4+."""

    NONE = 0
    INCOMPLETE_SOURCE_TOPIC_METADATA = 1
    VERSION_PROBING = 2
    ASSIGNMENT_ERROR = 3
    SHUTDOWN_REQUESTED = 4

    @classmethod
    def describe(cls, code: int) -> str:
        try:
            return f"{cls(code).name} ({code})"
        except ValueError:
            return f"unknown error code {code}"


def assignor_error_name(code: int) -> str:
    try:
        return AssignorError(code).name
    except ValueError:
        return f"UNKNOWN({code})"
