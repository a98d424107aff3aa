"""Opening what the commands are given: a missing path, a directory where a file is expected, or binary
data where text is expected is said in one line naming the path (and the byte offset), before any work
starts, instead of surfacing as a traceback from deep inside a reader."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TextIO

from kafka_meta.errors import InputError
from kafka_meta.sniff import SNIFF_BYTES, binary_offset


def existing_file(path: str, what: str = "input") -> Path:
    """``path`` as a Path when it is a readable regular file; an InputError saying what is wrong otherwise."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{what} {path}: no such file")
    if p.is_dir():
        raise InputError(f"{what} {path}: is a directory, not a file")
    if not p.is_file():
        raise InputError(f"{what} {path}: not a regular file")
    return p


def existing_directory(path: str, what: str = "directory") -> Path:
    p = Path(path)
    if not p.exists():
        raise InputError(f"{what} {path}: no such directory")
    if not p.is_dir():
        raise InputError(f"{what} {path}: not a directory")
    return p


def ensure_text(path: str, head: bytes, expected: str) -> None:
    offset = binary_offset(head)
    if offset is not None:
        raise InputError(f"{path}: binary data at byte {offset}, not {expected}")


def open_text(path: str, expected: str = "JSON Lines text", what: str = "input") -> TextIO:
    """A text stream of ``path`` (``-`` is stdin). The file must exist and start as text; bytes that are
    not UTF-8 further on read as U+FFFD, so the line holding them is reported as bad and the rest is read."""
    if path == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace") \
            if hasattr(sys.stdin, "buffer") else sys.stdin
    p = existing_file(path, what)
    with p.open("rb") as fh:
        ensure_text(path, fh.read(SNIFF_BYTES), expected)
    return p.open(encoding="utf-8", errors="replace")


def spec_paths(path: str, allow_empty: bool = False) -> list[Path]:
    """The spec files a ``--specs`` or ``evolution`` path names (a file, or every ``*.json`` under a
    directory), each checked to be text, so a wrong path is one line rather than a loader traceback."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"specs {path}: no such file or directory")
    files = [p] if p.is_file() else sorted(f for f in p.rglob("*.json") if f.is_file())
    if not files and not allow_empty:
        raise InputError(f"specs {path}: no .json spec files in this directory")
    for f in files:
        with f.open("rb") as fh:
            ensure_text(str(f), fh.read(SNIFF_BYTES), "a JSON message spec")
    return files
