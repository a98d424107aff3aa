"""Java's hash codes and collection orders, as the assignors need them (the expected values are what OpenJDK 17
prints for the same operations)."""

from __future__ import annotations

import uuid

from kafka_meta.negotiation.java_order import (
    JavaHashMap,
    JavaHashSet,
    JavaPriorityQueue,
    hash_map_order,
    string_hash,
    task_id_hash,
    topic_partition_hash,
    uuid_hash,
    uuid_order,
)


def test_hash_codes():
    assert string_hash("consumer1") == -421004549 and string_hash("") == 0
    assert topic_partition_hash("topic", 3) == 31 * 34 + string_hash("topic")
    assert task_id_hash(0, 0) == 29791 and task_id_hash(1, 2) == 29791 + 961 + 62
    assert uuid_hash(uuid.UUID(int=1)) == 1 and uuid_hash(uuid.UUID(int=(1 << 64) | 1)) == 0


def test_uuid_order_is_signed():
    high = uuid.UUID("80000000-0000-0000-0000-000000000000")
    assert uuid_order(high) < uuid_order(uuid.UUID(int=1))


def test_hash_map_order_by_bucket_then_insertion_and_resizing():
    assert hash_map_order([17, 1, 33], lambda k: k) == [17, 1, 33]            # one bucket of 16: insertion order
    assert hash_map_order(list(range(13)), lambda k: k) == list(range(13))    # resized to 32 at the 13th
    grown = JavaHashMap(lambda k: k)
    for k in (40, 8, 24):
        grown.put(k, None)
    grown.remove(8)
    grown.put(8, None)                                                         # removal and re-insertion: last
    assert list(grown) == [40, 24, 8]
    assert list(JavaHashSet.copy_of(lambda k: k, [20, 4])) == [20, 4]          # copy: 16 buckets, both in bucket 4


def test_priority_queue_breaks_ties_as_java_does():
    queue = JavaPriorityQueue(lambda a, b: (a[0] > b[0]) - (a[0] < b[0]))
    for item in [(1, "a"), (1, "b"), (0, "c"), (1, "d")]:
        queue.offer(item)
    assert [queue.poll() for _ in range(4)] == [(0, "c"), (1, "d"), (1, "a"), (1, "b")]
