"""Counters of readings done apart add up, whatever they are called; what is not a count is refused."""

from __future__ import annotations

from collections import Counter

import pytest

from kafka_meta.counts import add_counts
from kafka_meta.log.summary import LogSummary
from kafka_meta.offsets.render import RecordStats


def test_every_int_and_counter_of_the_class_is_added():
    mine, theirs = RecordStats(), RecordStats()
    mine.per_type["OffsetCommit"] = 2
    theirs.per_type.update({"OffsetCommit": 3, "GroupMetadata": 1})
    mine.tombstones, theirs.tombstones, theirs.nested_errors = 1, 4, 7
    add_counts(mine, theirs)
    assert mine.per_type == Counter({"OffsetCommit": 5, "GroupMetadata": 1})
    assert (mine.tombstones, mine.nested_errors, mine.unknown) == (5, 7, 0)


def test_a_dataclass_of_counts_adds_up_too():
    mine, theirs = LogSummary(segments=1, records=10), LogSummary(segments=2, records=5, damage=1)
    theirs.codecs["zstd"] += 3
    add_counts(mine, theirs)
    assert (mine.segments, mine.records, mine.damage, mine.codecs) == (3, 15, 1, Counter({"zstd": 3}))


def test_what_is_not_a_count_is_refused():
    class Reading:
        def __init__(self) -> None:
            self.records = 1
            self.notes: list[str] = []

    with pytest.raises(TypeError, match=r"Reading.notes is not a count \(list\)"):
        add_counts(Reading(), Reading())
