import pytest

from kafka_meta.spec.versions import MAX_VERSION, NONE, Versions


@pytest.mark.parametrize(
    "text, low, high, shown",
    [("0+", 0, MAX_VERSION, "0+"), ("1-6", 1, 6, "1-6"), ("3", 3, 3, "3"), (7, 7, 7, "7"), (" 2 - 4 ", 2, 4, "2-4")],
)
def test_parse(text, low, high, shown):
    v = Versions.parse(text)
    assert (v.low, v.high, str(v)) == (low, high, shown)


def test_none_is_empty_and_contains_nothing():
    assert Versions.parse("none") is NONE
    assert NONE.empty and 0 not in NONE and str(NONE) == "none"


@pytest.mark.parametrize("bad", ["", "x", "3-1", "-1", "1+2", "40000", "1-40000", True])
def test_bad_ranges_are_refused(bad):
    with pytest.raises(ValueError):
        Versions.parse(bad)


def test_membership_and_ranges():
    v = Versions.parse("2-5")
    assert 2 in v and 5 in v and 1 not in v and 6 not in v and "3" not in v
    assert v.intersect(Versions.parse("4+")) == Versions(4, 5)
    assert v.intersect(Versions.parse("6+")).empty
    assert Versions.parse("0+").contains_range(v) and not v.contains_range(Versions.parse("0+"))
    assert list(v) == [2, 3, 4, 5]
