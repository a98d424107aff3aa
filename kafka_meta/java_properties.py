"""Java properties files, read as ``java.util.Properties.load`` reads them: the files Kafka's clients and tools
take their settings from (``--command-config``). Only the syntax lives here; what a setting means is for its
reader (the watch's kafka-python mapping, the Spark jobs' Kafka source options), so both read a file alike.

The rules: ``#`` and ``!`` start comments, a key ends at the first unescaped ``=``, ``:`` or blank, a line
ending in an odd number of backslashes goes on on the next line, and ``\\t \\n \\r \\f \\uXXXX`` are escapes.
Each entry keeps the line it starts on, so a reader can refuse a setting by file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kafka_meta.errors import InputError

ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


@dataclass(frozen=True)
class Entry:
    key: str
    value: str
    line: int  # where the entry starts, 1 on


def read_properties(text: str) -> list[Entry]:
    """The entries of a Java properties file, each with the line it starts on."""
    entries: list[Entry] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start = i
        logical = lines[i].lstrip()
        i += 1
        if not logical or logical[0] in "#!":
            continue
        while _continues(logical) and i < len(lines):
            logical = logical[:-1] + lines[i].lstrip()
            i += 1
        if _continues(logical):
            logical = logical[:-1]
        key, value = _split(logical)
        entries.append(Entry(key, value, start + 1))
    return entries


def _continues(line: str) -> bool:
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _split(line: str) -> tuple[str, str]:
    at, escaped = 0, False
    while at < len(line):
        ch = line[at]
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in "=: \t\f":
            break
        at += 1
    key, rest = line[:at], line[at:].lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return _unescape(key), _unescape(rest)


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 == len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2:i + 6]):
            out.append(chr(int(text[i + 2:i + 6], 16)))
            i += 6
            continue
        out.append(ESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


def read_properties_file(path: str | Path) -> list[Entry]:
    """The entries of a properties file read as UTF-8 (ASCII files, the usual kind, read the same; anything else
    can be written as ``\\uXXXX``); InputError naming the file when it cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from e
    return read_properties(text)
