"""Java's hash codes, and the iteration order of Java's hash collections, reproduced.

Kafka's code iterates ``HashMap``s and ``HashSet``s in many places where the order shows: its assignors make
choices in that order (which member keeps a larger share, which moved partition moves back), and its writers put
hash containers on the wire in that order (Kafka Streams' topic dictionary and task sets, the sticky assignor's
topics). Giving the same assignment, or writing the same bytes, as Kafka for the same input therefore needs the
same order, which these classes reproduce:

* the hash codes: ``String.hashCode``, ``Integer``, ``java.util.UUID`` / Kafka's ``Uuid``,
  ``TopicPartition``, Streams' ``TaskId`` and ``Objects.hash``;
* :class:`JavaHashMap` (and :class:`JavaHashSet` over it): a table of ``2^k`` buckets indexed by the spread
  hash (``h ^ (h >>> 16)``), entries in a bucket in insertion order, the table doubling when the size passes
  three quarters of it (a doubling keeps the relative order inside each bucket), never shrinking, and the
  initial capacities of Java's constructors (default, sized, copied from a collection or a map);
  ``computeIfAbsent``, which grows the table and places new entries otherwise, apart.

Java turns a bucket of more than eight entries into a tree once the table has 64 buckets, which changes
the order inside that bucket; :class:`JavaOrderError` is raised then rather than guessing (with the hash
codes of real ids it does not happen). Python's string order is Java's ``String.compareTo`` for names
inside the Basic Multilingual Plane, the only ones this module is used with.

Nothing here depends on the rest of the package, so any layer may use it (the layer table of
docs/architecture.md); the negotiation's own orders (``PriorityQueue``) are in
:mod:`kafka_meta.negotiation.java_order`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_MASK = 0xFFFFFFFF
DEFAULT_CAPACITY = 16
LOAD_FACTOR = 0.75
TREEIFY_THRESHOLD = 8
MIN_TREEIFY_CAPACITY = 64


class JavaOrderError(RuntimeError):
    """An order this module does not reproduce (a bucket Java would have turned into a tree)."""


def int32(value: int) -> int:
    """``value`` wrapped to Java's signed 32-bit ``int``."""
    value &= _MASK
    return value - (1 << 32) if value & 0x80000000 else value


def int64(value: int) -> int:
    """``value`` wrapped to Java's signed 64-bit ``long``."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value & (1 << 63) else value


def string_hash(text: str) -> int:
    """``String.hashCode()``: over the UTF-16 code units, as a signed int."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & _MASK
    return int32(h)


def objects_hash(*hashes: int) -> int:
    """``Objects.hash(a, b, ...)`` from the elements' hash codes (``0`` for a null element)."""
    h = 1
    for item in hashes:
        h = (31 * h + item) & _MASK
    return int32(h)


def uuid_hash(value: uuid.UUID) -> int:
    """``java.util.UUID.hashCode()``, which Kafka's ``Uuid`` and Streams' ``ProcessId`` share."""
    bits = value.int
    hilo = (bits >> 64) ^ (bits & ((1 << 64) - 1))
    return int32((hilo >> 32) ^ hilo)


def uuid_order(value: uuid.UUID) -> tuple[int, int]:
    """The sort key of ``UUID.compareTo`` / Kafka's ``Uuid.compareTo``: the two halves as signed longs."""
    bits = value.int
    return int64(bits >> 64), int64(bits)


def topic_partition_hash(topic: str, partition: int) -> int:
    """``TopicPartition.hashCode()``."""
    return int32(31 * (31 + partition) + string_hash(topic))


def task_id_hash(subtopology: int, partition: int) -> int:
    """Streams' ``TaskId.hashCode()`` without a named topology: ``Objects.hash(subtopology, partition, null)``."""
    return objects_hash(subtopology, partition, 0)


def table_size_for(capacity: int) -> int:
    """``HashMap.tableSizeFor``: the smallest power of two not below ``capacity`` (at least 1)."""
    size = 1
    while size < capacity:
        size *= 2
    return size


def capacity_for_copy(size: int) -> int:
    """The initial capacity ``new HashSet<>(collection)`` asks for."""
    return max(int(size / LOAD_FACTOR) + 1, DEFAULT_CAPACITY)


