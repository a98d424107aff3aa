"""Kafka Streams rebalance metadata: task ids, readable views and the active-task/partition pairing.

The codecs themselves are registered types: ``kafka_meta.decode("SubscriptionInfo", data)`` and
``kafka_meta.decode("AssignmentInfo", data)``.
"""

from kafka_meta.streams.assignment import with_topic_dictionary
from kafka_meta.streams.task_id import parse_task_id, task_id_text, topic_partition_text
from kafka_meta.streams.views import (
    ActiveTaskPartition,
    StreamsAssignmentError,
    active_task_partitions,
    assignment_view,
    subscription_view,
    task_offset_sums,
)

__all__ = [
    "ActiveTaskPartition",
    "StreamsAssignmentError",
    "active_task_partitions",
    "assignment_view",
    "parse_task_id",
    "subscription_view",
    "task_id_text",
    "task_offset_sums",
    "topic_partition_text",
    "with_topic_dictionary",
]
