"""Kafka's DumpLogSegments is the reference for the broker's segments: `kafka-meta log --decode` gives, record
for record, what Kafka's own tool prints for every recording's `__consumer_offsets` and `__cluster_metadata`
segments (the committed recordings under fixtures/lab/ and one recorded in this session). Of the metadata log,
every record's type, version and contents (every metadata record type is declared), and its control records,
held to Kafka's specs of them as they lie in the lab's kafka-metadata and kafka-clients jars.

For each record, kafka_meta's JSON line is turned into what DumpLogSegments would print for it
(`expected_key`, `expected_payload`) by the rules below, each one a place where the two representations
legitimately differ, and then compared for equality with what Kafka printed. Every rule says why it holds.
The first rule, under all the others, is `kafka_json.kafka_view`: kafka_meta prints every field of every
version, Kafka's generated JsonConverter only those of the record's version (and no tagged field holding its
default, no unknown tagged field); the view drops exactly those, using Kafka's own spec of the message, and
fails where a dropped field does not hold its default. Where they disagree, kafka_meta is wrong until shown
otherwise.
"""

from __future__ import annotations

import base64
import io
import json
import uuid
import zipfile
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import need_shared
from kafka_json import NotKafkas, kafka_spec, kafka_view, upper_snake
from lab_recordings import committed_params, fresh_recording, metadata_segments, offsets_segments
from test_lab_metadata_records import control_mismatch, jar_specs, record_mismatch

import kafka_meta as km
from kafka_meta.cli.main import main
from kafka_meta.log import Batch, SegmentDamage, read_batches, read_log
from kafka_meta.metadata_log import topic_names
from kafka_meta.spec import load_spec_text
from kafka_meta.spec.jsonc import loads
from kafka_meta.spec.model import MessageSpec

pytestmark = pytest.mark.kafka

RECORDINGS = committed_params()
DELETE = "<DELETE>"  # DumpLogSegments' payload for a tombstone
CONSUMER_PROTOCOL = {"subscription": "ConsumerProtocolSubscription", "assignment": "ConsumerProtocolAssignment"}
SHOWN = 15  # mismatches listed in a failure
LOG_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "log" / "kafka-logs"


@pytest.fixture(scope="module")
def fresh(lab, kafka_broker, tmp_path_factory) -> Path:
    return fresh_recording(lab, kafka_broker, tmp_path_factory)


class Dumps:
    """labkit.dumplog with its runs shared: DumpLogSegments starts a JVM per run (about 2 s), so every segment
    the tests will ask about is dumped in one run per decoder, and each later question is answered from it."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.done: dict[tuple[str, str], Any] = {}

    def dump(self, files: list[Path], decoder: str = "offsets") -> list[Any]:
        missing = [f for f in files if (str(Path(f).resolve()), decoder) not in self.done]
        if missing:
            for segment, dumped in zip(missing, self.module.dump(missing, decoder), strict=True):
                self.done[(str(Path(segment).resolve()), decoder)] = dumped
        return [self.done[(str(Path(f).resolve()), decoder)] for f in files]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.module, name)


@pytest.fixture(scope="module")
def dumplog(lab):
    import labkit.dumplog

    dumps = Dumps(labkit.dumplog)
    recordings = [p.values[0] for p in RECORDINGS]
    dumps.dump([s for r in recordings for s in offsets_segments(r)] + sorted(LOG_FIXTURES.rglob("*.log")), "offsets")
    dumps.dump([s for r in recordings for s in metadata_segments(r)], "cluster-metadata")
    return dumps


def kafka_meta_log(paths: list[Path], *options: str) -> tuple[int, list[dict[str, Any]], str]:
    """`kafka-meta log --decode PATH...`, run in this process: exit status, JSON lines, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["log", "--decode", *map(str, paths), *options])
    return code, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def partition_of(file: str | Path) -> tuple[str, int]:
    topic, _, partition = Path(file).parent.name.rpartition("-")
    return topic, int(partition)


