"""A bounded LRU of decoded trees (dicts and lists), each hit handed out as the caller's own copy.

Traffic repeats itself (heartbeats, metadata answers, a group's member metadata round after round), so the
protocol layer keeps what it decoded. Callers change their trees (the correlator nests member metadata in
place), so the cache keeps each tree pickled: ``pickle.loads`` builds a fresh tree in C, about three times
faster than copying one in Python, and the pickle is a fraction of the tree's memory. A miss hands back
the tree just decoded and keeps its pickle, so input that never repeats pays one ``pickle.dumps`` a value.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class TreeCache:
    """At most ``maxsize`` trees; the least recently used goes first. Safe to share between threads."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._pickles: OrderedDict[Hashable, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._pickles)

    def get(self, key: Hashable) -> Any | None:
        """A fresh copy of the tree kept under ``key``, or None."""
        with self._lock:
            pickled = self._pickles.get(key)
            if pickled is None:
                self.misses += 1
                return None
            self._pickles.move_to_end(key)
            self.hits += 1
        return pickle.loads(pickled)

    def put(self, key: Hashable, tree: Any) -> Any:
        """Keep a copy of ``tree`` under ``key``; returns ``tree`` itself, which stays the caller's."""
        pickled = pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            self._pickles[key] = pickled
            self._pickles.move_to_end(key)
            while len(self._pickles) > self.maxsize:
                self._pickles.popitem(last=False)
        return tree

    def clear(self) -> None:
        with self._lock:
            self._pickles.clear()
            self.hits = self.misses = 0
