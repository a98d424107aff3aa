"""Spark's readers of rows, JSON Lines and Parquet: the reading every verb does of them
(:mod:`kafka_meta.inputs.jsonl`, :mod:`kafka_meta.inputs.parquet`), as DataFrames.

Each row is sorted into an exchange, a record, a payload or a member by the rule
:func:`kafka_meta.inputs.items.sort_row` states, and its text read as bytes by
:mod:`kafka_meta.payload_text`, both through their column form (:mod:`kafka_meta.spark.row_rules`).
So what ``kafka-meta capture`` writes (exchange rows) is read as exchanges, as ``kafka-meta report`` reads it,
and a bad line costs its own row only: a record, payload or member whose text is not bytes becomes a row
whose ``_error`` names the file, the field and why (``FILE: neither hex nor base64 in 'key' (...)``; a record's
bytes null, as the log source's damage rows carry theirs), so rows in = rows out and the job lists it with
the damage it read around, as the readers without Spark list the same line.

JSON Lines are read as text and each line parsed with one fixed schema (:func:`json_schema`), every field a
string: a field of any JSON type then reads as its JSON text (an object's, a number's), so no line's types
can make Spark refuse it or the file; an exchange's bodies are their JSON text, the columns of the capture
source's ``bodies=json`` option. Exchanges are read here, in the same pass as the records, rather than on
the driver or by a second reader: a capture's rows are as many as its packets' exchanges (a busy capture's
Fetch and Produce traffic among them), and the timeline takes only the group exchanges from them, as it does
from a capture (:func:`kafka_meta.spark.timeline.group_exchanges`).

Spark's own JSON Lines reader was no fit: it infers one schema for the whole file (a single line repeating a
key failed the read), spreads a line holding an array of objects over several rows, and reads a ``#``
comment as a bad line, where the reader without Spark skips it. What is left apart: the line number (Spark's
text reader gives none, so a bad line is said by its file), an object followed by more text on its line
(Spark's parser reads it, Python's does not), and a number where bytes are expected (read as its digits).

A Parquet file's columns are typed, so its rows are sorted by which columns are set, and a bytes column
holds bytes already, or text read by the same rule.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse

from kafka_meta.inputs.items import NEITHER, RowKind
from kafka_meta.spark.input_frames import PROVENANCE, RECORD_COLUMNS, TRANSACTION_FIELDS, Inputs
from kafka_meta.spark.row_rules import bytes_field, other_field, row_bytes, row_kind, text_field

FILE, KIND, CORRUPT, BAD = "_file", "_kind", "_corrupt_record", "_bad"
# blank lines and comments, skipped as the reader without Spark skips them (Python's whitespace: Unicode's
# and the ASCII separators \x1c-\x1f)
SKIPPED = r"(?U)^[\s\x1c-\x1f]*(#|$)"
JSON_OPTIONS = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT}
# what a record row may carry (what `kafka-meta log` and `offsets` write: its transaction's fields among them)
RECORD_FIELDS = RECORD_COLUMNS
TYPED = {"partition": "int", "offset": "bigint", "timestamp": "bigint", "control": "boolean", "producerId": "bigint"}
PAYLOAD_FIELDS = ("type", "hex", "base64", "blob")
PAYLOAD_NAMES = ("group", "member")  # what a JSON Lines payload says of itself, kept beside its bytes
MEMBER_FIELDS = ("subscription", "assignment")
SOURCE = "file string, frame bigint"  # an exchange's place, as the capture source gives it
# what the reader without Spark reads a Parquet column of these types as (the rule's words for it)
PYTHON_TYPES = {"tinyint": "int", "smallint": "int", "int": "int", "bigint": "int", "float": "float",
                "double": "float", "boolean": "bool", "struct": "dict", "array": "list", "map": "list",
                "timestamp": "datetime", "date": "date"}

NEITHER_LINES = "input line(s) are " + NEITHER
NEITHER_ROWS = "input row(s) are " + NEITHER


def json_schema() -> Any:
    """Every field a row of any kind is read by, as a string (see the module's docstring), and the line
    itself where it is no JSON object."""
    from pyspark.sql.types import StringType, StructField, StructType

    from kafka_meta.spark.sources.capture import SCHEMA

    names = dict.fromkeys([*SCHEMA.fieldNames(), *RECORD_FIELDS, *PAYLOAD_FIELDS, *PAYLOAD_NAMES, *MEMBER_FIELDS])
    return StructType([StructField(name, StringType()) for name in names] + [StructField(CORRUPT, StringType())])


def given_names(frame: Any, paths: list[str]) -> Any:
    """Each row's file as it was given (Spark names a file by its URI): the name the readers without Spark
    say it by."""
    from pyspark.sql import functions as F

    by_path = {os.path.abspath(p): p for p in paths}
    pairs = [(uri, by_path.get(unquote(urlparse(uri).path), unquote(urlparse(uri).path)))
             for uri in frame.inputFiles()]
    names = F.create_map(*(F.lit(x) for pair in pairs for x in pair)) if pairs else None
    uri = F.input_file_name()
    return uri if names is None else F.coalesce(F.try_element_at(names, uri), uri)


def read_jsonl(spark: Any, paths: list[str]) -> Inputs:
    """JSON Lines files: their exchanges, records, payloads and members, and their bad lines."""
    from pyspark.sql import functions as F

    text = spark.read.text(paths)
    parsed = (text.where(~F.col("value").rlike(SKIPPED))
              .select(given_names(text, paths).alias(FILE), F.from_json("value", json_schema(), JSON_OPTIONS)
                      .alias("row")).select(FILE, "row.*"))
    kind = F.when(F.col(CORRUPT).isNull(), row_kind(lambda f: F.col(f).isNotNull()))
    # read once: tallied, then each kind taken from it
    rows = parsed.withColumn(KIND, kind).withColumn(BAD, F.col(CORRUPT).isNotNull()).drop(CORRUPT).cache()
    tally = _tally(rows, set(rows.columns))
    inputs = Inputs(bad_lines=tally.get(("bad", "n"), 0), neither_lines=tally.get((None, "n"), 0))

    def column(field: str) -> Any:  # every field is text: a typed one is cast, null where it is not its type
        return F.col(field).try_cast(TYPED[field]) if field in TYPED else F.col(field)

    return _frames(rows, inputs, tally, column, lambda f, e: text_field(F.col(f), e, f))


def read_parquet(spark: Any, paths: list[str]) -> Inputs:
    """Parquet files: their rows of every kind (by the columns set in each), bytes as bytes or text."""
    from pyspark.sql import functions as F

    df = spark.read.parquet(*paths)
    df = df.select(*(c for c in df.columns if c not in (FILE, KIND, BAD)))  # a row's file is the one read now
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    rows = df.select("*", given_names(df, paths).alias(FILE), F.lit(False).alias(BAD),
                     row_kind(lambda f: F.col(f).isNotNull() if f in types else F.lit(False)).alias(KIND))
    tally = _tally(rows, set(types))
    inputs = Inputs(neither_rows=tally.get((None, "n"), 0))

    def column(field: str) -> Any:
        return F.col(field) if field in types else None

    def read(field: str, encoding: str) -> tuple[Any, Any, Any] | None:
        if field not in types:
            return None
        if types[field] == "binary":
            return bytes_field(F.col(field))
        if types[field] == "string":
            return text_field(F.col(field), encoding, field)
        return other_field(F.col(field), encoding, field, PYTHON_TYPES.get(types[field].split("<")[0],
                                                                           types[field]))

    return _frames(rows, inputs, tally, column, read, others=[c for c in df.columns if c not in _KNOWN])


_KNOWN = {*RECORD_FIELDS, *PAYLOAD_FIELDS, *MEMBER_FIELDS, FILE, KIND, BAD, "_error", "_source", "_line",
          "_order", "timestampType", "headers"}


def _tally(rows: Any, columns: set[str]) -> dict[tuple[str | None, str], int]:
    """One pass over the rows: how many of each kind (``bad``: not JSON objects), and of the records and
    payloads how many set each column they may carry (a column no row sets is left out, as a JSON reader
    inferring the columns would leave it)."""
    from pyspark.sql import functions as F

    counted = [f for f in (*PROVENANCE, "control", *TRANSACTION_FIELDS, *PAYLOAD_NAMES) if f in columns]
    label = F.when(F.col(BAD), F.lit("bad")).otherwise(F.col(KIND))
    found = rows.groupBy(label.alias("k")).agg(F.count(F.lit(1)).alias("n"), *(F.count(f).alias(f) for f in counted))
    return {(r.k, name): r[name] for r in found.collect() for name in ("n", *counted)}


def _frames(rows: Any, inputs: Inputs, tally: dict[tuple[str | None, str], int], column: Callable[[str], Any],
            read: Callable[[str, str], tuple[Any, Any, Any] | None], others: list[str] | None = None) -> Inputs:
    """The frame of each kind the rows hold (none for a kind they do not)."""
    from pyspark.sql import functions as F

    def of(kind: RowKind) -> Any:
        return rows.where(F.col(KIND) == kind) if tally.get((kind, "n")) else None

    def placed(error: Any) -> Any:
        return F.when(error.isNotNull(), F.concat_ws(": ", F.col(FILE), error))

    if (records := of("record")) is not None:
        data, error = row_bytes("record", read)
        keep = [column(f).alias(f) for f in (*PROVENANCE, *TRANSACTION_FIELDS) if tally.get(("record", f))]
        control = F.coalesce(column("control").try_cast("boolean"), F.lit(False)) \
            if tally.get(("record", "control")) else F.lit(False)
        # a record whose text is not bytes keeps its row, its bytes null, as a reader's damage row
        none = F.lit(None).cast("binary")
        inputs.offsets = records.select(*(F.when(error.isNull(), data.get(f, none)).alias(f) for f in ("key", "value")),
                                        *keep,
                                        control.alias("control"), F.col(FILE), placed(error).alias("_error"))
    if (payloads := of("payload")) is not None:
        data, error = row_bytes("payload", read)
        names = [c for c in PAYLOAD_NAMES if tally.get(("payload", c))] if others is None else others
        inputs.blobs = payloads.select(column("type").alias("type"), data["hex"].alias("blob"), *names,
                                       placed(error).alias("_error"))
    if (exchanges := of("exchange")) is not None:
        inputs.exchanges = exchanges.select(*exchange_columns(exchanges))
    if (members := of("member")) is not None:  # the job reads no members; those whose bytes do not read are said
        _, error = row_bytes("member", read)
        inputs.damage = members.where(error.isNotNull()).select(placed(error).alias("_error"))
    return inputs


def exchange_columns(frame: Any) -> list[Any]:
    """The capture source's columns (its ``bodies=json`` form: the bodies as JSON text, when the rows carry
    them so; Parquet of the source's own rows keeps their structs), typed as the source types them."""
    from pyspark.sql import functions as F

    from kafka_meta.spark.sources.capture import SCHEMA

    columns = set(frame.columns)
    kept = []
    for f in SCHEMA.fields:
        if f.name not in columns:
            kept.append(F.lit(None).cast(f.dataType).alias(f.name))
        elif f.name in ("request", "response"):
            kept.append(F.col(f.name))  # JSON text, or the source's structs
        elif f.name == "source" and dict(frame.dtypes)["source"] == "string":
            kept.append(F.from_json("source", SOURCE).alias("source"))
        else:
            kept.append(F.col(f.name).try_cast(f.dataType).alias(f.name))
    return kept
