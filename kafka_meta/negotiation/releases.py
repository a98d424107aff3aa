"""Kafka releases as comparable values, and tables keyed by release.

Kafka changed its rebalance rules many times, sometimes in a patch release (Streams version 8 arrived in
2.6.1, the cooperative-sticky validation skip in 2.8.2 and 3.0.1, ``upgrade.from=3.5`` in 3.6.2). Every rule
module therefore states its rules as a :class:`ReleaseTable`: rows "from this release on, this value", read
as a step function over the total order of releases. A row for a patch release (``2.6.1``) and a later row
for the next minor line (``2.7``) express "2.6.1 and later patches of 2.6, then 2.7 onwards"; going back to
an earlier value for a later line (3.0.0 validates again after 2.8.2 stopped) is just another row.

Release numbering: before 1.0 Kafka used four parts (``0.10.2.2`` = line 0.10.2, patch 2), from 1.0 three
(``2.6.1`` = line 2.6, patch 1). Both are kept as four integers, so tuples compare in release order. A
release written without its patch (``2.6``, ``0.10.2``) means the first release of that line (2.6.0),
which is also how Kafka's own ``upgrade.from`` values name a whole line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import total_ordering
from typing import Generic, TypeVar

from kafka_meta.errors import KafkaMetaError

T = TypeVar("T")

# Every release line kafka_meta has rules for (the basis of the wire-format notes: tags 0.10.0.0 ... 3.8.0,
# the 3.9 and 4.0 ... 4.4 release branches).
KNOWN_LINES: tuple[str, ...] = (
    "0.10.0", "0.10.1", "0.10.2", "0.11.0", "1.0", "1.1",
    "2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8",
    "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9",
    "4.0", "4.1", "4.2", "4.3", "4.4",
)

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+){1,3})\s*$")


class ReleaseError(KafkaMetaError, ValueError):
    """Text that is not a Kafka release kafka_meta knows the rules of."""


@total_ordering
@dataclass(frozen=True)
class Release:
    """One Kafka release: ``Release.parse("2.6.1")``. Compares in release order; ``str()`` gives it back."""

    parts: tuple[int, int, int, int]

    @staticmethod
    def parse(text: str | Release) -> Release:
        if isinstance(text, Release):
            return text
        m = _RELEASE.match(str(text))
        if not m:
            raise ReleaseError(f"{text!r} is not a Kafka release (expected e.g. 2.6.1, 3.9 or 0.10.2.2)")
        numbers = [int(x) for x in m.group(1).split(".")]
        if numbers[0] == 0:
            if len(numbers) < 3:
                raise ReleaseError(f"{text!r}: releases before 1.0 have a three-part line, e.g. 0.10.2")
        elif len(numbers) > 3:
            raise ReleaseError(f"{text!r}: releases from 1.0 on have at most three parts, e.g. 2.6.1")
        line_parts = 3 if numbers[0] == 0 else 2
        line = ".".join(str(n) for n in numbers[:line_parts])
        if line not in KNOWN_LINES:
            raise ReleaseError(
                f"{text!r}: kafka_meta knows the rules of release lines {KNOWN_LINES[0]} to {KNOWN_LINES[-1]}, "
                f"and {line} is not one of them")
        padded = [*numbers, 0, 0, 0][:4]
        return Release((padded[0], padded[1], padded[2], padded[3]))

    @property
    def line(self) -> str:
        """The release line: ``0.10.2`` for 0.10.2.2, ``2.6`` for 2.6.1."""
        n = 3 if self.parts[0] == 0 else 2
        return ".".join(str(p) for p in self.parts[:n])

    @property
    def patch(self) -> int:
        return self.parts[3] if self.parts[0] == 0 else self.parts[2]

    def __str__(self) -> str:
        return f"{self.line}.{self.patch}"

    def __repr__(self) -> str:
        return f"Release({str(self)!r})"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Release):
            return NotImplemented
        return self.parts < other.parts

    def at_least(self, other: ReleaseLike) -> bool:
        return self >= Release.parse(other)


ReleaseLike = Release | str


def release(value: ReleaseLike) -> Release:
    """Accept a :class:`Release` or its text."""
    return Release.parse(value)


@dataclass(frozen=True)
class ReleaseTable(Generic[T]):
    """A rule that changed at given releases: ``rows`` are ``(first release, value)``, oldest first.

    ``table[release]`` is the value of the last row whose release is not after ``release``; a release older
    than the first row has no value (a :class:`ReleaseError` naming the table), which is how "this did not
    exist yet" is expressed.
    """

    name: str
    rows: tuple[tuple[Release, T], ...]
    _keys: tuple[Release, ...] = field(init=False, repr=False, compare=False)

    def __init__(self, name: str, rows: Iterable[tuple[ReleaseLike, T]]) -> None:
        parsed = tuple((Release.parse(r), v) for r, v in rows)
        keys = tuple(r for r, _ in parsed)
        if list(keys) != sorted(keys) or len(set(keys)) != len(keys):
            raise ValueError(f"{name}: rows must be in strictly increasing release order")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "rows", parsed)
        object.__setattr__(self, "_keys", keys)

    def get(self, at: ReleaseLike, default: T | None = None) -> T | None:
        index = bisect_right(self._keys, Release.parse(at)) - 1
        return self.rows[index][1] if index >= 0 else default

    def __getitem__(self, at: ReleaseLike) -> T:
        index = bisect_right(self._keys, Release.parse(at)) - 1
        if index < 0:
            raise ReleaseError(f"{self.name}: no rule before release {self.rows[0][0]} (asked for {at})")
        return self.rows[index][1]

    def __iter__(self) -> Iterator[tuple[Release, T]]:
        return iter(self.rows)

    def since(self, value: T) -> Release | None:
        """The first release whose row holds ``value`` (None when no row does)."""
        for at, v in self.rows:
            if v == value:
                return at
        return None

    def releases_with(self, value: T) -> list[tuple[Release, Release | None]]:
        """The half-open release ranges ``[first, next row)`` whose value is ``value`` (None: no upper end)."""
        out = []
        for i, (at, v) in enumerate(self.rows):
            if v == value:
                nxt = self.rows[i + 1][0] if i + 1 < len(self.rows) else None
                out.append((at, nxt))
        return out
