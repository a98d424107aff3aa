"""Why the cluster did not answer, in Kafka's words rather than the client library's: kafka-python names its
failures after its own classes (``NodeNotReadyError: 1``), which tell an operator nothing about the cluster."""

from __future__ import annotations

import re

# "[Error 7] RequestTimedOutError: why", "NodeNotReadyError: 1", a bare class name: the library's words
CLASS_PREFIX = re.compile(r"^(\[Error -?\d+\] )?([A-Za-z]\w*(: |$))*")

# kafka-python's error class -> what it means for the cluster watched
SAID = {
    "NodeNotReadyError": "the broker does not answer",
    "KafkaConnectionError": "the connection to the broker failed",
    "KafkaTimeoutError": "the broker did not answer in time",
    "RequestTimedOutError": "the broker did not answer a request in time",
    "MetadataEmptyBrokerList": "the cluster's metadata names no broker",
    "NotCoordinatorError": "the broker asked is not the group's coordinator (it moved)",
    "CoordinatorNotAvailableError": "the group coordinator is not available (a broker starting or moving)",
    "CoordinatorLoadInProgressError": "the group coordinator is still loading its partitions",
    "LeaderNotAvailableError": "a partition has no leader (a broker down or an election under way)",
    "NotLeaderForPartitionError": "the broker asked no longer leads the partition (leadership moved)",
    "BrokerNotAvailableError": "a broker is not available",
    "UnrecognizedBrokerVersion": "the broker did not say which Kafka version it speaks",
}


def said(error: BaseException) -> str:
    """The error in Kafka's words, with what its message adds (a bare number is the broker's node id); one this
    table does not know is said as the broker not answering, with its own text."""
    text = str(error).splitlines()[0] if str(error) else ""
    detail = CLASS_PREFIX.sub("", text).strip()
    sentence = next((SAID[kind.__name__] for kind in type(error).__mro__ if kind.__name__ in SAID), None)
    if sentence is None:
        return f"the broker does not answer: {text or type(error).__name__}"
    if detail.isdigit():
        return f"{sentence} (node {detail})"
    return f"{sentence}: {detail}" if detail else sentence
