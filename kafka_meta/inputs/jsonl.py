"""JSON Lines: text whose first non-blank line is a JSON object; each line sorted by its fields into an
exchange, a record, a payload or a member. A line that is not JSON is damage naming its line number, and the
lines that are JSON but no row the project knows are counted in one line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from kafka_meta.inputs.items import Damage, Item, Source, Unreadable, sort_row
from kafka_meta.inputs.kind import Kind
from kafka_meta.sniff import SNIFF_BYTES, binary_offset


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
    neither, first = 0, 0
    for n, line in enumerate(stream, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            yield Damage(f"{name} line {n}: not JSON ({e.msg})")
            continue
        row = sort_row(data, name, n)
        if row is None:
            neither += 1
            first = first or n
        else:
            yield row
    if neither:
        more = f" (nor are {neither - 1} more lines)" if neither > 1 else ""
        yield Damage(f"{name} line {first}: neither an exchange, a __consumer_offsets record, a payload nor a "
                     f"member{more}")


KIND = Kind("jsonl", "JSON Lines", recognise, read)
