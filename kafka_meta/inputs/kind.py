"""What a kind of input is: its name, how its content is recognised, and its one reader.

Each kind is a module of this package defining one :class:`Kind` (``KIND``); :mod:`kafka_meta.inputs.kinds`
lists them. The Spark face reads the same kinds (:mod:`kafka_meta.spark.inputs`), one Spark reader per kind
name, checked against this registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kafka_meta.inputs.items import Item, Source


@dataclass(frozen=True)
class Kind:
    name: str  # as --format names it
    what: str  # in words, for messages
    recognise: Callable[[Path, bytes], bool]  # the file's path (to read further) and its first bytes
    read: Callable[[Source], Iterator[Item]]  # its rows, damage and refusals, one at a time
