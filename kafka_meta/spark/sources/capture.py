"""``spark.read.format("kafka-meta-capture").load(paths)``: the Kafka exchanges of packet captures as rows.

One partition per capture file (a directory's files are its captures), so a directory of captures decodes
in parallel; one row per exchange, with the exchange's scalar fields as typed columns and the decoded
``request`` / ``response`` bodies as structs (member metadata nested): one field per api the protocol
layer decodes, each the union of that message's versions, all derived from the specs by
:mod:`kafka_meta.spark.bodies`; ``df.select("request.JoinGroup.protocols")`` reads JoinGroup requests.

Option ``bodies``: ``struct`` (the default) or ``json``, the bodies as JSON text exactly as
``kafka-meta capture`` prints them (bytes as base64, uuids in Kafka's text form): one string type for
any traffic, for tools that want the text.

Damage never fails the job: a file that is not a capture gives one row with ``_error``; damage found inside
a capture (a gap, a bad block) gives a row with ``_error`` naming the stage and position, beside the rows of
every exchange read around it; a body that does not fit its struct (hostile bytes the decoder accepted)
leaves that column null and says where in ``_error``.

Rows reach Spark as Arrow record batches (:func:`row_batches`), not Python tuples: Spark's per-row
conversion would walk the hundreds of mostly-null body fields of every row.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import cache
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, InputPartition
from pyspark.sql.types import (
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from kafka_meta.inputs import CAPTURE, classify
from kafka_meta.spark.sources.base import KafkaMetaSource, option_paths

NAME = "kafka-meta-capture"

SCHEMA = StructType([
    StructField("ts", DoubleType()),
    StructField("responseTs", DoubleType()),
    StructField("latencyMs", DoubleType()),
    StructField("client", StringType()),
    StructField("broker", StringType()),
    StructField("stream", IntegerType()),
    StructField("apiKey", IntegerType()),
    StructField("apiName", StringType()),
    StructField("apiVersion", IntegerType()),
    StructField("correlationId", IntegerType()),
    StructField("clientId", StringType()),
    StructField("groupId", StringType()),
    StructField("memberId", StringType()),
    StructField("generationId", IntegerType()),
    StructField("errorCode", IntegerType()),
    StructField("request", StringType()),
    StructField("response", StringType()),
    StructField("_error", StringType()),
    StructField("source", StructType([StructField("file", StringType()), StructField("frame", LongType())])),
])
SCALARS = [f.name for f in SCHEMA.fields if f.name not in ("request", "response", "_error", "source")]
BODIES = ("struct", "json")


@cache
def struct_schema() -> StructType:
    """:data:`SCHEMA` with ``request`` and ``response`` as the structs derived from the specs."""
    from kafka_meta.spark.bodies import body_spark_type

    kinds = {"request": "Request", "response": "Response"}
    return StructType([StructField(f.name, body_spark_type(kinds[f.name])) if f.name in kinds else f
                       for f in SCHEMA.fields])


def bodies_option(options: Any) -> str:
    """The ``bodies`` option, checked (Spark's options are case-insensitive, so is its value)."""
    value = (options.get("bodies") or "struct").strip().lower()
    if value not in BODIES:
        raise ValueError(f"{NAME}: option bodies={options.get('bodies')!r}: give one of {', '.join(BODIES)}")
    return value


def capture_files(paths: list[str]) -> list[str]:
    """The files named, and the captures found in the directories named (recognised by content, as every
    input is: kafka_meta.inputs); a file named outright is read even when it is no capture, and its row says
    so."""
    files: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            sources, _ = classify(path)
            files += [str(source.path) for source in sources if source.kind == CAPTURE]
        else:
            files.append(path)
    return files


def exchange_rows(path: str, ports: set[int] | None = None, bodies: str = "struct") -> Iterator[tuple]:
    """The rows of one capture file: one per exchange, one per problem found, one if it is no capture."""
    from kafka_meta.capture import CaptureError, Problem, iter_capture

    body_columns = json_bodies if bodies == "json" else struct_bodies
    blank = (None,) * len(SCALARS)
    try:
        for item in iter_capture(path, ports):
            if isinstance(item, Problem):
                yield (*blank, None, None, str(item), (path, item.frame))
                continue
            d = item.to_dict()
            request, response, error = body_columns(d)
            yield (*(d[name] for name in SCALARS), request, response, error, (path, d["source"]["frame"]))
    except CaptureError as exc:
        yield (*blank, None, None, str(exc), (path, None))


def json_bodies(d: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    from kafka_meta.capture.jsonable import json_default

    request = None if d["request"] is None else json.dumps(d["request"], ensure_ascii=False, default=json_default)
    response = None if d["response"] is None else json.dumps(d["response"], ensure_ascii=False,
                                                              default=json_default)
    return request, response, d["_error"]


def struct_bodies(d: dict[str, Any]) -> tuple[tuple | None, tuple | None, str | None]:
    """The bodies as struct rows; a body that does not fit its type is null, and ``_error`` says where."""
    from kafka_meta.spark.bodies import UnfitValue, body_rows

    errors = [d["_error"]] if d["_error"] else []
    columns: list[tuple | None] = []
    for kind, side in (("Request", "request"), ("Response", "response")):
        try:
            columns.append(body_rows(kind).row(d["apiName"], d[side]))
        except UnfitValue as exc:
            columns.append(None)
            errors.append(f"{side} left out, it does not fit its struct: {exc.where(side)}")
    return columns[0], columns[1], "; ".join(errors) if errors else None


ROWS_PER_BATCH = 2048


@cache
def arrow_schema(bodies: str) -> pa.Schema:
    """The rows' Arrow schema, by Spark's own mapping of the source's schema (so Spark takes the batches
    as they are)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(SCHEMA if bodies == "json" else struct_schema())


def row_batches(rows: Iterator[tuple], schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """Rows as Arrow record batches. Spark's per-row conversion walks every field of the schema for every
    row; the body structs have hundreds of fields, nearly all null, which Arrow's own conversion of whole
    columns fills at a fraction of the cost (bench/capture_structs_bench.py)."""
    batch: list[tuple] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= ROWS_PER_BATCH:
            yield _batch(batch, schema)
            batch = []
    if batch:
        yield _batch(batch, schema)


def _batch(rows: list[tuple], schema: pa.Schema) -> pa.RecordBatch:
    try:
        return pa.RecordBatch.from_arrays([_column(column, field.type)
                                           for column, field in zip(zip(*rows, strict=True), schema, strict=True)],
                                          schema=schema)
    except ARROW_REFUSALS:  # not expected (the bodies are checked before): find the value, keep the rows
        return pa.concat_batches([_one_row(row, schema) for row in rows])


def _column(values: tuple, t: pa.DataType) -> pa.Array:
    """One column of a batch. A body struct is assembled from its fields' columns: a batch's bodies
    belong to a few apis, so most fields are all null (``pa.nulls`` costs nothing), where Arrow's
    conversion of whole rows would visit every field of every row."""
    if not pa.types.is_struct(t) or len(t) < WIDE:
        return pa.array(values, type=t)
    n = len(values)
    children = []
    for i, field in enumerate(t):
        column = [None if v is None else v[i] for v in values]
        children.append(pa.nulls(n, field.type) if column.count(None) == n else pa.array(column, type=field.type))
    return pa.StructArray.from_arrays(children, fields=list(t), mask=pa.array([v is None for v in values]))


WIDE = 8  # structs with this many fields or more are assembled column by column


ARROW_REFUSALS = (pa.ArrowException, TypeError, ValueError, OverflowError)


def _one_row(row: tuple, schema: pa.Schema) -> pa.RecordBatch:
    """One row, each value Arrow refuses left null and named in ``_error``."""
    arrays, refused = [], []
    for value, field in zip(row, schema, strict=True):
        try:
            arrays.append(pa.array([value], type=field.type))
        except ARROW_REFUSALS as exc:
            arrays.append(pa.nulls(1, field.type))
            refused.append(f"{field.name} left out: {exc}")
    if refused:
        at = schema.names.index("_error")
        arrays[at] = pa.array(["; ".join(([row[at]] if row[at] else []) + refused)], pa.string())
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


class CaptureReader(DataSourceReader):
    def __init__(self, options: dict[str, str]) -> None:
        self.files = capture_files(option_paths(options))
        ports = options.get("ports")
        self.ports = {int(p) for p in ports.split(",") if p.strip()} if ports else None
        self.bodies = bodies_option(options)

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(path) for path in self.files]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        yield from row_batches(exchange_rows(partition.value, self.ports, self.bodies), arrow_schema(self.bodies))


class CaptureDataSource(KafkaMetaSource):
    """Options: ``ports`` (comma-separated broker ports; default: Kafka found on any port), ``bodies``
    (``struct``, the default, or ``json``)."""

    NAME, SCHEMA, READER = NAME, SCHEMA, CaptureReader

    def schema(self) -> StructType:
        return SCHEMA if bodies_option(self.options) == "json" else struct_schema()
