"""Java's orders as the negotiation's assignors need them: the hash codes and hash collections of
:mod:`kafka_meta.java_hash` (which Kafka Streams' declarations, below this layer, use too), named here for this
package's modules, and ``java.util.PriorityQueue``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from kafka_meta.java_hash import (
    DEFAULT_CAPACITY,
    LOAD_FACTOR,
    MIN_TREEIFY_CAPACITY,
    TREEIFY_THRESHOLD,
    JavaHashMap,
    JavaHashSet,
    JavaOrderError,
    capacity_for_copy,
    hash_map_order,
    int32,
    int64,
    objects_hash,
    string_hash,
    table_size_for,
    task_id_hash,
    topic_partition_hash,
    uuid_hash,
    uuid_order,
)

__all__ = [
    "DEFAULT_CAPACITY",
    "LOAD_FACTOR",
    "MIN_TREEIFY_CAPACITY",
    "TREEIFY_THRESHOLD",
    "JavaHashMap",
    "JavaHashSet",
    "JavaOrderError",
    "JavaPriorityQueue",
    "capacity_for_copy",
    "hash_map_order",
    "int32",
    "int64",
    "objects_hash",
    "string_hash",
    "table_size_for",
    "task_id_hash",
    "topic_partition_hash",
    "uuid_hash",
    "uuid_order",
]

K = TypeVar("K", bound=Hashable)


class JavaPriorityQueue(Generic[K]):
    """A ``java.util.PriorityQueue`` with a comparator: the same binary heap, so elements that compare equal
    come out in Java's order, and a comparator that reads changing state (a member's current load) sees it
    exactly when Java's would."""

    def __init__(self, compare: Callable[[K, K], int]) -> None:
        self._compare = compare
        self._heap: list[K] = []

    def __len__(self) -> int:
        return len(self._heap)

    def __contains__(self, item: object) -> bool:
        return item in self._heap

    def _sift_up(self, k: int, x: K) -> None:
        heap = self._heap
        while k > 0:
            parent = (k - 1) >> 1
            e = heap[parent]
            if self._compare(x, e) >= 0:
                break
            heap[k] = e
            k = parent
        heap[k] = x

    def _sift_down(self, k: int, x: K) -> None:
        heap = self._heap
        n = len(heap)
        half = n >> 1
        while k < half:
            child = 2 * k + 1
            c = heap[child]
            right = child + 1
            if right < n and self._compare(c, heap[right]) > 0:
                child = right
                c = heap[child]
            if self._compare(x, c) <= 0:
                break
            heap[k] = c
            k = child
        heap[k] = x

    def offer(self, item: K) -> None:
        self._heap.append(item)
        self._sift_up(len(self._heap) - 1, item)

    def poll(self) -> K:
        heap = self._heap
        result = heap[0]
        last = heap.pop()
        if heap:
            self._sift_down(0, last)
        return result

    def remove(self, item: K) -> bool:
        heap = self._heap
        try:
            i = heap.index(item)
        except ValueError:
            return False
        last = heap.pop()
        if i < len(heap):
            self._sift_down(i, last)
            if heap[i] is last:
                self._sift_up(i, last)
        return True
