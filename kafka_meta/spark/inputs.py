"""What ``kafka-meta analyze`` reads: JSON Lines, Parquet, broker log segments, or a Kafka topic through
Spark's Kafka source.

Two kinds of rows are recognised, in any mix:

* ``__consumer_offsets`` records: ``key`` and ``value`` (binary in Parquet and Kafka; hex or base64 text in
  JSON Lines, ``value`` null for a tombstone), with ``topic``/``partition``/``offset``/``timestamp`` kept
  when present and ``control`` marking records of control batches;
* captured payloads (JoinGroup/SyncGroup metadata, files of blobs): ``type`` (a kafka_meta type name) and
  the bytes in ``blob`` (Parquet) or ``hex``/``base64`` (JSON Lines), with any other columns kept
  (``group``, ``member``...);
* exchanges of packet captures (pcap/pcapng files, plain or gzip, recognised by their magic numbers): the
  rows of the ``kafka-meta-capture`` data source.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka_meta.errors import InputError
from kafka_meta.log import OTHER_INTERNAL_TOPICS
from kafka_meta.log.files import looks_like_log
from kafka_meta.sniff import binary_offset, head

HEX = "^([0-9a-fA-F]{2})*$"
PROVENANCE = ("topic", "partition", "offset", "timestamp")
FORMATS = ("auto", "jsonl", "parquet", "kafka", "capture", "log")


@dataclass
class Inputs:
    offsets: Any = None  # DataFrame: key, value (binary), provenance columns, control
    blobs: Any = None  # DataFrame: type, blob (binary), other columns
    exchanges: Any = None  # DataFrame: the kafka-meta-capture data source's rows
    topics: Any = None  # DataFrame: the __cluster_metadata records of a log directory that name topics
    unreadable: int = 0  # input lines that are not JSON objects


def detect_format(source: str) -> str:
    if source.startswith("kafka://"):
        return "kafka"
    from kafka_meta.capture import capture_kind

    path = Path(source)
    if looks_like_log(path):
        return "log"
    if path.is_dir():
        if any(path.rglob("*.parquet")):
            return "parquet"
        return "capture" if any(capture_kind(f) for f in path.rglob("*") if f.is_file()) else "jsonl"
    if capture_kind(path):
        return "capture"
    return "parquet" if path.suffix == ".parquet" else "jsonl"


def _first_file(path: Path, pattern: str = "*") -> Path | None:
    """A directory's first data file in the order Spark lists them (hidden and ``_`` files are Spark's own)."""
    files = sorted(f for f in path.rglob(pattern) if f.is_file() and not f.name.startswith((".", "_")))
    return files[0] if files else None


def check_source(source: str, fmt: str = "auto") -> str:
    """The format ``source`` will be read as, after checking, without Spark, that it can be: it exists, is
    not empty, and starts as that format says (Parquet's ``PAR1``, JSON Lines' text). Spark's own errors
    for these are long and arrive only after it has started, so the job checks first."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    fmt = detect_format(source) if fmt == "auto" else fmt
    if fmt == "kafka":
        return fmt
    path = Path(source)
    if not path.exists():
        raise InputError(f"input {source}: no such file or directory")
    if fmt in ("capture", "log"):  # their readers report damage file by file, as rows
        return fmt
    first = _first_file(path, "*.parquet" if fmt == "parquet" else "*") if path.is_dir() else path
    if first is None:
        raise InputError(f"input {source}: an empty directory")
    start = head(first)
    if fmt == "parquet":
        if start[:4] != b"PAR1":
            raise InputError(f"input {first}: not a Parquet file (it does not start with PAR1)")
        return fmt
    if not start.strip():
        raise InputError(f"input {first}: empty, no JSON Lines to read")
    text_end = binary_offset(start)
    if text_end is not None:
        raise InputError(f"input {first}: binary data at byte {text_end}, not JSON Lines (nor a Parquet file)")
    whole = first.stat().st_size <= len(start)
    if whole and not path.is_dir() and not any(line.lstrip().startswith(b"{") for line in start.splitlines()):
        raise InputError(f"input {first}: no line is a JSON object, so there is nothing to read as JSON Lines")
    return fmt


def _text_bytes(column: Any) -> Any:
    """Hex text when it is hex, base64 otherwise; null stays null."""
    from pyspark.sql import functions as F

    return F.when(column.isNull(), None).when(column.rlike(HEX), F.unhex(column)).otherwise(F.unbase64(column))


def _split(df: Any, key_bytes: Any, value_bytes: Any, blob_bytes: Any) -> Inputs:
    from pyspark.sql import functions as F

    columns = set(df.columns)
    inputs = Inputs()
    if "key" in columns:
        keep = [F.col(c) for c in PROVENANCE if c in columns]
        control = F.col("control").cast("boolean") if "control" in columns else F.lit(False)
        inputs.offsets = df.where(F.col("key").isNotNull()).select(
            key_bytes.alias("key"), value_bytes.alias("value"), *keep, F.coalesce(control, F.lit(False)).alias(
                "control"))
    if "type" in columns:
        others = [c for c in df.columns if c not in ("type", "hex", "base64", "blob", "key", "value", "control",
                                                       "_corrupt_record")]
        inputs.blobs = df.where(F.col("type").isNotNull()).select("type", blob_bytes.alias("blob"), *others)
    return inputs


