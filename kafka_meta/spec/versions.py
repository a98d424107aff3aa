"""Version ranges as written in Kafka message specs: ``"0+"``, ``"1-6"``, ``"3"`` and ``"none"``.

Kafka versions are int16 values, so an open range ends at 32767. A range is immutable and hashable so
that it can be used as part of cache keys when compiling per-version codecs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_VERSION = 32767
_RANGE = re.compile(r"^\s*(\d+)\s*(?:(\+)|-\s*(\d+))?\s*$")


@dataclass(frozen=True, slots=True)
class Versions:
    """An inclusive range ``low..high``; empty when ``low > high`` (the ``"none"`` range)."""

    low: int
    high: int

    @classmethod
    def parse(cls, text: str | int | None) -> Versions:
        """Parse Kafka's range syntax; raises ``ValueError`` with the offending text."""
        if text is None:
            return NONE
        if isinstance(text, bool):
            raise ValueError(f"not a version range: {text!r}")
        if isinstance(text, int):
            text = str(text)
        if text.strip() == "none":
            return NONE
        match = _RANGE.match(text)
        if not match:
            raise ValueError(f"not a version range: {text!r}")
        low = int(match.group(1))
        if match.group(2):
            high = MAX_VERSION
        elif match.group(3) is not None:
            high = int(match.group(3))
        else:
            high = low
        if low > MAX_VERSION or high > MAX_VERSION:
            raise ValueError(f"version range {text!r} goes beyond {MAX_VERSION}")
        if low > high:
            raise ValueError(f"version range {text!r} is backwards")
        return cls(low, high)

    @property
    def empty(self) -> bool:
        return self.low > self.high

    @property
    def open_ended(self) -> bool:
        return not self.empty and self.high == MAX_VERSION

    def __contains__(self, version: object) -> bool:
        return isinstance(version, int) and self.low <= version <= self.high

    def intersect(self, other: Versions) -> Versions:
        low, high = max(self.low, other.low), min(self.high, other.high)
        return Versions(low, high) if low <= high else NONE

    def contains_range(self, other: Versions) -> bool:
        return other.empty or (self.low <= other.low and other.high <= self.high)

    def __iter__(self):
        return iter(range(self.low, self.high + 1))

    def __str__(self) -> str:
        if self.empty:
            return "none"
        if self.high == MAX_VERSION:
            return f"{self.low}+"
        if self.low == self.high:
            return str(self.low)
        return f"{self.low}-{self.high}"

    def __repr__(self) -> str:
        return f"Versions({str(self)!r})"


NONE = Versions(1, 0)
ALL = Versions(0, MAX_VERSION)
