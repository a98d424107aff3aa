"""A real broker's metadata log and snapshots, record for record and field by field, as Kafka's DumpLogSegments
`--cluster-metadata-decoder` prints them.

A broker of its own (the lab's KRaft broker, combined mode, with the standard authorizer and a snapshot every two
seconds) gets the metadata changes of lab/.../metadata/MetadataChanges.java through Kafka's Admin client: topics
created, grown and deleted, topic / broker / cluster-default / group configs set and deleted, client quotas of a
user, a client id and the default user, SCRAM credentials upserted and deleted, ACLs created and deleted, and an
idempotent producer's producer-id block; its own start registers the broker and the controller and writes the
quorum's control records. Delegation tokens are not made: creating one needs a SASL or SSL authenticated client.

Then every `.log` segment and every `.checkpoint` of `__cluster_metadata-0` is dumped by DumpLogSegments and read
by `kafka-meta log --decode`, file by file (a snapshot's records have offsets of their own, from 0), and each
record's line is held to Kafka's: the record type (Kafka's name from its spec, kafka_meta's apiKey), the version,
and the fields as Kafka's JsonConverter writes them at that version (`kafka_json.kafka_view`: kafka_meta prints
every field of every version; the view drops those Kafka does not print, checking they hold their defaults),
with Kafka's specs read where they lie in the lab's jars; control records by the name DumpLogSegments prints for
their type and their value's fields, at the version the value says (`header.version()`), as DumpLogSegments
writes them.
"""

from __future__ import annotations

import os
import subprocess
import time
import zipfile
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from kafka_json import NotKafkas, kafka_view, upper_snake
from test_metadata_records import kafka_meta_rows

from kafka_meta.kraft.control import DUMP_NAMES
from kafka_meta.log.files import find_segments
from kafka_meta.spec import load_spec_text
from kafka_meta.spec.jsonc import loads
from kafka_meta.spec.model import MessageSpec

pytestmark = pytest.mark.kafka

BROKER_SETTINGS = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:ANONYMOUS",  # the PLAINTEXT listeners' clients, the broker itself included
    "metadata.log.max.record.bytes.between.snapshots": str(1 << 30),
    "metadata.log.max.snapshot.interval.ms": "2000",
}
CHANGES = "kafkameta.lab.metadata.MetadataChanges"
SNAPSHOT_WAIT_S = 60
SHOWN = 15
# what the broker writes for the changes made, and the control records of its quorum and snapshots
EXPECTED_TYPES = {
    "TOPIC_RECORD", "PARTITION_RECORD", "PARTITION_CHANGE_RECORD", "REMOVE_TOPIC_RECORD", "CONFIG_RECORD",
    "CLIENT_QUOTA_RECORD", "USER_SCRAM_CREDENTIAL_RECORD", "REMOVE_USER_SCRAM_CREDENTIAL_RECORD",
    "ACCESS_CONTROL_ENTRY_RECORD", "REMOVE_ACCESS_CONTROL_ENTRY_RECORD", "PRODUCER_IDS_RECORD",
    "REGISTER_BROKER_RECORD", "REGISTER_CONTROLLER_RECORD", "BROKER_REGISTRATION_CHANGE_RECORD",
    "FEATURE_LEVEL_RECORD", "NO_OP_RECORD",
}
EXPECTED_CONTROL = {"LeaderChange", "KRaftVersion", "KRaftVoters", "SnapshotHeader", "SnapshotFooter"}
CONTROL_SPECS = {"LeaderChange": "LeaderChangeMessage", "SnapshotHeader": "SnapshotHeaderRecord",
                 "SnapshotFooter": "SnapshotFooterRecord", "KRaftVersion": "KRaftVersionRecord",
                 "KRaftVoters": "VotersRecord"}


