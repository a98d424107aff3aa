"""What ``kafka-meta analyze`` reads, as Spark DataFrames: every kind of input the project knows
(:mod:`kafka_meta.inputs`: JSON Lines, Parquet, packet captures, broker log segments, directories holding any
of them, each file recognised by its content), plus a Kafka topic through Spark's Kafka source.

Rows of three kinds come out, in any mix, each file's rows sorted by the rule every verb sorts them by
(:func:`kafka_meta.inputs.items.sort_row`, as columns: :mod:`kafka_meta.spark.row_inputs`):

* ``__consumer_offsets`` records: ``key`` and ``value`` (binary in Parquet and Kafka; hex or base64 text in
  JSON Lines, read by :mod:`kafka_meta.payload_text`'s rule, ``value`` null for a tombstone), with
  ``topic``/``partition``/``offset``/``timestamp`` kept when present, ``control`` marking records of control
  batches, ``producerId`` those of transactions and ``transaction`` how each one's transaction ended
  (``committed``, ``aborted``, ``open``); a record whose text is not bytes keeps its row, with its ``_error``;
* captured payloads (JoinGroup/SyncGroup metadata, files of blobs): ``type`` (a kafka_meta type name) and
  the bytes in ``blob`` (from ``hex``, ``base64`` or ``blob``), with the columns naming it kept (``group``,
  ``member``...);
* captured exchanges: the rows of the ``kafka-meta-capture`` data source, or the same columns read from
  JSON Lines (what ``kafka-meta capture`` prints: bodies as JSON text) or Parquet (what this job writes).

Members (``subscription`` rows) are no input of the job: those whose bytes do not read are said, as every
verb says them. Which inputs are what is decided before Spark starts (:func:`plan`), by the registry's
recognition of each file's content (:func:`kafka_meta.inputs.classify`, the one every verb uses), so an
input that cannot be read is said in one line, and the others are still read. Each kind the registry knows
then has one Spark reader here (:data:`READERS`, by the kind's name), whose frames compose with
``decode_offsets`` and ``from_kafka_meta`` and write to Parquet as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_meta.errors import InputError
from kafka_meta.inputs import BY_NAME, CAPTURE, JSONL, PARQUET, SEGMENT, Unreadable, classify
from kafka_meta.log import LogError
from kafka_meta.log.topics import METADATA_TOPIC, OFFSETS_TOPIC
from kafka_meta.spark.input_frames import RECORD_COLUMNS, Inputs
from kafka_meta.spark.row_inputs import read_jsonl, read_parquet

FORMATS = ("auto", *BY_NAME, "kafka")  # --format: each kind of the registry, or a Kafka topic


@dataclass
class Planned:
    """One input as it will be read: a Kafka topic, or its files and partition directories by kind."""

    name: str
    kafka: bool = False
    by_kind: dict[str, list[str]] = field(default_factory=dict)


def plan(names: list[str], fmt: str = "auto") -> tuple[list[Planned], list[Unreadable]]:
    """Each input's sources, without Spark, and what cannot be read. ``fmt`` other than ``auto`` reads every
    (non-Kafka) input as that kind, as given."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    planned: list[Planned] = []
    unreadable: list[Unreadable] = []
    for name in names:
        if name.startswith("kafka://") or fmt == "kafka":
            planned.append(Planned(name, kafka=True))
            continue
        if fmt != "auto":
            if Path(name).exists():
                planned.append(Planned(name, by_kind={fmt: [name]}))
            else:
                unreadable.append(Unreadable(name, "no such file or directory"))
            continue
        sources, problems = classify(name)
        unreadable += problems
        if sources:
            by_kind: dict[str, list[str]] = {}
            for source in sources:
                by_kind.setdefault(source.kind, []).append(str(source.path))
            planned.append(Planned(name, by_kind=by_kind))
    return planned, unreadable


def kafka_address(name: str, bootstrap_servers: str | None = None) -> tuple[str, str]:
    """(bootstrap servers, topic) of a Kafka input: ``kafka://host:port[/topic]`` or ``host:port[/topic]``
    (``--bootstrap-server`` replaces the address), or, with ``--bootstrap-server``, a topic's name (topic names
    have no ``:``); the topic is ``__consumer_offsets`` unless named."""
    address = name[len("kafka://"):] if name.startswith("kafka://") else name
    if ":" not in address.partition("/")[0]:
        if bootstrap_servers is None:
            raise InputError(f"input {name}: a Kafka input is kafka://host:port[/topic], or a topic with "
                             "--bootstrap-server host:port")
        return bootstrap_servers, address or OFFSETS_TOPIC
    servers, _, topic = address.partition("/")
    return bootstrap_servers or servers, topic or OFFSETS_TOPIC


