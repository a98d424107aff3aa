"""What a person watching sees: a rich live table of the groups (state, generation or epoch, members, the last
round and why, the commit rate) under the connection's state and, once a transactional producer was seen, a
block of the transactions (the counts, every open one with its age and partitions, the hanging ones in red),
with each new round, aborted transaction, finding and connection change printed above it as it happens; and the
JSON-lines and HTML outputs beside it."""

from __future__ import annotations

import datetime as dt
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from kafka_meta.live.catchup import count_text
from kafka_meta.live.core import GroupView, LiveTimeline
from kafka_meta.live.events import (
    CATCHING_UP,
    CAUGHT_UP,
    CONNECTED,
    DISCONNECTED,
    FINDING,
    PROBLEM,
    ROUND,
    SNAPSHOT,
    TRANSACTION,
    Event,
)
from kafka_meta.live.report import write_live_html
from kafka_meta.live.standing import total_lag

JSON_SNAPSHOT_EVERY_S = 10.0
HTML_EVERY_S = 5.0
OPEN_SHOWN = 20  # open transactions listed in the terminal, the oldest first (the rest counted)


def _clock(ts: float | None) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%H:%M:%S") if ts is not None else "-"


def event_line(e: Event) -> str | None:
    """One line for the events worth a line of their own in the terminal."""
    d = e.detail
    if e.kind == ROUND:
        members = ", ".join(m["clientId"] or m["memberId"] for m in d["members"]) or "no members"
        return (f"{_clock(e.at)} {e.group}: {'generation' if d['kind'] == 'classic' else 'epoch'} "
                f"{d['generation']} ({members}): {'; '.join(d['why']) or '-'}")
    if e.kind == DISCONNECTED:
        return f"{_clock(e.at)} the cluster at {d['bootstrap']} stopped answering ({d['reason']}); retrying"
    if e.kind == CONNECTED:
        return f"{_clock(e.at)} connected to {d['bootstrap']}"
    if e.kind == PROBLEM:
        return f"{_clock(e.at)} {e.group + ': ' if e.group else ''}{d['problem']}"
    if e.kind == TRANSACTION and d["outcome"] == "aborted":  # committed ones are counted in the block only
        took = "" if d["durationMs"] is None else f" after {d['durationMs'] / 1000:.1f} s"
        return (f"{_clock(e.at)} transaction aborted{took}: {d['transactionalId']} (producer {d['producerId']} "
                f"epoch {d['producerEpoch']}; {', '.join(d['partitions']) or 'no partitions'})")
    if e.kind == FINDING:
        return f"{_clock(e.at)} {d['severity'].upper()} {d['finding']}: {d['summary']}"
    if e.kind == CATCHING_UP:
        return f"{_clock(e.at)} {d['message']}"
    if e.kind == CAUGHT_UP:
        return (f"{_clock(e.at)} caught up: {count_text(d['readWhileCatchingUp'])} records read in "
                f"{d['tookS']:.1f} s")
    return None


def _age(ms: int | None) -> str:
    if ms is None:
        return "-"
    seconds = ms // 1000
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{ms / 1000:.1f}s"


def unowned_lines(core: LiveTimeline) -> list[str]:
    """One line per group whose rebalances left partitions without an owner: the total and the longest gap
    (kafka_meta.analysis.unowned), under the table."""
    from kafka_meta.analysis.unowned import group_cost

    costs = {name: group_cost(tl) for name, tl in sorted(core.timelines().items())}
    return [f"{name}: {cost.summary()}" for name, cost in costs.items() if cost.longest is not None]


def transactions_block(core: LiveTimeline, now: float) -> Any:
    """The transactions: the counts while watching, and every open one (its producer, state, partitions, how
    long it has been open against its timeout), a hanging one in bold red; None before any transaction."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    counts = core.transaction_counts()
    open_now = core.open_transactions(now)
    if not open_now and not any(counts.values()) and not core.transactions.ids:
        return None
    hanging = sum(1 for e in open_now if e.hanging)
    head = Text(f"transactions: {counts['committed']} committed, {counts['aborted']} aborted, "
                f"{counts['fenced']} fenced, {len(open_now)} open", style="bold")
    if hanging:
        head.append(f", {hanging} hanging", style="bold red")
    if not open_now:
        return head
    table = Table(expand=True)
    for column in ("transactional id", "producer", "state", "partitions", "open for", "timeout"):
        table.add_column(column, overflow="fold", ratio=3 if column == "partitions" else 1)
    for e in open_now[:OPEN_SHOWN]:
        t = e.transaction
        table.add_row(Text(t.transactional_id), f"{t.producer_id} epoch {t.producer_epoch}",
                      f"HANGING ({t.last_state})" if e.hanging else t.last_state,
                      Text(", ".join(f"{topic}-{p}" for topic, p in sorted(t.partitions)) or "-"), _age(e.open_ms),
                      f"{t.timeout_ms / 1000:g}s", style="bold red" if e.hanging else None)
    if len(open_now) > OPEN_SHOWN:
        table.caption = f"and {len(open_now) - OPEN_SHOWN} more open"
    return Group(head, table)


def _epochs(v: GroupView) -> str:
    """The generation or group epoch, and a streams group's topology epoch beside it."""
    shown = "-" if v.generation is None else str(v.generation)
    topology = v.described.topology_epoch if v.described is not None else None
    return shown if topology is None else f"{shown} (topology {topology})"


