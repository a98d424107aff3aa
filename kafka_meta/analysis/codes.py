"""Names of the Kafka error codes the project talks about (Kafka's ``Errors`` numbering).

The group coordinator's codes (the reports print ``27 REBALANCE_IN_PROGRESS`` rather than a bare number, and
the findings test for a few of them by name), and the SASL login's (the live watch says why a broker refused it).
"""

from __future__ import annotations

NONE = 0
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
ILLEGAL_GENERATION = 22
INCONSISTENT_GROUP_PROTOCOL = 23
INVALID_GROUP_ID = 24
UNKNOWN_MEMBER_ID = 25
INVALID_SESSION_TIMEOUT = 26
REBALANCE_IN_PROGRESS = 27
GROUP_AUTHORIZATION_FAILED = 30
UNSUPPORTED_SASL_MECHANISM = 33
ILLEGAL_SASL_STATE = 34
UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42
SASL_AUTHENTICATION_FAILED = 58
GROUP_ID_NOT_FOUND = 69
MEMBER_ID_REQUIRED = 79
FENCED_INSTANCE_ID = 82
GROUP_MAX_SIZE_REACHED = 81
FENCED_MEMBER_EPOCH = 110
UNRELEASED_INSTANCE_ID = 111
UNSUPPORTED_ASSIGNOR = 112
STALE_MEMBER_EPOCH = 113

NAMES = {value: name for name, value in globals().items() if name.isupper() and isinstance(value, int)}

# a commit refused for one of these came from a member the group had already moved past
FENCED = frozenset({ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, FENCED_MEMBER_EPOCH,
                    STALE_MEMBER_EPOCH})


def error_name(code: int) -> str:
    return f"{code} {NAMES.get(code, 'UNKNOWN_ERROR')}"
