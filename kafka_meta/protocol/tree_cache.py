"""A bounded LRU of decoded trees (dicts and lists), each hit handed out as the caller's own copy.

Traffic repeats itself (heartbeats, metadata answers, a group's member metadata round after round), so the
protocol layer keeps what it decoded. Callers change their trees (the correlator nests member metadata in
place), so the cache keeps each tree serialized: loading builds a fresh tree in C, about three times
faster than copying one in Python, and the serialized form is a fraction of the tree's memory. A miss hands
back the tree just decoded and keeps its serialized form, so input that never repeats pays one dump a value.

A reader that only reads its trees (a face that serializes each exchange and drops it) can take the
cache's own tree instead (``get_shared``): no copy at all. Those trees are kept in a second, smaller LRU.

Trees of the built-in types only (most bodies: ints, strings, bytes, lists, dicts) are kept by ``marshal``,
whose loads is faster than ``pickle``'s (no class lookups, no memo); the others (uuids are of
the protocol layer's own class) by ``pickle``, which restores every class exactly.
"""

from __future__ import annotations

import marshal
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

# the types marshal writes and reads back as themselves (exactly these: a subclass would come back as its base)
MARSHALLED = frozenset({dict, list, tuple, str, bytes, int, float, bool, type(None)})


def marshallable(tree: Any) -> bool:
    """Whether every value in ``tree`` is of one of the MARSHALLED types."""
    stack = [tree]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind not in MARSHALLED:
            return False
        if kind is dict:
            stack.extend(value.keys())
            stack.extend(value.values())
        elif kind is list or kind is tuple:
            stack.extend(value)
    return True


def dumped(tree: Any) -> tuple[Callable[[bytes], Any], bytes]:
    """The tree serialized, with the function that loads it back."""
    if marshallable(tree):
        return marshal.loads, marshal.dumps(tree)
    return pickle.loads, pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)


class TreeCache:
    """At most ``maxsize`` trees; the least recently used goes first. Safe to share between threads."""

    def __init__(self, maxsize: int, maxshared: int = 512) -> None:
        self.maxsize = maxsize
        self.maxshared = maxshared  # trees kept whole for get_shared (a tree takes several times its dump)
        self._dumps: OrderedDict[Hashable, tuple[Callable[[bytes], Any], bytes]] = OrderedDict()
        self._shared: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._dumps)

    def get(self, key: Hashable) -> Any | None:
        """A fresh copy of the tree kept under ``key``, or None."""
        with self._lock:
            kept = self._dumps.get(key)
            if kept is None:
                self.misses += 1
                return None
            self._dumps.move_to_end(key)
            self.hits += 1
        load, data = kept
        return load(data)

    def get_shared(self, key: Hashable) -> Any | None:
        """The cache's own tree kept under ``key`` (the same object on every call: the caller must not change
        it), or None."""
        with self._lock:
            tree = self._shared.get(key)
            if tree is not None:
                self._shared.move_to_end(key)
                self.hits += 1
                return tree
        tree = self.get(key)
        if tree is not None:
            with self._lock:
                self._shared[key] = tree
                while len(self._shared) > self.maxshared:
                    self._shared.popitem(last=False)
        return tree

    def put(self, key: Hashable, tree: Any) -> Any:
        """Keep a copy of ``tree`` under ``key``; returns ``tree`` itself, which stays the caller's."""
        kept = dumped(tree)
        with self._lock:
            self._dumps[key] = kept
            self._dumps.move_to_end(key)
            while len(self._dumps) > self.maxsize:
                self._dumps.popitem(last=False)
        return tree

    def clear(self) -> None:
        with self._lock:
            self._dumps.clear()
            self._shared.clear()
            self.hits = self.misses = 0
