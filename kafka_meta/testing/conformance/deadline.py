"""Time limits on a case, on both sides: some inputs keep an assignor busy for good.

Kafka's ``AbstractStickyAssignor`` balancing can move the same partitions back and forth forever (a partition sent
back to its previous owner, then the move undone, again and again). The project reproduces the algorithm and
stops it where it sees a balancing pass repeat an earlier one (``AssignmentNeverEnds``, shown as
:data:`UNFINISHED` like a timeout). A run of many cases must go on past such a group and still say whether both
sides behaved alike: the peer stops Kafka's code after :data:`KAFKA_MS` (the request's ``deadlineMs``), and the
project's side runs under :func:`limited`, which raises :class:`Unfinished` in the main thread when its time is up
(a guard for any assignor that could still run on).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

# Kafka's assignors answer the groups drawn here in milliseconds; a case still running after this is looping
KAFKA_MS = 5_000
# the project's side of every case, computed while Kafka's code works on it: enough for any group drawn that ends
OURS_FIRST_S = 10.0
# the project's side again, where Kafka finished and the project had not: a guard that keeps a run from hanging
OURS_S = 120.0
UNFINISHED = "no result in time"  # how either side's timeout is shown, so that both timing out is agreement

T = TypeVar("T")


class Unfinished(Exception):
    """The project's side of a case did not finish within its time."""


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise Unfinished(f"no result within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def limited(seconds: float, call: Callable[[], T]) -> T:
    """``call()``, raising :class:`Unfinished` after ``seconds``. Only the main thread can take a signal: elsewhere
    (an embedding that runs the check in a thread) the call runs without a limit."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    with _alarm(seconds):
        return call()