def _check_shape(source: str, columns: set[str], what: str) -> None:
    if not columns & {"key", "type"}:
        raise InputError(f"input {source}: no {what[:-1]} has a 'key' (a __consumer_offsets record) or a 'type' (a "
                         f"captured payload); the {what} have {', '.join(sorted(columns)) or 'no columns'}")


def read_jsonl(spark: Any, source: str) -> Inputs:
    from pyspark.sql import functions as F

    df = spark.read.option("mode", "PERMISSIVE").json(source)
    columns = set(df.columns)
    if columns <= {"_corrupt_record"}:
        raise InputError(f"input {source}: no line is a JSON object, so there is nothing to read as JSON Lines")
    _check_shape(source, columns - {"_corrupt_record"}, "lines")

    def text(name: str) -> Any:
        return F.col(name).cast("string") if name in columns else F.lit(None).cast("string")

    blob = F.coalesce(F.unhex(text("hex")), F.unbase64(text("base64")))
    inputs = _split(df, _text_bytes(text("key")), _text_bytes(text("value")), blob)
    if "_corrupt_record" in columns:
        inputs.unreadable = df.where(F.col("_corrupt_record").isNotNull()).count()
    return inputs


def read_parquet(spark: Any, source: str) -> Inputs:
    from pyspark.sql import functions as F

    df = spark.read.parquet(source)
    _check_shape(source, set(df.columns), "rows")
    if "type" in df.columns and not {"blob", "value"} & set(df.columns):
        raise InputError(f"input {source}: rows with a 'type' need their bytes in a 'blob' (or 'value') column")
    blob = F.col("blob") if "blob" in df.columns else F.col("value")
    return _split(df, F.col("key") if "key" in df.columns else None, F.col("value") if "value" in df.columns
                  else F.lit(None).cast("binary"), blob)


def read_kafka(spark: Any, source: str, bootstrap_servers: str | None = None) -> Inputs:
    """``kafka://host:port[/topic]``: the topic (default ``__consumer_offsets``) from the earliest offset,
    through Spark's Kafka source (the spark-sql-kafka package must be on Spark's classpath)."""
    address = source[len("kafka://"):]
    servers, _, topic = address.partition("/")
    df = (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap_servers or servers)
          .option("subscribe", topic or "__consumer_offsets").option("startingOffsets", "earliest")
          .option("endingOffsets", "latest").load())
    return read_kafka_frame(df)


def read_kafka_frame(df: Any) -> Inputs:
    """A DataFrame with the Kafka source's columns (key, value, topic, partition, offset, timestamp...)."""
    from pyspark.sql import functions as F

    keep = [c for c in PROVENANCE if c in df.columns]
    return Inputs(offsets=df.select("key", "value", *keep, F.lit(False).alias("control")))


def read_captures(spark: Any, source: str) -> Inputs:
    """Packet captures (a file or a directory of them), one Spark partition per file."""
    from kafka_meta.spark.sources import register

    register(spark)
    return Inputs(exchanges=spark.read.format("kafka-meta-capture").load(source))


def read_log(spark: Any, source: str) -> Inputs:
    """Broker log segments (a segment, a partition or a log directory) through the kafka-meta-log source:
    its rows are the Kafka source's, so they go to the offsets input; damage rows carry ``_damage``."""
    from pyspark.sql import functions as F

    from kafka_meta.spark.sources import register

    register(spark)
    df = spark.read.format("kafka-meta-log").load(source)
    # the cluster's TopicRecords (frame version 1, apiKey 2: the value's first two bytes) name the topics that
    # KIP-848, share and streams group records give by id; one per topic, picked out on the executors
    topics = df.where((F.col("topic") == "__cluster_metadata")
                      & (F.substring("value", 1, 2) == F.lit(bytearray(b"\x01\x02")))).select("topic", "key", "value")
    df = df.where(F.col("topic").isNull() | ~F.col("topic").isin(*OTHER_INTERNAL_TOPICS))  # not offsets records
    return Inputs(topics=topics, offsets=df.select("key", "value", *PROVENANCE, "control", "producerId",
                                    F.col("_error").alias("_damage")))


def read_inputs(spark: Any, sources: list[str], fmt: str = "auto", bootstrap_servers: str | None = None) -> Inputs:
    """Several inputs of any kinds as one: each read as :func:`read_input` reads it, its offsets records tagged
    with where they came from (``_source``, the evidence a finding cites), and rows of one kind unioned by name."""
    from pyspark.sql import functions as F

    merged = Inputs()
    for source in sources:
        inputs = read_input(spark, source, fmt, bootstrap_servers)
        if inputs.offsets is not None:
            inputs.offsets = inputs.offsets.withColumn("_source", F.lit(source))
        for kind in ("offsets", "blobs", "exchanges", "topics"):
            frame, more = getattr(merged, kind), getattr(inputs, kind)
            if more is not None:
                setattr(merged, kind, more if frame is None else _union(frame, more))
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
    return first.unionByName(second, allowMissingColumns=True)


def read_input(spark: Any, source: str, fmt: str = "auto", bootstrap_servers: str | None = None) -> Inputs:
    fmt = check_source(source, fmt)
    if fmt == "kafka":
        return read_kafka(spark, source if source.startswith("kafka://") else f"kafka://{source}", bootstrap_servers)
    if fmt == "capture":
        return read_captures(spark, source)
    if fmt == "log":
        return read_log(spark, source)
    return read_parquet(spark, source) if fmt == "parquet" else read_jsonl(spark, source)