GROUP_COLUMNS = ("group", "kind", "state", "gen/epoch", "members", "last round", "why", "commits/s", "lag")
WRAPPED = {"gen/epoch": 9, "last round": 8, "why": 16}  # column -> its longest word ("(topology", a time)
LAG_STYLE = {"WARN": "yellow", "ERR": "bold red"}  # Burrow's group status in the lag column
NAME_WIDTH = 40  # a group name longer than this is cut with an ellipsis rather than broken across lines


def _group_column(table: Any, column: str, views: list[GroupView]) -> None:
    """The groups table's columns: names, kinds, states and counts whole on one line each (a group name or a
    state broken mid-word is misread), the epochs and the last round wrapped at their words, the reasons
    (``why``) taking the width that is left."""
    widest = {"group": min(max((len(v.group) for v in views), default=5), NAME_WIDTH),
              "kind": max((len(v.kind) for v in views), default=4),
              "state": max((len(v.state or "-") for v in views), default=5),
              "lag": max((len(total_lag(v.standing)) for v in views), default=3)}
    if column in WRAPPED:
        table.add_column(column, overflow="fold", ratio=4 if column == "why" else None, min_width=WRAPPED[column])
        return
    table.add_column(column, no_wrap=True, overflow="ellipsis", min_width=widest.get(column),
                     justify="right" if column in ("members", "commits/s", "lag") else "left")


class TerminalView:
    """rich's Live display, refreshed at most once a second."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console
        from rich.live import Live

        self.console = console or Console(stderr=False)
        self.live = Live(console=self.console, refresh_per_second=1, auto_refresh=False)
        self.live.start()
        self.last_render = 0.0
        self.down_since: float | None = None
        self.reason = ""

    def event(self, e: Event) -> None:
        line = event_line(e)
        if e.kind == DISCONNECTED:
            self.down_since, self.reason = e.at, e.detail.get("reason", "")
        elif e.kind == CONNECTED:
            self.down_since = None
        if line is not None:
            self.live.console.print(line, markup=False, highlight=False)

    def tick(self, core: LiveTimeline, now: float) -> None:
        if now - self.last_render >= 1.0:
            self.last_render = now
            self.live.update(self.render(core), refresh=True)

    def render(self, core: LiveTimeline, now: float | None = None) -> Any:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        if self.down_since is not None:
            status = Text(f"DISCONNECTED since {_clock(self.down_since)}: {self.reason} (retrying)", style="bold red")
        else:
            status = Text(f"connected to {core.source}: {sum(core.records.values())} records read", style="green")
            behind = core.catchup.state
            if behind is not None:  # how far from the log end, once its end was asked
                status.append("; ")
                status.append(behind.message(), style="green" if behind.caught_up else "bold yellow")
        views = core.groups()
        table = Table(expand=True)
        for column in GROUP_COLUMNS:
            _group_column(table, column, views)
        notes = []
        for v in views:
            r = v.last_round
            table.add_row(v.group, v.kind, v.state or "-", _epochs(v), "-" if v.members is None else str(v.members),
                          "-" if r is None else f"{r.generation} at {_clock(r.start)}", v.why,
                          f"{v.commit_rate:.2f}", Text(total_lag(v.standing), style=LAG_STYLE.get(
                              v.standing.status.status if v.standing is not None else "", "")))
            if v.described is not None and v.described.note:
                notes.append(f"{v.group}: {v.described.note}")
        notes += unowned_lines(core)
        if notes:
            table.caption = "\n".join(notes)
        transactions = transactions_block(core, time.time() if now is None else now)
        return Group(status, table) if transactions is None else Group(status, table, transactions)

    def close(self, core: LiveTimeline) -> None:
        self.live.update(self.render(core), refresh=True)
        self.live.stop()


class JsonLines:
    """Every event a JSON line; a snapshot of every group every few seconds and at the end."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.last_snapshot = 0.0

    def event(self, e: Event) -> None:
        self.stream.write(json.dumps(e.to_json(), ensure_ascii=False, default=str) + "\n")
        self.stream.flush()

    def tick(self, core: LiveTimeline, now: float) -> None:
        if now - self.last_snapshot >= JSON_SNAPSHOT_EVERY_S:
            self.last_snapshot = now
            self.event(snapshot(core, now))

    def close(self, core: LiveTimeline) -> None:
        self.event(snapshot(core, time.time()))


def snapshot(core: LiveTimeline, now: float) -> Event:
    """Every group, the transactions (the counts while watching, every open one, and each transactional id
    with its newest transactions: bounded, as the core is), the positions per topic, the records read and how
    far behind the log end the watch is (``catchUp``: None before the log end was first asked)."""
    return Event(SNAPSHOT, now, detail={
        "groups": [v.to_json() for v in core.groups()],
        "transactions": {**core.transaction_counts(), "open": [e.to_json() for e in core.open_transactions(now)],
                         "transactionalIds": [i.to_json() for _, i in sorted(core.transactions.ids.items())]},
        "positions": core.positions_json(),
        "records": dict(core.records), "repeated": core.repeated, "problems": core.problems,
        "catchUp": None if core.catchup.state is None else core.catchup.state.to_json()})


class HtmlReport:
    """The offline HTML report, rewritten every few seconds and at the end."""

    def __init__(self, path: str | Path, title: str) -> None:
        self.path, self.title = Path(path), title
        self.written = 0.0

    def event(self, e: Event) -> None:
        pass

    def tick(self, core: LiveTimeline, now: float) -> None:
        if now - self.written >= HTML_EVERY_S:
            self.written = now
            write_live_html(core, self.path, self.title)

    def close(self, core: LiveTimeline) -> None:
        write_live_html(core, self.path, self.title)