def compared(dumplog, segments: list[Path], decoder: str) -> tuple[dict[tuple[str, int, int], Any],
                                                                   dict[tuple[str, int, int], dict[str, Any]]]:
    """DumpLogSegments' records and `kafka-meta log --decode`'s lines of the same segments, by (topic,
    partition, offset)."""
    segments = [s.resolve() for s in segments]
    dumped = dumplog.dump(segments, decoder)
    assert [Path(d.file) for d in dumped] == segments
    kafka = {(*partition_of(r.file), r.offset): r for d in dumped for r in d.records}
    # Rule: a segment copied while the broker was appending to it (the session's broker runs on) may end
    # inside a batch: DumpLogSegments says "Found N invalid bytes at the end", kafka_meta reports the batch
    # cut off at the same byte. Nothing else may be damage.
    cut = tuple(f"{d.file}, byte {Path(d.file).stat().st_size - d.invalid_trailing_bytes}," for d in dumped
                if d.invalid_trailing_bytes)
    code, rows, err = kafka_meta_log(sorted({s.parent for s in segments}))
    kept = [row for row in rows if not ("_error" in row and row["_error"].startswith(cut))]
    assert code == 0 or (cut and len(kept) == len(rows) - len(cut)), err
    return kafka, {(row["topic"], row["partition"], row["offset"]): row for row in kept}


def same_records(kafka: dict, ours: dict) -> None:
    assert kafka, "DumpLogSegments printed no record"
    only_kafka, only_ours = sorted(set(kafka) - set(ours)), sorted(set(ours) - set(kafka))
    assert not only_kafka and not only_ours, f"records only Kafka printed: {only_kafka[:SHOWN]}; " \
                                             f"only kafka_meta: {only_ours[:SHOWN]}"


def report(mismatches: list[str], checked: int) -> None:
    assert checked, "nothing was compared"
    assert not mismatches, f"{len(mismatches)} of {checked} records differ:\n" + "\n".join(mismatches[:SHOWN])


# --- the mapping rules: kafka_meta's JSON line -> what DumpLogSegments prints -------------------------------

