"""What reading an input gives, whatever its kind: the sources found, the rows read, the damage read around
and the inputs that could not be read at all; and the one rule that tells a row's kind by its fields, which
every kind holding rows of several kinds (JSON Lines, Parquet) applies alike.

The rule (:func:`sort_row`) is stated as data, :data:`ROW_KINDS` and :data:`BYTES_FIELDS`, so that the Spark
face applies the same rule to columns (:mod:`kafka_meta.spark.row_rules`): a field counts when it is there
and not null (Spark's readers cannot tell a missing field from a null one, and a Parquet file's rows all
have every column), the kinds are tried in order, and a row's bytes fields must read as bytes by the one
rule for text (:mod:`kafka_meta.payload_text`), else the row is damage naming the field and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kafka_meta.payload_text import PayloadTextError, text_bytes

PAYLOAD_KEYS = ("hex", "base64", "blob")

# "partition": a user topic's partition of a log directory, told by its batch headers (never from JSON Lines)
RowKind = Literal["exchange", "record", "payload", "member", "partition"]

# each kind, in the order tried: the fields a row of it has (all of them), and of which one at least
ROW_KINDS: tuple[tuple[RowKind, tuple[str, ...], tuple[str, ...]], ...] = (
    ("exchange", ("apiKey",), ()),
    ("record", ("key",), ()),
    ("payload", ("type",), PAYLOAD_KEYS),
    ("member", ("subscription",), ()),
)
# the fields holding bytes, by kind, and how their text is read. A payload's bytes are in the first of its
# fields that is there (the others are not read); a record's and a member's in every one of them
BYTES_FIELDS: dict[RowKind, tuple[tuple[str, str], ...]] = {
    "exchange": (),
    "record": (("key", "auto"), ("value", "auto")),
    "payload": (("hex", "hex"), ("base64", "base64"), ("blob", "auto")),
    "member": (("subscription", "auto"), ("assignment", "auto")),
}
FIRST_ONLY: frozenset[RowKind] = frozenset({"payload"})
NEITHER = "neither an exchange, a __consumer_offsets record, a payload nor a member"


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
    kind: str | None = None  # the kind it is, where it was refused for being of another kind than asked for

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


def row_kind(data: Any) -> RowKind | None:
    """The kind of one row of fields by :data:`ROW_KINDS`; None when it is no row the project knows."""
    if not isinstance(data, dict):
        return None
    for kind, every, some in ROW_KINDS:
        if all(data.get(f) is not None for f in every) and (not some or any(data.get(f) is not None for f in some)):
            return kind
    return None


def bytes_problem(kind: RowKind, data: dict[str, Any]) -> str | None:
    """Why a row of ``kind`` cannot be read (a bytes field whose text is not bytes), or None. Bytes already
    (Parquet's binary columns) are bytes."""
    for field, encoding in BYTES_FIELDS[kind]:
        value = data.get(field)
        if value is None:
            continue
        if not isinstance(value, bytes | bytearray | memoryview):
            try:
                text_bytes(value, encoding, field)
            except PayloadTextError as e:
                return str(e)
        if kind in FIRST_ONLY:
            return None
    return None


def payload_bytes(data: dict[str, Any]) -> tuple[str, bytes]:
    """A payload's bytes, from the first of its bytes fields that is there (:data:`BYTES_FIELDS`: ``hex``,
    ``base64``, then ``blob``, either), and that field's name; :class:`PayloadTextError` when its text is not
    bytes, a :class:`KeyError` naming the fields when none is there."""
    for field, encoding in BYTES_FIELDS["payload"]:
        value = data.get(field)
        if value is not None:
            return field, bytes(value) if isinstance(value, bytes | bytearray | memoryview) else text_bytes(
                value, encoding, field)
    raise KeyError(" or ".join(repr(f) for f, _ in BYTES_FIELDS["payload"]))


def sort_row(data: Any, file: str, line: int, unit: str = "line") -> Row | Damage | None:
    """One row of fields as the project reads it: its kind (:func:`row_kind`), or damage naming its place
    (``FILE line N``; ``unit`` says what N counts) when its bytes cannot be read; None when it is no row the
    project knows."""
    kind = row_kind(data)
    if kind is None:
        return None
    problem = bytes_problem(kind, data)
    if problem is not None:
        return Damage(f"{file} {unit} {line}: {problem}")
    if kind == "exchange":
        return Row("exchange", data)
    return Row(kind, data | {"_file": file, "_line": line})