class JavaHashMap(Generic[K, V]):
    """A ``java.util.HashMap`` as far as its iteration order goes.

    ``capacity`` is the argument of ``new HashMap<>(capacity)`` (None: ``new HashMap<>()``); ``hash_of`` gives
    a key's Java ``hashCode``.
    """

    def __init__(self, hash_of: Callable[[K], int], capacity: int | None = None) -> None:
        self._hash_of = hash_of
        self._pending = DEFAULT_CAPACITY if capacity is None else table_size_for(capacity)
        self._buckets: list[list[K]] = []
        self._values: dict[K, V] = {}

    @classmethod
    def copy_of(cls, hash_of: Callable[[K], int], items: Iterable[tuple[K, V]], size: int | None = None
                ) -> JavaHashMap[K, V]:
        """``new HashMap<>(map)``: sized for the source's size, filled in its iteration order."""
        pairs = list(items)
        count = len(pairs) if size is None else size
        made: JavaHashMap[K, V] = cls(hash_of, int(count / LOAD_FACTOR + 1.0) if count else None)
        for key, value in pairs:
            made.put(key, value)
        return made

    def _index(self, key: K, capacity: int) -> int:
        h = self._hash_of(key) & _MASK
        return (h ^ (h >> 16)) & (capacity - 1)

    def _resize(self) -> None:
        capacity = len(self._buckets) * 2 if self._buckets else self._pending
        old = self._buckets
        self._buckets = [[] for _ in range(capacity)]
        for bucket in old:
            for key in bucket:
                self._buckets[self._index(key, capacity)].append(key)

    def put(self, key: K, value: V) -> None:
        if key in self._values:
            self._values[key] = value
            return
        if not self._buckets:
            self._resize()
        bucket = self._buckets[self._index(key, len(self._buckets))]
        bucket.append(key)
        self._values[key] = value
        if len(bucket) > TREEIFY_THRESHOLD:
            if len(self._buckets) < MIN_TREEIFY_CAPACITY:
                self._resize()
            else:
                raise JavaOrderError("a HashMap bucket Java turns into a tree: its order is not reproduced")
        if len(self._values) > len(self._buckets) * LOAD_FACTOR:
            self._resize()

    def compute_if_absent(self, key: K, make: Callable[[], V]) -> V:
        """``HashMap.computeIfAbsent``: the value of ``key``, made and inserted when it has none. It grows the
        table otherwise than :meth:`put` does, which shows in the order: before looking the key up, and only once
        the size has passed the threshold (so a map filled this way may hold one entry more than ``put`` lets it
        before growing); a new entry goes to the head of its bucket, not the tail; and a bucket turns into a tree
        at eight entries, not nine."""
        if not self._buckets or len(self._values) > len(self._buckets) * LOAD_FACTOR:
            self._resize()
        if key in self._values:
            return self._values[key]
        bucket = self._buckets[self._index(key, len(self._buckets))]
        bucket.insert(0, key)
        value = make()
        self._values[key] = value
        if len(bucket) >= TREEIFY_THRESHOLD:
            if len(self._buckets) < MIN_TREEIFY_CAPACITY:
                self._resize()
            else:
                raise JavaOrderError("a HashMap bucket Java turns into a tree: its order is not reproduced")
        return value

    def capacity(self) -> int:
        """The table's size (the one its first ``put`` will make, while it has none)."""
        return len(self._buckets) if self._buckets else self._pending

    def setdefault(self, key: K, value: V) -> V:
        if key not in self._values:
            self.put(key, value)
        return self._values[key]

    def remove(self, key: K) -> None:
        if key in self._values:
            del self._values[key]
            self._buckets[self._index(key, len(self._buckets))].remove(key)

    def get(self, key: K, default: V | None = None) -> V | None:
        return self._values.get(key, default)

    def __getitem__(self, key: K) -> V:
        return self._values[key]

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[K]:
        for bucket in self._buckets:
            yield from list(bucket)

    def keys(self) -> list[K]:
        return list(self)

    def values(self) -> list[V]:
        return [self._values[k] for k in self]

    def items(self) -> list[tuple[K, V]]:
        return [(k, self._values[k]) for k in self]


class JavaHashSet(Generic[K]):
    """A ``java.util.HashSet`` (a ``HashMap`` of its elements) as far as its iteration order goes."""

    def __init__(self, hash_of: Callable[[K], int], capacity: int | None = None, items: Iterable[K] = ()) -> None:
        self._map: JavaHashMap[K, None] = JavaHashMap(hash_of, capacity)
        for item in items:
            self.add(item)

    @classmethod
    def copy_of(cls, hash_of: Callable[[K], int], items: Iterable[K], size: int | None = None) -> JavaHashSet[K]:
        """``new HashSet<>(collection)``; ``size`` when the collection reports another size than it yields."""
        elements = list(items)
        return cls(hash_of, capacity_for_copy(len(elements) if size is None else size), elements)

    def add(self, item: K) -> None:
        self._map.put(item, None)

    def remove(self, item: K) -> None:
        self._map.remove(item)

    def __contains__(self, item: object) -> bool:
        return item in self._map

    def __len__(self) -> int:
        return len(self._map)

    def __iter__(self) -> Iterator[K]:
        return iter(self._map)

    def table(self) -> tuple[int, tuple[K, ...]]:
        """The capacity and the iteration order: all that decides how the set iterates after any further adds
        and removes, so two sets equal in this behave alike from here on (their insertion histories may differ)."""
        return self._map.capacity(), tuple(self)


def hash_map_order(keys: Iterable[K], hash_of: Callable[[K], int], capacity: int | None = None) -> list[K]:
    """The iteration order of a ``HashMap`` filled with ``keys`` in this order."""
    table: JavaHashMap[K, None] = JavaHashMap(hash_of, capacity)
    for key in keys:
        table.put(key, None)
    return list(table)