def read_kafka(spark: Any, source: str, bootstrap_servers: str | None = None) -> Inputs:
    """A topic (default ``__consumer_offsets``, see :func:`kafka_address`) from its earliest to its latest offset,
    committed records only, through Spark's Kafka source (:mod:`kafka_meta.spark.kafka_source`; the session
    needs the connector: ``local_session(kafka=True)``)."""
    from kafka_meta.spark.kafka_source import read_topic

    servers, topic = kafka_address(source, bootstrap_servers)
    return Inputs(offsets=read_topic(spark, servers, topic))


def read_captures(spark: Any, paths: list[str]) -> Inputs:
    """Packet captures, one Spark partition per file."""
    from kafka_meta.spark.sources import register

    register(spark)
    return Inputs(exchanges=spark.read.format("kafka-meta-capture").load(paths))


def read_log(spark: Any, paths: list[str], decode: bool = False,
             record_types: tuple[str, ...] | None = None) -> Inputs:
    """Broker log segments (segments, partition or log directories) through the kafka-meta-log source: its
    rows are the Kafka source's, so they go to the offsets input; a damage row's ``_error`` stays the row's
    error through decoding (decode_offsets keeps it). ``decode``: each record decoded by the source as it
    reads it, with ``decode_offsets``' columns (of ``record_types``, when given)."""
    from pyspark.sql import functions as F

    from kafka_meta.spark.offsets import added_columns
    from kafka_meta.spark.sources import register
    from kafka_meta.spark.sources.log import DECODE_OPTION

    register(spark)
    reader = spark.read.format("kafka-meta-log")
    if decode:
        reader = reader.option(DECODE_OPTION, ",".join(record_types) if record_types is not None else "all")
    df = reader.load(paths)
    decoded = added_columns(record_types) if decode else []
    # the cluster's TopicRecords (frame version 1, apiKey 2: the value's first two bytes) name the topics that
    # KIP-848, share and streams group records give by id; one per topic, picked out on the executors from the
    # metadata log's own segments (found on the driver: reading every segment for them would be a pass over
    # the whole of __consumer_offsets)
    topics = None
    metadata = metadata_segments(paths)
    if metadata:
        topics = (spark.read.format("kafka-meta-log").load(metadata)
                  .where(F.substring("value", 1, 2) == F.lit(bytearray(b"\x01\x02"))).select("topic", "key", "value"))
    # the topics holding __consumer_offsets records, told on the driver as every reader tells them (by name, or a
    # user topic by its first records: kafka_meta.inputs.topics); every other topic's records are no offsets records
    held = sorted(offsets_topics(paths))
    df = df.where(F.col("topic").isNull() | (F.col("topic").isin(*held) if held else F.lit(False)))
    # each record's place as the reader without Spark gives it (kafka_meta.inputs.segment): its partition's log
    where = F.when(F.col("topic").isNotNull(), F.concat_ws("-", "topic", F.col("partition").cast("string")))
    return Inputs(topics=topics, offsets=df.select(*RECORD_COLUMNS, "_error", where.alias("_file"),
                                                   *decoded))


def offsets_topics(paths: list[str]) -> set[str]:
    """The topics among the segments of ``paths`` that hold ``__consumer_offsets`` records."""
    from kafka_meta.inputs.topics import topics_holding_offsets
    from kafka_meta.spark.sources.log import segments_of

    try:
        return topics_holding_offsets(segments_of(paths))
    except LogError:
        return set()


def metadata_segments(paths: list[str]) -> list[str]:
    """The ``__cluster_metadata`` segments with records among the segments of ``paths`` (none when there are no
    segments: the log source says so when it reads them)."""
    from kafka_meta.spark.sources.log import segments_of

    try:
        return [s.path for s in segments_of(paths) if s.topic == METADATA_TOPIC and s.size > 0]
    except LogError:
        return []


# the Spark reader of each kind of the registry (kafka_meta.inputs.kinds), by the kind's name: what the
# registry recognises is read here, and a kind without a reader here is said, not skipped
READERS = {JSONL: read_jsonl, PARQUET: read_parquet, CAPTURE: read_captures, SEGMENT: read_log}


def spark_reader(kind: str) -> Any:
    """The Spark reader of one kind of the registry."""
    if kind not in READERS:
        raise InputError(f"{BY_NAME[kind].what if kind in BY_NAME else kind!r}: no Spark reader for this kind of "
                         "input (kafka_meta.spark.inputs.READERS)")
    return READERS[kind]


