"""``spark.read.format("kafka-meta-capture").load(paths)``: the Kafka exchanges of packet captures as rows.

One partition per capture file (a directory's files are its captures), so a directory of captures decodes
in parallel; one row per exchange, with the exchange's scalar fields as typed columns and the decoded
``request`` / ``response`` bodies (member metadata nested) as JSON text in Kafka's field names, bytes as
base64, uuids in Kafka's text form: exactly what ``kafka-meta capture`` prints.

Why JSON text and not structs: the bodies of the eighty-odd apis differ per api and version, and the nested
member metadata differs per protocol (consumer subscriptions, sticky user data, Streams SubscriptionInfo);
one struct type holding all of them would be a schema of thousands of mostly-null fields that changes when
an api gains a version. JSON keeps rows in = rows out for any traffic, and the api one cares about becomes a
struct with ``from_json(request, schema)`` or is queried in place with ``get_json_object``.

Damage never fails the job: a file that is not a capture gives one row with ``_error``; damage found inside
a capture (a gap, a bad block) gives a row with ``_error`` naming the stage and position, beside the rows of
every exchange read around it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

from pyspark.sql.datasource import DataSourceReader, InputPartition
from pyspark.sql.types import (
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from kafka_meta.spark.sources.base import KafkaMetaSource

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


def capture_files(paths: list[str]) -> list[str]:
    """The files named, and the files under the directories named (sorted; hidden files skipped)."""
    files: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
                files.extend(os.path.join(root, n) for n in sorted(names) if not n.startswith((".", "_")))
        else:
            files.append(path)
    return files


def option_paths(options: dict[str, str]) -> list[str]:
    """``load(path)`` passes ``path``; ``load([a, b])`` passes ``paths`` as a JSON array."""
    paths: list[str] = []
    if options.get("paths"):
        paths += json.loads(options["paths"])
    if options.get("path"):
        paths.append(options["path"])
    return [os.path.abspath(p[len("file:"):] if p.startswith("file:") else p) for p in paths]


def exchange_rows(path: str, ports: set[int] | None = None) -> Iterator[tuple]:
    """The rows of one capture file: one per exchange, one per problem found, one if it is no capture."""
    from kafka_meta.capture import CaptureError, Problem, iter_capture
    from kafka_meta.capture.jsonable import json_default

    blank = (None,) * len(SCALARS)
    try:
        for item in iter_capture(path, ports):
            if isinstance(item, Problem):
                yield (*blank, None, None, str(item), (path, item.frame))
                continue
            d = item.to_dict()
            request = None if d["request"] is None else json.dumps(d["request"], ensure_ascii=False,
                                                                   default=json_default)
            response = None if d["response"] is None else json.dumps(d["response"], ensure_ascii=False,
                                                                     default=json_default)
            yield (*(d[name] for name in SCALARS), request, response, d["_error"], (path, d["source"]["frame"]))
    except CaptureError as exc:
        yield (*blank, None, None, str(exc), (path, None))


class CaptureReader(DataSourceReader):
    def __init__(self, options: dict[str, str]) -> None:
        self.files = capture_files(option_paths(options))
        ports = options.get("ports")
        self.ports = {int(p) for p in ports.split(",") if p.strip()} if ports else None

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(path) for path in self.files]

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        yield from exchange_rows(partition.value, self.ports)


class CaptureDataSource(KafkaMetaSource):
    """Options: ``ports`` (comma-separated broker ports; default: Kafka found on any port)."""

    NAME, SCHEMA, READER = NAME, SCHEMA, CaptureReader
