"""What a person watching sees: a rich live table of the groups (state, generation or epoch, members, the last
round and why, the commit rate) under the connection's state, with each new round and connection change
printed above it as it happens; and the JSON-lines and HTML outputs beside it."""

from __future__ import annotations

import datetime as dt
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from kafka_meta.live.core import GroupView, LiveTimeline
from kafka_meta.live.events import CONNECTED, DISCONNECTED, PROBLEM, ROUND, SNAPSHOT, Event
from kafka_meta.live.report import write_live_html

JSON_SNAPSHOT_EVERY_S = 10.0
HTML_EVERY_S = 5.0


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
    return None


def _epochs(v: GroupView) -> str:
    """The generation or group epoch, and a streams group's topology epoch beside it."""
    shown = "-" if v.generation is None else str(v.generation)
    topology = v.described.topology_epoch if v.described is not None else None
    return shown if topology is None else f"{shown} (topology {topology})"


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

    def render(self, core: LiveTimeline) -> Any:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        if self.down_since is not None:
            status = Text(f"DISCONNECTED since {_clock(self.down_since)}: {self.reason} (retrying)", style="bold red")
        else:
            status = Text(f"connected to {core.source}: {sum(core.records.values())} records read", style="green")
        table = Table(expand=True)
        for column in ("group", "kind", "state", "gen/epoch", "members", "last round", "why", "commits/s"):
            table.add_column(column, overflow="fold", ratio=4 if column == "why" else 1)
        notes = []
        for v in core.groups():
            r = v.last_round
            table.add_row(v.group, v.kind, v.state or "-", _epochs(v), "-" if v.members is None else str(v.members),
                          "-" if r is None else f"{r.generation} at {_clock(r.start)}", v.why,
                          f"{v.commit_rate:.2f}")
            if v.described is not None and v.described.note:
                notes.append(f"{v.group}: {v.described.note}")
        if notes:
            table.caption = "\n".join(notes)
        return Group(status, table)

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
    return Event(SNAPSHOT, now, detail={
        "groups": [v.to_json() for v in core.groups()],
        "positions": {str(p): o for p, o in sorted(core.positions.items())},
        "records": dict(core.records), "repeated": core.repeated, "problems": core.problems})


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
