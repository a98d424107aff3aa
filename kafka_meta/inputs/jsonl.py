"""JSON Lines: text whose first non-blank line is a JSON object; each line sorted by its fields into an
exchange, a record, a payload or a member. A bad line (not JSON, or JSON but no row the project knows) is
damage said where it is met, as every bad line is said, ``FILE line N: what``, so the messages of a file come
in the order of its lines, between the rows read around them. A file of many bad lines says the first
:data:`LISTED` of them and, at its end, how many more there were and where they ran."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from kafka_meta.inputs.items import NEITHER, Damage, Item, Source, Unreadable, sort_row
from kafka_meta.inputs.kind import Kind
from kafka_meta.sniff import SNIFF_BYTES, binary_offset

LISTED = 100  # bad lines of one file said one by one; the rest are counted in one line at the file's end


def recognise(path: Path, head: bytes) -> bool:
    """Text whose first non-blank line is a JSON object (or starts one, when the line is longer than what was
    read of the file); a pretty-printed JSON document, whose first line is a lone brace, is not JSON Lines."""
    if binary_offset(head) is not None:
        return False
    lines = head.splitlines(keepends=True)
    first = next((line for line in lines if line.strip()), b"")
    if not first.lstrip().startswith(b"{"):
        return False
    if not first.endswith(b"\n") and len(head) == SNIFF_BYTES:  # cut off by the end of what was read
        return True
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False


def read(source: Source) -> Iterator[Item]:
    try:
        stream = source.path.open(encoding="utf-8", errors="replace")
    except OSError as e:
        yield Unreadable(str(source.path), f"cannot be read ({e.strerror or e})")
        return
    with stream:
        yield from read_lines(stream, str(source.path))


def read_lines(stream: Iterable[str], name: str) -> Iterator[Item]:
    """The rows of lines from a file or an open stream (standard input), ``name`` naming it."""
    bad = Unlisted(name)
    for n, line in enumerate(stream, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            yield from bad.line(n, f"not JSON ({e.msg})")
            continue
        row = sort_row(data, name, n)
        if row is None:
            yield from bad.line(n, NEITHER)
        else:
            yield row
    yield from bad.summary()


class Unlisted:
    """A file's bad lines: each said as it is met, up to :data:`LISTED`; the rest counted and said once, at the
    file's end, in the place of the first of them (``FILE line N: and M more bad lines not listed ...``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.listed = 0
        self.more = 0
        self.first = self.last = 0

    def line(self, n: int, what: str) -> Iterator[Damage]:
        if self.listed < LISTED:
            self.listed += 1
            yield Damage(f"{self.name} line {n}: {what}")
            return
        self.more += 1
        self.first = self.first or n
        self.last = n

    def summary(self) -> Iterator[Damage]:
        if self.more:
            lines = "line" if self.more == 1 else "lines"
            yield Damage(f"{self.name} line {self.first}: and {self.more} more bad {lines} not listed (after the "
                         f"first {LISTED}), the last at line {self.last}")


KIND = Kind("jsonl", "JSON Lines", recognise, read)