def user_data_bytes(user_data: dict[str, Any]) -> bytes:
    """Rule: Kafka prints a subscription's or assignment's userData as its bytes (base64); kafka_meta prints
    them decoded by the group's assignor (sticky, cooperative-sticky, Kafka Streams' SubscriptionInfo /
    AssignmentInfo), with their type, version and layout variant. Encoding the decoded form again with
    kafka_meta (byte-exact by design) must give back exactly the bytes Kafka printed."""
    fields = {k: v for k, v in user_data.items() if k not in ("type", "version", "variant")}
    message = km.model(user_data["type"]).model_validate_json(json.dumps(fields))
    message.__pydantic_private__["_variant"] = user_data["variant"]  # the layout it was read with
    return km.encode(message, user_data["version"])


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def consumer_protocol_fields(nested: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Rule: kafka_meta prints a consumer-protocol message's version (the int16 its bytes start with) inside
    it; Kafka reads the same int16 and writes the JSON at that version without printing it. So the version
    leaves the object and says which of Kafka's fields are present."""
    fields = {k: v for k, v in nested.items() if k != "version"}
    if isinstance(fields.get("userData"), dict):
        fields["userData"] = b64(user_data_bytes(fields["userData"]))
    return nested["version"], fields


def group_metadata_member(where: str, field, nested: dict[str, Any]) -> Any:
    """Rule: for a `consumer` group, DumpLogSegments replaces each member's subscription and assignment
    bytes by their ConsumerProtocolSubscription / ConsumerProtocolAssignment JSON (its OffsetsMessageParser),
    as kafka_meta does; both keep the bytes when they do not read."""
    version, fields = consumer_protocol_fields(nested)
    return kafka_view(fields, kafka_spec(CONSUMER_PROTOCOL[field.name]).fields, version, path=where)


def classic_protocol_metadata(where: str, field, nested: dict[str, Any]) -> Any:
    """Rule: a KIP-848 member that joined with the classic protocol keeps each offered assignor's
    subscription as bytes (ConsumerGroupMemberMetadataValue.classicMemberMetadata.supportedProtocols[].
    metadata); Kafka's converter prints them as bytes (base64), kafka_meta decoded. Encoding kafka_meta's
    decoded subscription again must give exactly those bytes."""
    version, fields = consumer_protocol_fields(nested)
    message = km.model("ConsumerProtocolSubscription").model_validate_json(json.dumps(fields))
    return b64(km.encode(message, version))


NESTED = {"GroupMetadata": group_metadata_member, "ConsumerGroupMemberMetadata": classic_protocol_metadata}


def member_errors(row: dict[str, Any]) -> list[str]:
    """Rule: kafka_meta lists on a member what it could not decode (`errors`), which Kafka does not print;
    the bytes stay as they are. Kafka's own clients wrote these records, so there must be none."""
    value = row.get("value") or {}
    members = value.get("members") or []
    protocols = (value.get("classicMemberMetadata") or {}).get("supportedProtocols") or []
    found = [e for item in [*members, *protocols] for e in item.pop("errors", [])]
    return found


def expected_key(row: dict[str, Any]) -> Any:
    """Rule: Kafka prints the key as {"type": "<record type, as a string>", "data": <the key's JSON at
    version 0>} (CoordinatorRecordMessageParser.prepareKey); keys have one version. kafka_meta prints the
    record type as a number beside the key."""
    return {"type": str(row["recordType"]), "data": kafka_view(row["key"], kafka_spec(row["record"] + "Key").fields, 0,
                                                                path="key")}


def expected_payload(row: dict[str, Any]) -> Any:
    """Rule: Kafka prints the value as {"version": "<its version, as a string>", "data": <its JSON at that
    version>} (prepareValue), and `<DELETE>` for a tombstone, where kafka_meta prints null. kafka_meta prints
    the version as a number beside the value (`valueVersion`), with the layout that read it (`valueVariant`),
    which Kafka does not name (it has one layout per version)."""
    if row["value"] is None:
        return DELETE
    version = row["valueVersion"]
    spec = kafka_spec(row["record"] + "Value")
    data = kafka_view(row["value"], spec.fields, version, path="value", nested=NESTED.get(row["record"]))
    return {"version": str(version), "data": data}


CURRENT_LAYOUT = "2026-08"  # kafka_meta's name for the layouts Kafka 4.4 writes (docs/offsets.md)


def read_beyond_kafka(row: dict[str, Any]) -> bool:
    """Rule: kafka_meta reads, by design and saying so on the record, what Kafka 4.4's coordinator refuses
    (docs/offsets.md): a value version newer than known (`readForward`, KIP-915: Kafka 4.4 answers "Found an
    unknown record version"), a record type Kafka has since removed (`retired`: ShareGroupPartitionMetadata,
    StreamsGroupPartitionMetadata, "Unknown record type" to Kafka 4.4), and the layouts records had before a
    change without a version bump (`valueVariant` other than the current: ShareGroupMetadata without its
    MetadataHash, which Kafka 4.4 cannot read). Nothing else may be read where Kafka could not."""
    return bool(row.get("readForward") or row.get("retired")
                or row.get("valueVariant", CURRENT_LAYOUT) != CURRENT_LAYOUT)


def offsets_mismatch(kafka, row: dict[str, Any]) -> str | None:
    """How kafka_meta's line differs from what DumpLogSegments printed for the same record; None if not."""
    if not kafka.batch["isvalid"]:
        # Rule: DumpLogSegments prints a batch whatever its CRC says (`isvalid: false`); kafka_meta, as Kafka's
        # consumers do, refuses a batch whose CRC does not match and reports it as damage in its place.
        return None if "CRC" in row.get("_error", "") else f"Kafka printed a batch with a wrong CRC; kafka_meta {row}"
    if kafka.control is not None:
        # Rule: DumpLogSegments prints a transaction marker as `endTxnMarker: COMMIT coordinatorEpoch: N` and
        # no contents; kafka_meta prints it as a control record: the marker's name and its EndTxnMarker value.
        ours = {"type": row.get("marker"), "coordinatorEpoch": (row.get("value") or {}).get("coordinatorEpoch")}
        return None if row.get("control") and ours == kafka.control else f"control {kafka.control} vs {row}"
    if kafka.error is not None and read_beyond_kafka(row):
        return None
    if kafka.error is not None and kafka.error.startswith("Unknown record type"):
        # Rule: a record type Kafka does not know is skipped with this text; kafka_meta keeps it as unknown.
        ours = f"Unknown record type {row.get('recordType')} at offset {row['offset']}, skipping."
        return None if row.get("unknown") and ours == kafka.error else f"{kafka.error!r} vs {row}"
    if kafka.error is not None:
        # Rule: what Kafka cannot read (`Error at offset N, skipping. why`) kafka_meta cannot either.
        return None if "_error" in row else f"Kafka: {kafka.error!r}; kafka_meta read {row}"
    if "record" not in row:
        return f"Kafka read {kafka.key} / {kafka.payload}; kafka_meta: {row}"
    try:
        errors = member_errors(row)
        if errors:
            return f"kafka_meta could not decode a member's bytes: {errors}"
        key, payload = expected_key(row), DELETE if kafka.tombstone else expected_payload(row)
    except NotKafkas as e:
        return str(e)
    if key != kafka.key:
        return f"key: Kafka {kafka.key} vs {key}"
    if payload != (DELETE if kafka.tombstone else kafka.payload):
        return f"{row['record']} payload:\n  Kafka      {kafka.payload}\n  kafka_meta {payload}"
    return None


def check_offsets(dumplog, recording: Path) -> None:
    need_shared()  # Kafka's specs say which fields its converter prints at each version
    segments = offsets_segments(recording)
    assert segments, f"{recording} holds no __consumer_offsets segment"
    kafka, ours = compared(dumplog, segments, "offsets")
    same_records(kafka, ours)
    mismatches = []
    for where, record in sorted(kafka.items()):
        problem = offsets_mismatch(record, ours[where])
        if problem:
            mismatches.append(f"{where}: {problem}")
    report(mismatches, len(kafka))


# --- the batches: kafka_meta.log's reading of every batch header is DumpLogSegments' ------------------------

CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
TIMESTAMP_TYPES = {-1: "NoTimestampType", 0: "CreateTime", 1: "LogAppendTime"}


def batch_fields(batch: Batch) -> dict[str, Any]:
    """Our batch header in DumpLogSegments' words (its printBatchLevel); a legacy entry (magic 0 and 1, a
    message or a compressed wrapper) has only its last offset, position, size, magic, codec, timestamp type."""
    out = {"position": batch.position, "size": batch.size, "magic": batch.magic, "lastOffset": batch.last_offset,
           "compresscodec": CODECS[batch.codec], "timestampType": TIMESTAMP_TYPES[batch.timestamp_type]}
    if batch.magic < 2:
        return out
    return {**out, "baseOffset": batch.base_offset, "count": batch.count, "isControl": batch.control,
            "isTransactional": batch.transactional, "producerId": batch.producer_id,
            "producerEpoch": batch.producer_epoch, "baseSequence": batch.base_sequence,
            "partitionLeaderEpoch": batch.partition_leader_epoch}


def crc_damage(item: Any, theirs: dict[str, Any]) -> bool:
    """Rule: where DumpLogSegments prints a batch with `isvalid: false` (its CRC does not match), kafka_meta
    reports CRC damage at the same position, and reads on after it, as Kafka's consumers refuse such a batch."""
    return isinstance(item, SegmentDamage) and item.kind == "crc" and item.position == theirs["position"] \
        and not theirs["isvalid"]


def cut_at_the_end(item: Any, dumped) -> bool:
    """The batch a copy cut off at the end of the segment (see `compared`): DumpLogSegments counts its bytes as
    invalid trailing bytes, kafka_meta reports damage where they start."""
    start = Path(dumped.file).stat().st_size - dumped.invalid_trailing_bytes
    return dumped.invalid_trailing_bytes > 0 and isinstance(item, SegmentDamage) and item.position == start


def check_batches(dumplog, segments: list[Path], decoder: str) -> None:
    mismatches, checked = [], 0
    for dumped, segment in zip(dumplog.dump(segments, decoder), segments, strict=True):
        ours = [item for _, item in read_batches(segment) if not cut_at_the_end(item, dumped)]
        assert len(ours) == len(dumped.batches), f"{segment}: {len(ours)} batches, Kafka {len(dumped.batches)}"
        for item, theirs in zip(ours, dumped.batches, strict=True):
            checked += 1
            if crc_damage(item, theirs):
                continue
            if isinstance(item, SegmentDamage):
                mismatches.append(f"{segment}: kafka_meta found damage Kafka did not: {item.describe()}")
                continue
            batch, our_records = item
            mine = batch_fields(batch)
            if {k: theirs.get(k) for k in mine} != mine or not theirs["isvalid"]:
                mismatches.append(f"{segment} batch at {batch.position}: Kafka {theirs} vs {mine}")
            kafka_records = [r for r in dumped.records if r.batch is theirs]
            if len(kafka_records) != len(our_records):
                mismatches.append(f"{segment} batch at {batch.position}: {len(our_records)} records, Kafka "
                                  f"{len(kafka_records)}")
            for record, kafka in zip(our_records, kafka_records, strict=False):  # a count differing: reported
                ours_record = (record.offset, record.timestamp, TIMESTAMP_TYPES[batch.timestamp_type],
                               -1 if record.key is None else len(record.key),
                               -1 if record.value is None else len(record.value), [k for k, _ in record.headers])
                theirs_record = (kafka.offset, kafka.timestamp, kafka.timestamp_type, kafka.key_size,
                                 kafka.value_size, kafka.header_keys)
                if ours_record != theirs_record:
                    mismatches.append(f"{segment} offset {record.offset}: Kafka {theirs_record} vs {ours_record}")
    report(mismatches, checked)


# --- __cluster_metadata: every record's type and version, the contents of those kafka_meta declares --------

@cache
def kafka_metadata_specs(jar_dir: Path) -> dict[str, MessageSpec]:
    """Kafka 4.4's metadata record specs by the name DumpLogSegments prints for their type (MetadataRecordType
    constants: FEATURE_LEVEL_RECORD), from the specs inside the lab's kafka-metadata jar (read where they lie,
    never copied)."""
    [jar] = sorted(jar_dir.glob("kafka-metadata-*.jar"))
    out = {}
    with zipfile.ZipFile(jar) as z:
        for name in z.namelist():
            if name.startswith("common/metadata/") and name.endswith(".json"):
                text = z.read(name).decode()
                if loads(text).get("type") == "metadata":
                    spec = load_spec_text(text, f"{jar.name}!{name}")
                    out[upper_snake(spec.name)] = spec
    return out


def lab_lib() -> Path:
    """Where the lab's build keeps Kafka's jars."""
    import labkit.build

    return labkit.build.LAB / "kafka" / "target" / "lib"


def declared_metadata_types() -> dict[int, str]:
    """apiKey -> name of the metadata records kafka_meta declares (the others it keeps as bytes)."""
    return {key: fmt.name for key, fmt in km.model("MetadataRecord").record_formats().items()}


def metadata_mismatch(kafka, row: dict[str, Any], specs: dict[str, MessageSpec]) -> str | None:
    if kafka.control is not None:
        # Rule: DumpLogSegments names a KRaft control record (LeaderChange, KRaftVersion, KRaftVoters...) and
        # prints its contents; kafka_meta decodes it by its key's type (test_lab_metadata_records.control_mismatch).
        return control_mismatch(kafka.control, row, jar_specs(lab_lib()))
    if kafka.error is not None:
        return None if "_error" in row else f"Kafka: {kafka.error!r}; kafka_meta read {row}"
    payload = kafka.payload
    spec = specs.get(payload["type"])
    if spec is not None and spec.api_key not in declared_metadata_types():
        # Rule: a record type kafka_meta does not declare (none of Kafka 4.4's) is kept as bytes.
        return None if row.get("unknown") else f"kafka_meta decoded {payload['type']}: {row}"
    return record_mismatch(payload, row, specs)


def check_metadata(dumplog, lab, recording: Path) -> None:
    segments = metadata_segments(recording)
    assert segments, f"{recording} holds no __cluster_metadata segment"
    kafka, ours = compared(dumplog, segments, "cluster-metadata")
    same_records(kafka, ours)
    specs = kafka_metadata_specs(lab.build.LAB / "kafka" / "target" / "lib")
    mismatches = [f"{where}: {problem}" for where, record in sorted(kafka.items())
                  if (problem := metadata_mismatch(record, ours[where], specs))]
    report(mismatches, len(kafka))
    types = Counter(r.payload.get("type") for r in kafka.values() if r.payload)
    assert {"FEATURE_LEVEL_RECORD", "TOPIC_RECORD"} <= set(types), types
    features = [r for r in kafka.values() if r.payload and r.payload.get("type") == "FEATURE_LEVEL_RECORD"]
    assert any(r.payload["data"]["name"] == "metadata.version" for r in features), "no metadata.version level"
    # metadata_log.topic_names: the id -> name of every TopicRecord Kafka printed, ids as str(uuid.UUID)
    topics = {str(uuid.UUID(bytes=base64.urlsafe_b64decode(r.payload["data"]["topicId"] + "=="))):
              r.payload["data"]["name"] for r in kafka.values() if r.payload and r.payload["type"] == "TOPIC_RECORD"}
    assert topic_names(read_log(recording / "kafka-logs")) == topics


# --- the tests -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("recording", RECORDINGS)
def test_consumer_offsets_are_what_dump_log_segments_prints(dumplog, recording):
    check_offsets(dumplog, recording)


@pytest.mark.parametrize("recording", RECORDINGS)
def test_cluster_metadata_is_what_dump_log_segments_prints(dumplog, lab, recording):
    check_metadata(dumplog, lab, recording)


@pytest.mark.parametrize("recording", RECORDINGS)
def test_batches_are_what_dump_log_segments_prints(dumplog, recording):
    check_batches(dumplog, offsets_segments(recording), "offsets")
    check_batches(dumplog, metadata_segments(recording), "cluster-metadata")


def test_the_log_fixtures_are_what_dump_log_segments_prints(dumplog):
    """The project's own segments (fixtures/log: magic 0, 1 and 2, every codec, transactions, every record type
    of every era, bytes kafka-python and librdkafka wrote) against Kafka 4.4's reading of them."""
    segments = sorted(LOG_FIXTURES.rglob("*.log"))
    check_batches(dumplog, segments, "offsets")
    need_shared()
    segments = [s.resolve() for s in segments]
    kafka = {(*partition_of(r.file), r.offset): r for d in dumplog.dump(segments, "offsets") for r in d.records}
    code, rows, _ = kafka_meta_log(sorted({s.parent for s in segments}))
    assert code == 1  # the mock broker's markers without a CRC are damage to kafka_meta (docs/log.md)
    ours = {(row["topic"], row["partition"], row["offset"]): row for row in rows}
    same_records(kafka, ours)
    mismatches = [f"{where}: {problem}" for where, record in sorted(kafka.items())
                  if (problem := offsets_mismatch(record, ours[where]))]
    report(mismatches, len(kafka))
    # in each of the 4 partitions: ShareGroupMetadata without its hash, record types 9 and 18, OffsetCommit v5
    assert sum(read_beyond_kafka(row) for row in ours.values()) == 16


def test_a_fresh_recordings_consumer_offsets_are_what_dump_log_segments_prints(dumplog, fresh):
    check_offsets(dumplog, fresh)


def test_a_fresh_recordings_cluster_metadata_is_what_dump_log_segments_prints(dumplog, lab, fresh):
    check_metadata(dumplog, lab, fresh)


def test_a_fresh_recordings_batches_are_what_dump_log_segments_prints(dumplog, fresh):
    check_batches(dumplog, offsets_segments(fresh), "offsets")
    check_batches(dumplog, metadata_segments(fresh), "cluster-metadata")