def read_inputs(spark: Any, names: list[str], fmt: str = "auto", bootstrap_servers: str | None = None,
                planned: tuple[list[Planned], list[Unreadable]] | None = None, decode: bool = False,
                record_types: tuple[str, ...] | None = None) -> Inputs:
    """Several inputs of any kinds as one: each read by its kind's reader, its offsets records tagged with the
    input they came from (``_source``, the evidence a finding cites), rows of one kind unioned by name.
    ``decode``: the offsets records come decoded (``decode_offsets``' columns, of ``record_types`` when
    given), by the log source as it reads and by ``decode_offsets`` for the other kinds."""
    from pyspark.sql import functions as F

    from kafka_meta.spark.offsets import decode_offsets

    def decoded(inputs: Inputs) -> Inputs:
        if decode and inputs.offsets is not None:
            control = "control" if "control" in inputs.offsets.columns else None
            inputs.offsets = decode_offsets(inputs.offsets, control=control, record_types=record_types)
        return inputs

    inputs_planned, unreadable = planned or plan(names, fmt)
    merged = Inputs(unreadable=list(unreadable))
    for item in inputs_planned:
        if item.kafka:
            parts = [decoded(read_kafka(spark, item.name, bootstrap_servers))]
        else:  # a log is decoded by its source as it is read; the other kinds by decode_offsets
            parts = [read_log(spark, paths, decode, record_types) if kind == SEGMENT
                     else decoded(spark_reader(kind)(spark, paths)) for kind, paths in item.by_kind.items()]
        for inputs in parts:
            if inputs.offsets is not None:
                inputs.offsets = inputs.offsets.withColumn("_source", F.lit(item.name))
            if inputs.blobs is not None and "_source" not in inputs.blobs.columns:  # a bad payload says its input
                inputs.blobs = inputs.blobs.withColumn("_source", F.lit(item.name))
            for kind in ("offsets", "blobs", "exchanges", "topics", "damage"):
                frame, more = getattr(merged, kind), getattr(inputs, kind)
                if more is not None:
                    setattr(merged, kind, more if frame is None else _union(frame, more))
            merged.bad_lines += inputs.bad_lines
            merged.neither_lines += inputs.neither_lines
            merged.neither_rows += inputs.neither_rows
            merged.unreadable += inputs.unreadable
    return merged


def _union(first: Any, second: Any) -> Any:
    """Rows of two inputs of one kind; a ``timestamp`` given as epoch milliseconds by one (JSON Lines) and as
    Spark's TIMESTAMP by the other (Kafka's source, log segments) becomes a TIMESTAMP in both."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import NumericType, TimestampType

    def kind(frame: Any) -> Any:
        return frame.schema["timestamp"].dataType if "timestamp" in frame.columns else None

    if isinstance(kind(first), NumericType) and isinstance(kind(second), TimestampType):
        first = first.withColumn("timestamp", F.timestamp_millis(F.col("timestamp").cast("long")))
    if isinstance(kind(second), NumericType) and isinstance(kind(first), TimestampType):
        second = second.withColumn("timestamp", F.timestamp_millis(F.col("timestamp").cast("long")))
    first, second = _same_bodies(first, second)
    return first.unionByName(second, allowMissingColumns=True)


def _same_bodies(first: Any, second: Any) -> tuple[Any, Any]:
    """Exchanges of two inputs with their bodies in one form: the capture source's structs beside JSON Lines'
    JSON text (``kafka-meta capture``'s output) become the text, as the source's ``bodies=json`` writes it."""
    from pyspark.sql.types import StringType, StructType

    def form(frame: Any) -> Any:
        return type(frame.schema["request"].dataType) if "request" in frame.columns else None

    if {form(first), form(second)} != {StringType, StructType}:
        return first, second
    return (json_bodies(first), second) if form(first) is StructType else (first, json_bodies(second))


def json_bodies(exchanges: Any) -> Any:
    """The capture source's rows with their body structs as JSON text (their protocol layer's values, as
    ``kafka-meta capture`` prints them)."""
    import json

    from pyspark.sql import functions as F

    from kafka_meta.capture.jsonable import json_default
    from kafka_meta.spark.bodies import body_value

    @F.udf("string")
    def text(body: Any) -> str | None:
        value = body_value(None if body is None else body.asDict(recursive=True))
        return None if value is None else json.dumps(value, ensure_ascii=False, default=json_default)

    return exchanges.withColumn("request", text("request")).withColumn("response", text("response"))
