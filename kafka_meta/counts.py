"""Adding up the counters of readings done apart (in parallel processes, or segment by segment)."""

from __future__ import annotations

from collections import Counter


def add_counts(into: object, other: object) -> None:
    """Add every count ``other`` holds to ``into``, an object of the same class: its ``int`` attributes are
    summed and its ``Counter`` attributes updated, whatever they are called, so a counter added to the class
    later is merged too. Anything else is not a count: a class holding such must merge it itself."""
    mine = vars(into)
    for name, theirs in vars(other).items():
        if isinstance(theirs, Counter):
            mine[name].update(theirs)
        elif isinstance(theirs, int) and not isinstance(theirs, bool):
            mine[name] += theirs
        else:
            raise TypeError(f"{type(other).__name__}.{name} is not a count ({type(theirs).__name__})")
