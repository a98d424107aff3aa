"""Vectors from a recording's log directory: the ``__consumer_offsets`` records Kafka's group coordinator wrote
(every record type, tombstones, the transaction markers of the transaction coordinator) and the
``__cluster_metadata`` records kafka_meta declares, framed as the log holds them and bare.

Each record is read by kafka_meta's own readers (``kafka_meta.log``, ``kafka_meta.offsets``,
``kafka_meta.metadata_log``); a record they cannot read is reported, never written as a vector.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from kafka_meta.errors import DecodeError
from kafka_meta.log import read_log
from kafka_meta.metadata_log import UnknownMetadataRecord, decode_metadata_record, read_frame
from kafka_meta.offsets import ControlRecord, CoordinatorRecord, decode_record
from labvectors.candidate import Candidate, Unreadable, shape

OFFSETS_TOPIC = "__consumer_offsets"
METADATA_TOPIC = "__cluster_metadata"


def _where(row: dict) -> str:
    return f"{row['topic']}-{row['partition']} offset {row['offset']}"


def _varint_size(value: int) -> int:
    size = 1
    while value >= 0x80:
        value >>= 7
        size += 1
    return size


def offsets_records(logs: Path, source: str, scenario: str) -> Iterator[Candidate]:
    """Every record of the ``__consumer_offsets`` partitions under ``logs``; a transaction marker gives two
    vectors, its key (``ControlRecordKey``) and its value (``EndTxnMarker``)."""
    for row in read_log(logs):
        if row["topic"] != OFFSETS_TOPIC:
            continue
        where = _where(row)
        if row["_error"]:
            raise Unreadable(f"{scenario} {where}: {row['_error']}")
        try:
            record = decode_record(row["key"], row["value"], control=row["control"])
        except DecodeError as e:
            raise Unreadable(f"{scenario} {where}: {e}") from None
        if isinstance(record, ControlRecord):
            yield from _marker(row, record, source, scenario, where)
        elif isinstance(record, CoordinatorRecord) and not record.read_forward and not record.retired:
            key_version = int.from_bytes(row["key"][:2], "big", signed=True)
            value = None if record.value is None else record.value.to_json_dict(every_field=True)
            what = "tombstone" if value is None else f"value v{record.value_version}"
            yield Candidate(
                "offsets-topic", record.record_name, record.value_version, row["value"],
                f"{record.record_name} record (type {key_version}) with {what}, as the group coordinator wrote it to "
                f"{where} ({scenario} recording). Case: {scenario} {record.record_name} {what}",
                source, key=row["key"], key_version=key_version,
                shape=("tombstone",) if value is None else shape(record.record_name, value))
        else:
            raise Unreadable(f"{scenario} {where}: {record!r:.300}")


def _marker(row: dict, record: ControlRecord, source: str, scenario: str, where: str) -> Iterator[Candidate]:
    marker = record.marker
    yield Candidate("control", "ControlRecordKey", record.key.version, row["key"],
                    f"The key of the {marker} transaction marker at {where} ({scenario} recording). "
                    f"Case: {scenario} {marker} marker key", source, shape=(marker,))
    if record.value is not None:
        yield Candidate("control", "EndTxnMarker", record.value.version, row["value"],
                        f"The value of the {marker} transaction marker at {where} ({scenario} recording). "
                        f"Case: {scenario} {marker} marker", source,
                        shape=(marker, *shape("EndTxnMarker", record.value.to_json_dict(every_field=True))))


def metadata_records(logs: Path, source: str, scenario: str) -> Iterator[Candidate]:
    """The records of ``__cluster_metadata`` whose type kafka_meta declares, framed (``MetadataRecord``, as
    the shared vectors name it: ``MetadataRecordFrame/<type>``) and their bodies alone."""
    for row in read_log(logs):
        if row["topic"] != METADATA_TOPIC or row["control"]:
            continue
        where = _where(row)
        if row["_error"]:
            raise Unreadable(f"{scenario} {where}: {row['_error']}")
        try:
            record = decode_metadata_record(row["value"])
        except DecodeError as e:
            raise Unreadable(f"{scenario} {where}: {e}") from None
        if isinstance(record, UnknownMetadataRecord):
            continue  # a record type kafka_meta does not declare (brokers, partitions, configs...)
        name, value = record.record_type, row["value"]
        frame = read_frame(value)
        body = value[sum(_varint_size(v) for v in frame):]
        fields = record.record.to_json_dict(every_field=True)
        yield Candidate("cluster-metadata", f"MetadataRecordFrame/{name}", frame.record_version, value,
                        f"A {name} v{frame.record_version} framed as in {where} (frame version "
                        f"{frame.frame_version}, apiKey {frame.api_key}; {scenario} recording). "
                        f"Case: {scenario} framed {name}", source,
                        extra={"apiKey": frame.api_key, "frameVersion": frame.frame_version}, shape=shape(name, fields))
        yield Candidate("cluster-metadata", name, frame.record_version, body,
                        f"The body of the {name} v{frame.record_version} at {where} ({scenario} recording). "
                        f"Case: {scenario} {name}", source, shape=shape(name, fields))
