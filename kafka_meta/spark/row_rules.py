"""The row rules of :mod:`kafka_meta.inputs` as Spark columns: which kind a row is, and how its text becomes
bytes, so Spark's readers of JSON Lines and Parquet (:mod:`kafka_meta.spark.inputs`) sort and read rows
exactly as every verb without Spark does.

Both are built here from the rules' own statement, not restated: the kinds and their fields from
:data:`kafka_meta.inputs.items.ROW_KINDS` and :data:`~kafka_meta.inputs.items.BYTES_FIELDS`, the text rule
from the regular expressions and the reasons of :mod:`kafka_meta.payload_text` (which mean the same to
Java's regular expressions as to Python's), each reason and its message a literal of its branch. A row's text
that is not bytes gives a null in its bytes column and the rule's message in its error column, never an
exception: Spark's ``unhex`` pads odd hex with a zero and ``unbase64`` throws on text it cannot read (one bad
line failed the whole job), so the bytes come from ``try_to_binary`` of text the checks have already found
sound. ``tests/test_row_rules.py`` holds both forms to agree, string by string and row by row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kafka_meta.inputs.items import BYTES_FIELDS, FIRST_ONLY, ROW_KINDS, RowKind
from kafka_meta.payload_text import (
    BASE64,
    BASE64_SHAPE,
    HEX_PREFIX,
    NEITHER_ALPHABET,
    NOT_BASE64,
    NOT_BASE64_CHARACTER,
    NOT_HEX,
    NOT_HEX_DIGIT,
    NOT_WHAT,
    ODD,
    SPACE,
    STANDARD,
    URL_SAFE,
    message,
)

Column = Any  # pyspark.sql.Column: pyspark is imported only where a session runs


def row_kind(present: Callable[[str], Column]) -> Column:
    """The kind of each row (``exchange``, ``record``, ``payload``, ``member``, or null), as
    :func:`kafka_meta.inputs.items.row_kind` tells it; ``present(field)``: whether the row has the field, not
    null (false for a column the frame lacks)."""
    from pyspark.sql import functions as F

    kind = None
    for name, every, some in ROW_KINDS:
        condition = F.lit(True)
        for field in every:
            condition = condition & present(field)
        if some:
            anyone = F.lit(False)
            for field in some:
                anyone = anyone | present(field)
            condition = condition & anyone
        kind = F.when(condition, F.lit(name)) if kind is None else kind.when(condition, F.lit(name))
    return kind


def text_bytes(text: Column, encoding: str = "auto", field: str | None = None) -> tuple[Column, Column]:
    """(bytes, error) of a column of text, as :func:`kafka_meta.payload_text.text_bytes` reads it: the
    bytes (null where the text is null or not bytes) and the rule's message where it is not (``field``
    naming the field in it), else null. Never throws, whatever the text."""
    from pyspark.sql import functions as F

    t = F.regexp_replace(text, SPACE, "")
    digits = F.regexp_replace(t, HEX_PREFIX, "")
    hex_digits = ~digits.rlike(NOT_HEX)
    even = F.length(digits) % 2 == 0
    as_hex = F.try_to_binary(digits, F.lit("hex"))
    stripped = F.translate(F.regexp_replace(t, "=", ""), URL_SAFE, STANDARD)
    padded = F.rpad(stripped, F.floor((F.length(stripped) + 3) / 4).cast("int") * 4, "=")
    as_base64 = F.try_to_binary(padded, F.lit("base64"))
    auto = encoding == "auto"
    # (condition, bytes or None, reason or None), in the order payload_text._read decides
    hex_cases = [(~hex_digits, None, NOT_HEX_DIGIT), (~even, None, ODD), (F.lit(True), as_hex, None)]
    base64_cases = [(t.rlike(NOT_BASE64), None, NEITHER_ALPHABET if auto else NOT_BASE64_CHARACTER),
                    *([(~t.rlike(BASE64) & hex_digits, None, ODD)] if auto else []),
                    (~t.rlike(BASE64), None, BASE64_SHAPE), (F.lit(True), as_base64, None)]
    if encoding == "hex":
        cases = hex_cases
    elif encoding == "base64":
        cases = base64_cases
    elif auto:
        prefixed = t.rlike(HEX_PREFIX)
        cases = [*((prefixed & c, b, r) for c, b, r in hex_cases), (hex_digits & even, as_hex, None), *base64_cases]
    else:
        raise ValueError(f"encoding must be one of {', '.join(NOT_WHAT)}, not {encoding!r}")
    data = F.when(text.isNull(), F.lit(None).cast("binary"))
    error = F.when(text.isNull(), F.lit(None).cast("string"))
    for condition, spelled, reason in cases:
        data = data.when(condition, spelled if spelled is not None else F.lit(None).cast("binary"))
        error = error.when(condition, F.lit(None).cast("string") if reason is None
                           else F.lit(message(NOT_WHAT[encoding], reason, field)))
    return data, error


def text_field(col: Column, encoding: str, field: str) -> tuple[Column, Column, Column]:
    """(present, bytes, error) of a field holding text."""
    return (col.isNotNull(), *text_bytes(col, encoding, field))


def bytes_field(col: Column) -> tuple[Column, Column, Column]:
    """(present, bytes, error) of a field holding bytes already (Parquet's binary columns)."""
    from pyspark.sql import functions as F

    return col.isNotNull(), col, F.lit(None).cast("string")


def other_field(col: Column, encoding: str, field: str, python_type: str) -> tuple[Column, Column, Column]:
    """(present, bytes, error) of a field of another type (a Parquet column of numbers): never bytes, said as
    the rule says a value of that type (``python_type``: what the reader without Spark reads it as)."""
    from pyspark.sql import functions as F

    error = F.when(col.isNotNull(), F.lit(message(NOT_WHAT[encoding], f"{python_type}, not text", field)))
    return col.isNotNull(), F.lit(None).cast("binary"), error


def row_bytes(kind: RowKind, read: Callable[[str, str], tuple[Column, Column, Column] | None]
              ) -> tuple[dict[str, Column], Column]:
    """The bytes of a row of ``kind`` by :data:`~kafka_meta.inputs.items.BYTES_FIELDS`, as
    :func:`kafka_meta.inputs.items.bytes_problem` reads them: a bytes column per field (a payload's one, under
    its first field's name: the first of its fields the row has) and the row's error, the message of its
    first field that is not bytes (null when all are). ``read(field, encoding)``: the field's (present,
    bytes, error) (:func:`text_field`, :func:`bytes_field`, :func:`other_field`), None when the frame lacks
    it."""
    from pyspark.sql import functions as F

    fields = [(field, got) for field, encoding in BYTES_FIELDS[kind] if (got := read(field, encoding)) is not None]
    if not fields:
        return {}, F.lit(None).cast("string")
    if kind in FIRST_ONLY:  # the first field there is the payload's bytes; the others are not read
        data = error = None
        for _, (present, spelled, wrong) in fields:
            data = F.when(present, spelled) if data is None else data.when(present, spelled)
            error = F.when(present, wrong) if error is None else error.when(present, wrong)
        return {BYTES_FIELDS[kind][0][0]: data}, error
    return ({field: spelled for field, (_, spelled, _) in fields},
            F.coalesce(*(wrong for _, (_, _, wrong) in fields)))
