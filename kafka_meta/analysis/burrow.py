"""Burrow's evaluation of consumer lag: a status per partition from the group's last few commits, and the
group's status the worst of them. No thresholds: it looks at how the lag moves over a window of commits.

The window is a partition's last :data:`WINDOW` commits (Burrow's storage ``intervals``, 10 by default), each
with its offset, when it was committed, and the lag (in records) at that moment. The rules, in the order they
are tried (the first that holds decides):

* ``REWIND``: the committed offset went back somewhere in the window (a reset, a replay, a restore from an
  old checkpoint). Told whatever the lag: a consumer sent back under zero lag is rewound all the same, where
  Burrow itself looks for it only when the lag never reached zero.
* ``OK``: the lag is zero now.
* ``STOP``: the consumer stopped committing with lag left: the time since the last commit is longer than the
  window spans (its last commit minus its first; a window of one commit spans nothing and says nothing yet).
  Unlike Burrow, a partition the group is still committing elsewhere is not stopped but slow (a low-traffic
  partition commits rarely while its offsets advance), and neither is one whose oldest record waiting was
  written within the span (the consumer has had no time yet).
  And unlike Burrow, this comes before the next rule: a consumer that stopped right after catching up has
  only zero lags in its window, yet it has stopped.
* ``OK``: the lag was zero at some commit in the window (caught up at least once, and still committing).
* ``STALL``: commits go on, at least two in the window, the offset never moves, and there is lag.
* ``WARN``: the offsets advance but the lag never decreases from one commit to the next (the consumer falls
  behind).
* ``OK`` otherwise.

Lag unknown (no log end read for the partition): only ``REWIND`` can be told, the rest needs the lag.
A group's status is ``OK``, ``WARN`` or ``ERR`` (any partition ``STOP``, ``STALL`` or ``REWIND``), as Burrow's
group status caps its partitions' at ``ERR``.

Sans-IO: the windows and the moment of evaluation in, statuses out (:mod:`kafka_meta.analysis.lag` keeps the
windows, offline from the logs and live from a cluster's answers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

WINDOW = 10  # commits per partition evaluated, Burrow's default

OK, WARN, ERR, STOP, STALL, REWIND = "OK", "WARN", "ERR", "STOP", "STALL", "REWIND"
PARTITION_SEVERITY = {OK: 0, WARN: 1, STOP: 2, STALL: 3, REWIND: 4}  # Burrow's order, worst last
GROUP_SEVERITY = {OK: 0, WARN: 1, ERR: 2}


@dataclass(frozen=True, slots=True)
class WindowCommit:
    """One commit in a partition's window: its offset, when (epoch ms, None: unknown) and the lag in records
    then (None: the log end then is unknown)."""

    offset: int
    ms: int | None
    lag: int | None


@dataclass(frozen=True, slots=True)
class Evaluation:
    """A partition's status, the rule that decided it (in words) and how full its window was (0 to 1)."""

    status: str
    rule: str
    complete: float


@dataclass(frozen=True, slots=True)
class GroupEvaluation:
    """A group's status, the rule of its worst partition and the partitions (``topic-partition``) with it."""

    status: str
    rule: str
    partitions: tuple[str, ...]


def evaluate(window: Sequence[WindowCommit], current_lag: int | None, now_ms: int | None,
             group_last_ms: int | None = None, waiting_since_ms: int | None = None,
             size: int = WINDOW) -> Evaluation:
    """The status of one partition: ``window`` its last commits, oldest first; ``current_lag`` the lag now
    (log end minus the last committed offset); ``now_ms`` the moment evaluated (None: unknown, so nothing is
    said stopped); ``group_last_ms`` the group's newest commit of any partition; ``waiting_since_ms`` when the
    record at the last committed offset (the oldest one waiting) was written."""
    complete = min(1.0, len(window) / size) if size > 0 else 1.0
    if not window:
        return Evaluation(OK, "no commits", complete)
    back = next((i for i in range(1, len(window)) if window[i].offset < window[i - 1].offset), None)
    if back is not None:
        return Evaluation(REWIND, f"offset went back from {window[back - 1].offset} to {window[back].offset}",
                          complete)
    if current_lag is None:
        return Evaluation(OK, "lag unknown (no log end): only a rewind can be told", complete)
    if current_lag <= 0:
        return Evaluation(OK, "caught up (no lag)", complete)
    first, last = window[0].ms, window[-1].ms
    if now_ms is not None and first is not None and last is not None and len(window) >= 2:
        span, idle = last - first, now_ms - last
        group_idle = now_ms - group_last_ms if group_last_ms is not None else idle
        waited = now_ms - waiting_since_ms if waiting_since_ms is not None else idle
        if idle > span and group_idle > span and waited > span:
            return Evaluation(STOP, f"no commit for {idle / 1000:.1f} s, longer than the window's "
                              f"{span / 1000:.1f} s, with {current_lag} record(s) of lag", complete)
    if any(c.lag == 0 for c in window):
        return Evaluation(OK, "lag was zero within the window", complete)
    if len(window) >= 2 and all(c.offset == window[0].offset for c in window):
        return Evaluation(STALL, f"{len(window)} commits at offset {window[0].offset} with "
                          f"{current_lag} record(s) of lag", complete)
    lags = [c.lag for c in window if c.lag is not None]
    if len(lags) >= 2 and all(b >= a for a, b in pairwise(lags)):
        return Evaluation(WARN, f"lag never decreased over {len(lags)} commits ({lags[0]} to {lags[-1]})",
                          complete)
    return Evaluation(OK, "lag decreasing", complete)


def group_status(partitions: Iterable[tuple[str, Evaluation]]) -> GroupEvaluation:
    """The group's status from its partitions' (``topic-partition``, evaluation): the worst, ``STOP``, ``STALL``
    and ``REWIND`` said as ``ERR``; its rule that of the first of the worst partitions."""
    worst, worst_rule, named = -1, "no partitions", []
    for name, evaluation in partitions:
        rank = PARTITION_SEVERITY[evaluation.status]
        if rank > worst:
            worst, worst_rule, named = rank, f"{evaluation.status}: {evaluation.rule}", [name]
        elif rank == worst:
            named.append(name)
    if worst < 0:
        return GroupEvaluation(OK, worst_rule, ())
    status = OK if worst == 0 else WARN if worst == 1 else ERR
    return GroupEvaluation(status, worst_rule, tuple(named))
