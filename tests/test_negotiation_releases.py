"""Releases parse, order and index the rule tables the way Kafka numbers them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_meta.negotiation.releases import KNOWN_LINES, Release, ReleaseError, ReleaseTable
from kafka_meta.negotiation.streams_versions import describe_releases_speaking, latest_supported_version


@pytest.mark.parametrize(("text", "parts", "shown"), [
    ("2.6.1", (2, 6, 1, 0), "2.6.1"),
    ("3.9", (3, 9, 0, 0), "3.9.0"),
    ("4.0", (4, 0, 0, 0), "4.0.0"),
    ("0.10.2.2", (0, 10, 2, 2), "0.10.2.2"),
    ("0.10.0", (0, 10, 0, 0), "0.10.0.0"),
    (" v1.1.1 ", (1, 1, 1, 0), "1.1.1"),
])
def test_parse(text, parts, shown):
    r = Release.parse(text)
    assert r.parts == parts
    assert str(r) == shown
    assert Release.parse(str(r)) == r


@pytest.mark.parametrize("text", ["", "2", "2.9", "5.0", "0.9.0", "0.10", "1.0.2.1", "2.x", "3.9.0-rc1", "0.12.0"])
def test_refused(text):
    with pytest.raises(ReleaseError):
        Release.parse(text)


@pytest.mark.parametrize(("older", "newer"), [
    ("0.10.2.1", "0.10.2.2"), ("0.11.0.3", "1.0"), ("2.6", "2.6.1"), ("2.6.3", "2.7"), ("2.8.2", "3.0.0"),
    ("3.0.0", "3.0.1"), ("3.9", "4.0"), ("1.1.1", "2.0"),
])
def test_order(older, newer):
    assert Release.parse(older) < Release.parse(newer)
    assert Release.parse(newer).at_least(older)


@given(st.lists(st.sampled_from(KNOWN_LINES), min_size=2), st.integers(0, 9))
def test_order_follows_known_lines(lines, patch):
    releases = sorted(Release.parse(f"{line}.{patch}") for line in lines)
    assert [KNOWN_LINES.index(r.line) for r in releases] == sorted(KNOWN_LINES.index(line) for line in lines)


def test_table_is_a_step_function_and_refuses_releases_before_its_first_row():
    table = ReleaseTable("t", [("2.4", "a"), ("2.8.2", "b"), ("3.0.0", "a"), ("3.0.1", "b")])
    assert [table[r] for r in ("2.4", "2.8.1", "2.8.2", "2.8.9", "3.0", "3.0.1", "4.4")] == \
        ["a", "a", "b", "b", "a", "b", "b"]
    with pytest.raises(ReleaseError, match=r"no rule before release 2\.4"):
        table["2.3"]
    assert table.get("2.3") is None
    with pytest.raises(ValueError):
        ReleaseTable("bad", [("3.0", 1), ("2.0", 2)])


@pytest.mark.parametrize(("release", "latest"), [
    ("0.10.0.1", 1), ("0.10.1", 2), ("1.1.1", 2), ("2.0", 3), ("2.1", 4), ("2.3.1", 4), ("2.4", 5), ("2.5", 6),
    ("2.6.0", 7), ("2.6", 7), ("2.6.1", 8), ("2.6.3", 8), ("2.7", 8), ("2.8", 9), ("3.0", 10), ("3.1.2", 10),
    ("3.2", 11), ("3.9", 11), ("4.0", 11), ("4.4", 11),
])
def test_latest_supported_version(release, latest):
    assert latest_supported_version(release) == latest


@pytest.mark.parametrize(("latest", "text"), [
    (1, "0.10.0"), (2, "0.10.1 - 1.1"), (4, "2.1 - 2.3"), (7, "2.6.0"), (8, "2.6.1 - 2.7"), (10, "3.0 - 3.1"),
    (11, "3.2 - 4.4"), (12, "no Kafka release has latest version 12"),
])
def test_describe_releases_speaking(latest, text):
    assert describe_releases_speaking(latest) == text
