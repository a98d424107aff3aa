"""What reading an input gives, whatever its kind: the sources found, the rows read, the damage read around
and the inputs that could not be read at all; and the one rule that tells a row's kind by its fields, which
every kind holding rows of several kinds (JSON Lines, Parquet) applies alike."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

PAYLOAD_KEYS = ("hex", "base64", "blob")

RowKind = Literal["exchange", "record", "payload", "member"]


@dataclass(frozen=True)
class Source:
    """One thing to read: a file of a kind, or a partition directory of segments (kind ``log``)."""

    kind: str
    path: Path
    given: str  # the input as it was given (a file, or the directory it was found in)


@dataclass(frozen=True)
class Unreadable:
    """An input, or a file of a directory input, that cannot be read: where, and why, in one line."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass(frozen=True)
class Row:
    """One row read: its kind and its fields."""

    kind: RowKind
    data: dict[str, Any]


@dataclass(frozen=True)
class Damage:
    """Damage inside an input that was read around, as one line naming its place."""

    text: str

    def __str__(self) -> str:
        return self.text


Item = Row | Damage | Unreadable


def sort_row(data: Any, file: str, line: int) -> Row | None:
    """The kind of one row of fields, told by the fields it has; None when it is no row the project knows."""
    if not isinstance(data, dict):
        return None
    if "apiKey" in data:
        return Row("exchange", data)
    if "key" in data:
        return Row("record", data | {"_file": file, "_line": line})
    if "type" in data and any(k in data for k in PAYLOAD_KEYS):
        return Row("payload", data | {"_file": file, "_line": line})
    if "subscription" in data:
        return Row("member", data | {"_file": file, "_line": line})
    return None