@pytest.fixture(scope="module")
def metadata_dir(lab, tmp_path_factory) -> Path:
    """`__cluster_metadata-0` of a broker that got MetadataChanges and wrote a snapshot after them (stopped)."""
    directory = tmp_path_factory.mktemp("metadata-broker")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lab.broker, "LAB_SETTINGS", {**lab.broker.LAB_SETTINGS, **BROKER_SETTINGS})
        broker = lab.broker.start(directory, owner_pid=os.getpid())
    partition = directory / "kafka-logs" / "__cluster_metadata-0"
    try:
        done = subprocess.run(
            [lab.build.java(), "-Xmx256m",
             f"-Dlog4j2.configurationFile={lab.build.log4j_config('log4j2-tools.properties')}",
             "-cp", lab.build.classpath("kafka"), CHANGES, broker.bootstrap],
            capture_output=True, text=True, timeout=180)
        assert done.returncode == 0 and done.stdout.strip().endswith("done"), done.stdout + done.stderr[-3000:]
        changed = time.time()
        deadline = time.monotonic() + SNAPSHOT_WAIT_S
        while not any(p.stat().st_mtime > changed + 1 for p in partition.glob("*.checkpoint")):
            assert time.monotonic() < deadline, "the broker wrote no snapshot after the changes"
            time.sleep(0.5)
    finally:
        lab.broker.stop(directory)
    return partition


@pytest.fixture(scope="module")
def dumped(lab, metadata_dir) -> dict[Path, Any]:
    """DumpLogSegments --cluster-metadata-decoder of every segment and snapshot, in one run, by file."""
    import labkit.dumplog

    files = sorted(metadata_dir.glob("*.log")) + sorted(metadata_dir.glob("*.checkpoint"))
    return {Path(d.file): d for d in labkit.dumplog.dump(files, "cluster-metadata")}


@cache
def jar_specs(jar_dir: Path) -> dict[str, MessageSpec]:
    """Kafka 4.4's specs of the metadata records (by the name DumpLogSegments prints for their type) and of the
    KRaft control values (by their own name), read where they lie in the lab's kafka-metadata and kafka-clients
    jars, never copied."""
    out: dict[str, MessageSpec] = {}
    for pattern, prefix in (("kafka-metadata-*.jar", "common/metadata/"), ("kafka-clients-*.jar", "common/message/")):
        [jar] = sorted(p for p in jar_dir.glob(pattern) if "-sources" not in p.name)
        with zipfile.ZipFile(jar) as z:
            for name in z.namelist():
                if not (name.startswith(prefix) and name.endswith(".json")):
                    continue
                text = z.read(name).decode()
                kind = loads(text).get("type")
                if kind == "metadata" or Path(name).stem in CONTROL_SPECS.values():
                    spec = load_spec_text(text, f"{jar.name}!{name}")
                    out[upper_snake(spec.name) if kind == "metadata" else spec.name] = spec
    return out


def control_mismatch(kafka: dict[str, Any], row: dict[str, Any], specs: dict[str, MessageSpec]) -> str | None:
    """Rule: DumpLogSegments prints a KRaft control record as `NAME {json}`, the value Kafka read at version 0
    (ControlRecordUtils) written by its JsonConverter at the version the value's own Version field says;
    kafka_meta gives the type's number and Kafka's constant name, and the value's fields."""
    if not row.get("control") or DUMP_NAMES.get(row.get("controlType")) != kafka["type"]:
        return f"Kafka {kafka['type']} vs {row}"
    value = row["value"]
    try:
        view = kafka_view(value, specs[CONTROL_SPECS[kafka["type"]]].fields, value["version"], path="value")
    except NotKafkas as e:
        return str(e)
    return None if view == kafka["data"] else f"{kafka['type']}: Kafka {kafka['data']} vs {view}"


def record_mismatch(payload: dict[str, Any], row: dict[str, Any], specs: dict[str, MessageSpec]) -> str | None:
    """Rule: Kafka prints the record type's constant name, kafka_meta its apiKey and type name; Kafka's own
    spec maps one to the other, and says which fields its converter writes at the record's version."""
    spec = specs.get(payload["type"])
    if spec is None or row.get("apiKey") != spec.api_key or row.get("recordType") != spec.name \
            or row.get("recordVersion") != payload["version"]:
        return f"Kafka {payload['type']} v{payload['version']} vs {row}"
    try:
        view = kafka_view(row["record"], spec.fields, payload["version"], path="record")
    except NotKafkas as e:
        return str(e)
    return None if view == payload["data"] else f"{spec.name}: Kafka {payload['data']} vs {view}"


