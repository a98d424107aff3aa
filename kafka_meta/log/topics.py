"""Which of a broker's topics holds what: the internal topics by name, every other one a user topic.

A broker's log directory holds Kafka's internal topics beside the users' own. Each internal topic has records
of its own layout, read by its own decoder (as Kafka's DumpLogSegments has a decoder for each); a user topic's
records are the users' bytes, which kafka_meta counts and measures but does not decode. A partition outside
any ``<topic>-<partition>`` directory (a lone segment file) has no topic: it is read as ``__consumer_offsets``,
what the project reads most, and so is a user topic's partition whose first record reads as one (a copy of
``__consumer_offsets`` under another name): that is told by content, a layer up (:mod:`kafka_meta.inputs.topics`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Role = Literal["offsets", "metadata", "transactions", "share-state", "remote-log-metadata", "user"]

OFFSETS_TOPIC = "__consumer_offsets"
METADATA_TOPIC = "__cluster_metadata"
TRANSACTION_TOPIC = "__transaction_state"
SHARE_STATE_TOPIC = "__share_group_state"
REMOTE_LOG_METADATA_TOPIC = "__remote_log_metadata"

INTERNAL_TOPICS: dict[str, Role] = {
    OFFSETS_TOPIC: "offsets",
    METADATA_TOPIC: "metadata",
    TRANSACTION_TOPIC: "transactions",
    SHARE_STATE_TOPIC: "share-state",
    REMOTE_LOG_METADATA_TOPIC: "remote-log-metadata",
}


# internal topics a broker keeps beside __consumer_offsets in the same log directory: their records are not
# group coordinator records (the metadata log, the transaction and share-group state, tiered storage's)
OTHER_INTERNAL_TOPICS = frozenset(topic for topic in INTERNAL_TOPICS if topic != OFFSETS_TOPIC)


def holds_offsets(topic: str | None) -> bool:
    """Whether a row of this topic may hold ``__consumer_offsets`` records, by the name alone: any but Kafka's
    other internal topics (a copy of the offsets topic may have been renamed; a segment outside a partition
    directory has no topic). A log directory's partitions are told by content too
    (:mod:`kafka_meta.inputs.topics`); rows read elsewhere (JSON Lines, Parquet) carry only the name."""
    return topic not in OTHER_INTERNAL_TOPICS


def role_of(topic: str | None) -> Role:
    """What a topic's partitions hold by its name alone: an internal topic's role; ``offsets`` for no topic
    (a lone segment); ``user`` for any other topic."""
    if topic is None:
        return "offsets"
    return INTERNAL_TOPICS.get(topic, "user")


def role_of_row(row: Mapping[str, Any]) -> Role:
    """The role of the topic a row says it was read from (a row without a topic: ``offsets``)."""
    topic = row.get("topic")
    return role_of(topic if isinstance(topic, str) else None)


def is_internal(topic: str | None) -> bool:
    return topic in INTERNAL_TOPICS
