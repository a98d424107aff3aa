"""The kinds of input every verb and every Spark read take, each recognised by its content, never its name.

One entry per kind in :data:`KINDS`, in the order they are tried on a file: a kind's ``recognise`` looks at
the file's first bytes (and may read further, a log segment's first entry and its CRC); the first kind that
claims a file reads it. Adding a kind is one module with its reader and one line here.

A directory is no kind of its own: its files are recognised one by one (see :mod:`kafka_meta.inputs.detect`),
so a log directory, a directory of captures and a directory holding both read the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kafka_meta.capture.containers import sniff as capture_magic
from kafka_meta.log.files import looks_like_log
from kafka_meta.sniff import SNIFF_BYTES, binary_offset

CAPTURE, SEGMENT, PARQUET, JSONL = "capture", "log", "parquet", "jsonl"


@dataclass(frozen=True)
class Kind:
    name: str  # as --format names it
    what: str  # in words, for messages
    recognise: Callable[[Path, bytes], bool]  # the file's path (to read further) and its first bytes


def _capture(path: Path, head: bytes) -> bool:
    return capture_magic(head) is not None


def _segment(path: Path, head: bytes) -> bool:
    return looks_like_log(path)


def _parquet(path: Path, head: bytes) -> bool:
    return head[:4] == b"PAR1"


def _json_lines(path: Path, head: bytes) -> bool:
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


KINDS = (
    Kind(CAPTURE, "a packet capture (pcap or pcapng, maybe gzipped)", _capture),
    Kind(PARQUET, "a Parquet file", _parquet),
    Kind(SEGMENT, "a Kafka log segment", _segment),
    Kind(JSONL, "JSON Lines", _json_lines),
)
BY_NAME = {kind.name: kind for kind in KINDS}