def mismatch(kafka: Any, row: dict[str, Any], specs: dict[str, MessageSpec]) -> str | None:
    """Where kafka_meta's line for a record says other than DumpLogSegments' (None: the same)."""
    if (row.get("offset"), row.get("timestamp")) != (kafka.offset, kafka.timestamp):
        return f"Kafka offset {kafka.offset} at {kafka.timestamp} vs {row.get('offset')} at {row.get('timestamp')}"
    if kafka.control is not None:
        return control_mismatch(kafka.control, row, specs)
    if kafka.error is not None or kafka.payload is None:
        return f"Kafka could not read it ({kafka.error!r}); kafka_meta: {row}"
    return record_mismatch(kafka.payload, row, specs)


def test_every_record_and_control_record_is_what_dump_log_segments_prints(lab, metadata_dir, dumped):
    specs = jar_specs(lab.build.LAB / "kafka" / "target" / "lib")
    mismatches: list[str] = []
    types: Counter[str] = Counter()
    files = Counter[str]()
    for file, kafka in dumped.items():
        rows = kafka_meta_rows(file)
        files[file.suffix] += 1
        assert not kafka.invalid_trailing_bytes, f"{file}: the broker was stopped, yet Kafka found a cut-off batch"
        assert [r.offset for r in kafka.records] == [row.get("offset") for row in rows], file
        for record, row in zip(kafka.records, rows, strict=True):
            types[record.control["type"] if record.control else (record.payload or {}).get("type")] += 1
            problem = mismatch(record, row, specs)
            if problem:
                mismatches.append(f"{file.name} offset {record.offset}: {problem}")
    assert files[".log"] >= 1 and files[".checkpoint"] >= 2, files  # the bootstrap snapshot and the broker's
    assert not mismatches, f"{len(mismatches)} of {sum(types.values())} records differ:\n" + "\n".join(
        mismatches[:SHOWN])
    missing = (EXPECTED_TYPES | EXPECTED_CONTROL) - set(types)
    assert not missing, f"the broker wrote no {sorted(missing)}: {types}"


def test_a_snapshot_is_a_header_the_state_and_a_footer(dumped):
    """Every snapshot starts with a SnapshotHeader and ends with a SnapshotFooter (Kafka's Snapshots reader
    refuses one that does not), and the broker's snapshot after the changes holds the topic they left."""
    snapshots = {f: d for f, d in dumped.items() if f.suffix == ".checkpoint"}
    for file, kafka in snapshots.items():
        controls = [r.control["type"] if r.control else None for r in kafka.records]
        assert controls[0] == "SnapshotHeader" and controls[-1] == "SnapshotFooter", file
    newest = max(snapshots)
    rows = kafka_meta_rows(newest)
    assert [r["marker"] for r in (rows[0], rows[-1])] == ["SNAPSHOT_HEADER", "SNAPSHOT_FOOTER"]
    topics = {r["record"]["name"] for r in rows if r.get("recordType") == "TopicRecord"}
    assert "meta-a" in topics and "meta-b" not in topics, topics


def test_the_partition_reads_its_snapshots_by_end_offset_among_its_segments(metadata_dir):
    """`kafka-meta log` on the partition directory reads each file's lines in find_segments' order: a snapshot
    at its end offset, before the segment starting there, the bootstrap snapshot (end offset 0) first."""
    segments = find_segments(metadata_dir)
    names = [Path(s.path).name for s in segments]
    assert names[0] == "00000000000000000000-0000000000.checkpoint" and names[1] == "00000000000000000000.log"
    ends = [s.snapshot_id[0] if s.snapshot_id else s.base_offset for s in segments]
    assert ends == sorted(ends)
    assert kafka_meta_rows(metadata_dir) == [row for s in segments for row in kafka_meta_rows(Path(s.path))]
