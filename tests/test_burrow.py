"""Burrow's lag evaluation (kafka_meta.analysis.burrow): each rule on windows made to hold it, the two known
pitfalls (a slow partition is not stopped; a rewind under zero lag is a rewind), and properties over any
window."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from kafka_meta.analysis.burrow import (
    ERR,
    OK,
    REWIND,
    STALL,
    STOP,
    WARN,
    Evaluation,
    WindowCommit,
    evaluate,
    group_status,
)


def window(offsets: list[int], lags: list[int | None], start: int = 0, every: int = 1000) -> list[WindowCommit]:
    return [WindowCommit(o, start + i * every, lag) for i, (o, lag) in enumerate(zip(offsets, lags, strict=True))]


def test_caught_up_is_ok():
    assert evaluate(window([10, 20, 30], [5, 5, 0]), 0, 3000).status == OK


def test_lag_zero_once_in_the_window_is_ok_even_with_lag_now():
    assert evaluate(window([10, 20, 30], [5, 0, 5]), 7, 2500).status == OK


def test_lag_never_decreasing_while_offsets_advance_is_warn():
    e = evaluate(window([10, 20, 30, 40], [5, 6, 6, 9]), 9, 3500)
    assert e.status == WARN and "5 to 9" in e.rule


def test_lag_decreasing_somewhere_is_ok():
    assert evaluate(window([10, 20, 30, 40], [5, 6, 4, 9]), 9, 3500).status == OK


def test_offsets_not_moving_with_lag_is_stall():
    e = evaluate(window([10, 10, 10], [5, 6, 7]), 7, 2500)
    assert e.status == STALL and "offset 10" in e.rule


def test_commits_stopped_with_lag_is_stop():
    # three commits over 2 s, then nothing for 10 s, the waiting record 10 s old, the group silent too
    e = evaluate(window([10, 20, 30], [5, 5, 5]), 5, 12000, group_last_ms=2000, waiting_since_ms=1500)
    assert e.status == STOP and "10.0 s" in e.rule


def test_a_slow_partition_is_not_stop_while_the_group_commits_elsewhere():
    # a low-traffic partition: its own commits rare, its offsets advancing, the group committing other partitions
    w = window([10, 11, 12], [1, 1, 1], every=1000)
    assert evaluate(w, 1, 12000, group_last_ms=11900, waiting_since_ms=1500).status != STOP
    # nor when the record waiting came in after the window began (the consumer has had no time yet)
    assert evaluate(w, 1, 12000, group_last_ms=2000, waiting_since_ms=11000).status != STOP
    # Burrow's own rule alone would have stopped it: the group's silence and the record's age decide
    assert evaluate(w, 1, 12000, group_last_ms=2000, waiting_since_ms=1500).status == STOP


def test_a_consumer_stopped_right_after_catching_up_is_stop():
    # its window all zero lag (Burrow would read OK), then no commit for 10 s while the lag grows
    e = evaluate(window([10, 20, 30], [0, 0, 0]), 40, 12000, group_last_ms=2000, waiting_since_ms=2500)
    assert e.status == STOP


def test_a_rewind_under_zero_lag_is_still_rewind():
    e = evaluate(window([10, 20, 5], [0, 0, 0]), 0, 2500)
    assert e.status == REWIND and "20 to 5" in e.rule


def test_rewind_comes_before_every_other_rule():
    assert evaluate(window([10, 5, 5], [5, 6, 7]), 7, 99999, group_last_ms=0, waiting_since_ms=0).status == REWIND


def test_without_a_log_end_only_a_rewind_is_told():
    assert evaluate(window([10, 10, 10], [None] * 3), None, 99999).status == OK
    assert evaluate(window([10, 9], [None] * 2), None, 99999).status == REWIND


def test_window_completeness():
    assert evaluate(window([1, 2], [0, 0]), 0, 10, size=10).complete == 0.2
    assert evaluate([], None, None).rule == "no commits"


def test_group_status_is_the_worst_with_err_above_warn():
    ok, warn, stall = (Evaluation(s, s.lower(), 1.0) for s in (OK, WARN, STALL))
    g = group_status([("t-0", ok), ("t-1", warn), ("t-2", stall), ("t-3", stall)])
    assert g.status == ERR and g.partitions == ("t-2", "t-3") and g.rule.startswith("STALL")
    assert group_status([("t-0", ok), ("t-1", warn)]).status == WARN
    assert group_status([]).status == OK


commits = st.lists(st.tuples(st.integers(0, 1000), st.one_of(st.none(), st.integers(0, 100))), max_size=12)


@given(commits, st.one_of(st.none(), st.integers(0, 100)), st.integers(0, 50_000))
def test_any_window_gets_a_known_status(pairs, lag, now):
    w = [WindowCommit(o, i * 1000, g) for i, (o, g) in enumerate(pairs)]
    e = evaluate(w, lag, now)
    assert e.status in (OK, WARN, STOP, STALL, REWIND) and e.rule and 0 <= e.complete <= 1


@given(commits, st.integers(0, 100), st.integers(0, 50_000))
def test_offsets_going_back_is_always_rewind(pairs, lag, now):
    w = [WindowCommit(o, i * 1000, g) for i, (o, g) in enumerate(pairs)]
    back = any(b.offset < a.offset for a, b in pairwise(w))
    assert (evaluate(w, lag, now).status == REWIND) == back


@given(st.lists(st.integers(0, 1000), min_size=1, max_size=12), st.integers(0, 50_000))
def test_no_lag_and_no_rewind_is_ok(offsets, now):
    offsets.sort()
    w = [WindowCommit(o, i * 1000, 3) for i, o in enumerate(offsets)]
    assert evaluate(w, 0, now).status == OK


@given(st.lists(st.integers(1, 100), min_size=2, max_size=12))
def test_advancing_offsets_never_stall(lags):
    w = [WindowCommit(i * 10, i * 1000, lag) for i, lag in enumerate(lags)]
    assert evaluate(w, lags[-1], len(lags) * 1000).status != STALL


@given(st.lists(st.integers(1, 100), min_size=1, max_size=12), st.integers(1, 30), st.integers(0, 100_000))
def test_a_group_still_committing_is_never_stopped(lags, every, idle):
    """The slow-partition pitfall as a property: whatever the partition's own window, while the group committed
    some partition within the window's span, the partition is not STOP."""
    w = [WindowCommit(i * 10, i * every * 1000, lag) for i, lag in enumerate(lags)]
    span = w[-1].ms - w[0].ms
    now = w[-1].ms + idle
    assert evaluate(w, lags[-1], now, group_last_ms=now - span, waiting_since_ms=0).status != STOP


def test_one_commit_spans_no_window_so_nothing_is_said_stopped():
    """A partition with a single commit has a window of no length: every later moment would be 'longer than
    the window' (a slow consumer's partition it just started on, told stopped at its first commit)."""
    (only,) = [WindowCommit(5, 1_000, 3)]
    assert evaluate([only], 3, 60_000).status != "STOP"
