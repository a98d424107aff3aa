"""The watch loop: a source of records and descriptions (Kafka, through :mod:`.client`), the core, and the
outputs; until its duration runs out or it is interrupted, through the cluster going away and coming back.

The cluster not answering is not the end of a watch: the outputs say so, the source is closed and opened again
every few seconds, and reading goes on at the core's positions (each partition's next offset), so what was read
before is not read twice. A topic the watch reads that does not exist yet (``__consumer_offsets`` before the
first group, ``__transaction_state`` before the first transactional producer) is looked for again every few
seconds and, once there, read from its beginning: everything in it was written after the watch started. Once a
second the source's positions and log ends go to the core, which says how far behind the watch is and when it
has caught up (:mod:`.catchup`). Only the first connection has a deadline (``--connect-timeout``): a watch
that never reached the cluster ends with the one line every verb that connects ends with then
(:func:`kafka_meta.live.reach.unreachable`: the address, how long it was tried, why), exit status 1.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from kafka_meta.live.client import Batch, KafkaSource, Unreachable
from kafka_meta.live.core import TRANSACTION_TOPIC, WATCHED_TOPICS, LiveTimeline, Place
from kafka_meta.live.events import END, Event, GroupDescription
from kafka_meta.live.reach import UnreachableAtStart, unreachable

__all__ = ["Output", "Source", "UnreachableAtStart", "WatchOptions", "first_source", "kafka_source", "watch"]

POLL_S = 0.5
RETRY_S = 2.0  # between attempts to reach a cluster that went away
RECONNECT_TIMEOUT_S = 5.0  # one attempt's wait
OFFSETS_EVERY_S = 1.0  # how often the log ends are asked for (one ListOffsets per leader), to say how far behind
LAG_EVERY_S = 5.0  # how often the groups' partitions' log ends are asked for, for their lag


class Source(Protocol):
    def assign(self, positions: Mapping[Place, int], from_beginning: Collection[str]) -> set[str]: ...
    def poll(self, timeout_s: float) -> list[Batch]: ...
    def positions(self) -> dict[Place, int]: ...
    def end_offsets(self) -> dict[Place, int]: ...
    def log_ends(self, partitions: Collection[Place]) -> dict[Place, int]: ...
    def caught_up(self, topic: str) -> bool: ...
    def describe(self, only: Iterable[str] | None = None) -> list[GroupDescription]: ...
    def close(self) -> None: ...


class Output(Protocol):
    def event(self, event: Event) -> None: ...
    def tick(self, core: LiveTimeline, now: float) -> None: ...
    def close(self, core: LiveTimeline) -> None: ...


@dataclass
class WatchOptions:
    bootstrap: str
    settings: dict[str, Any] = field(default_factory=dict)  # kafka-python's, from --command-config
    groups: list[str] | None = None
    from_beginning: bool = False
    duration_s: float | None = None
    connect_timeout_s: float = 30.0
    describe_every_s: float = 2.0


def kafka_source(options: WatchOptions, timeout_s: float) -> Source:
    return KafkaSource(options.bootstrap, options.settings, timeout_s)


def first_source(options: WatchOptions, open_source: Callable[[WatchOptions, float], Source]) -> Source:
    """The first connection, tried until ``connect_timeout_s`` has passed."""
    deadline = time.monotonic() + options.connect_timeout_s
    while True:
        left = deadline - time.monotonic()
        try:
            return open_source(options, max(1.0, min(left, RECONNECT_TIMEOUT_S * 2)))
        except Unreachable as e:
            if time.monotonic() + RETRY_S >= deadline:
                raise unreachable(options.bootstrap, options.connect_timeout_s, str(e)) from None
            time.sleep(RETRY_S)


def watch(options: WatchOptions, outputs: list[Output],
          open_source: Callable[[WatchOptions, float], Source] = kafka_source,
          stop: Callable[[], bool] = lambda: False) -> LiveTimeline:
    """Watch until the duration runs out, Ctrl-C or ``stop()`` says so (a program embedding a watch in a
    thread); every output is closed (its report written) either way."""
    core = LiveTimeline(options.bootstrap, only=options.groups)

    def emit(events: list[Event]) -> None:
        for e in events:
            for out in outputs:
                out.event(e)

    started = time.monotonic()
    source: Source | None = first_source(options, open_source)
    emit(core.on_connection(True, time.time(), options.bootstrap))
    # read from their beginning: every topic with --from-beginning, and any the watch found missing at first
    beginning: set[str] = set(WATCHED_TOPICS) if options.from_beginning else set()
    first_look = True
    assigned: set[str] = set()
    next_assign, next_describe, next_offsets, next_lag, retry_at, reason = 0.0, 0.0, 0.0, 0.0, 0.0, "an error"
    try:
        while (options.duration_s is None or time.monotonic() - started < options.duration_s) and not stop():
            if source is None:
                if time.monotonic() < retry_at:
                    time.sleep(min(POLL_S, retry_at - time.monotonic()))
                    _tick(outputs, core)
                    continue
                try:
                    source = open_source(options, RECONNECT_TIMEOUT_S)
                except Unreachable:
                    retry_at = time.monotonic() + RETRY_S
                    continue
                emit(core.on_connection(True, time.time(), options.bootstrap))
                assigned, next_assign, next_describe, next_offsets, next_lag = set(), 0.0, 0.0, 0.0, 0.0
            try:
                if len(assigned) < len(WATCHED_TOPICS) and time.monotonic() >= next_assign:
                    assigned = source.assign(core.positions, beginning)
                    if first_look:
                        beginning |= set(WATCHED_TOPICS) - assigned
                        first_look = False
                    next_assign = time.monotonic() + (POLL_S if not assigned else options.describe_every_s)
                if assigned:
                    batches = source.poll(POLL_S)
                    now = time.time()
                    for topic, partition, records in batches:
                        emit(core.on_batch(topic, partition, records, now))
                if assigned and time.monotonic() >= next_offsets:
                    emit(core.on_offsets(source.positions(), source.end_offsets(), time.time()))
                    next_offsets = time.monotonic() + OFFSETS_EVERY_S
                if core.caught_up and time.monotonic() >= next_lag:
                    emit(core.on_log_ends(source.log_ends(core.lag_partitions()), time.time()))
                    next_lag = time.monotonic() + LAG_EVERY_S
                if not assigned:
                    time.sleep(POLL_S)
                elif TRANSACTION_TOPIC in assigned and core.overdue(now := time.time()):
                    emit(core.on_tick(now, source.caught_up(TRANSACTION_TOPIC)))
                if time.monotonic() >= next_describe:
                    for description in source.describe(options.groups):
                        emit(core.on_description(description, time.time()))
                    next_describe = time.monotonic() + options.describe_every_s
            except Unreachable as e:
                emit(core.on_connection(False, time.time(), options.bootstrap, str(e)))
                source.close()
                source, retry_at = None, time.monotonic() + RETRY_S
            _tick(outputs, core)
        reason = "stopped" if stop() else "the duration ran out"
    except KeyboardInterrupt:
        reason = "interrupted"
    finally:  # whatever ended it, the outputs end properly (the report written)
        if source is not None:
            source.close()
        emit([Event(END, time.time(), detail={"reason": reason, "records": sum(core.records.values()),
                                              "repeated": core.repeated})])
        for out in outputs:
            out.close(core)
    return core


def _tick(outputs: list[Output], core: LiveTimeline) -> None:
    now = time.time()
    for out in outputs:
        out.tick(core, now)
