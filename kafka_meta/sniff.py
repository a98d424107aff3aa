"""Telling text from binary data by the start of a file, so a reader expecting text can refuse a binary
file in one line, naming the byte, before any work starts. Imports nothing of kafka_meta: every layer that
opens files may use it."""

from __future__ import annotations

from pathlib import Path

SNIFF_BYTES = 64 * 1024  # enough to tell text from binary; a text file's later bad bytes are per-line damage


def head(path: Path, size: int = SNIFF_BYTES) -> bytes:
    with path.open("rb") as fh:
        return fh.read(size)


def binary_offset(start: bytes) -> int | None:
    """Where the first line of ``start`` (the start of a file) stops being UTF-8 text: the offset of a NUL
    byte or of the first invalid sequence; None when it is text. Only the first line decides whether the
    file is text at all: a bad byte on a later line is that line's damage, reported with its number. A
    multi-byte character cut by the end of ``start`` is text."""
    end = start.find(b"\n")
    line = start if end < 0 else start[:end]
    nul = line.find(b"\0")
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as e:
        if not (e.reason == "unexpected end of data" and e.start >= len(line) - 3):
            return e.start if nul < 0 else min(nul, e.start)
    return None if nul < 0 else nul
