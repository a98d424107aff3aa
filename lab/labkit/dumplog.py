"""Kafka's own reading of log segments: run `DumpLogSegments --print-data-log` and parse what it prints.

Kafka's tool is the reference for what a segment holds: `dump(files, decoder="offsets")` runs
`org.apache.kafka.tools.DumpLogSegments` once for all the files (one JVM: starting one costs a second) with
`--offsets-decoder` (`__consumer_offsets`), `--cluster-metadata-decoder` (`__cluster_metadata`),
`--transaction-log-decoder` (`__transaction_state`), `--share-group-state-decoder` (`__share_group_state`) or
`--remote-log-metadata-decoder` (`__remote_log_metadata`), and turns
its text back into values: per file, the batches with their header fields, and per record its offset,
timestamp, sizes, the control marker of a control batch, and the key and payload JSON the decoder printed, or
the text it printed instead when it could not parse the record.

What DumpLogSegments prints, per file (org.apache.kafka.tools.DumpLogSegments, Kafka 4.4):

    Dumping FILE
    Log starting offset: N
    baseOffset: 0 lastOffset: 0 count: 1 ... position: 0 CreateTime: T size: S magic: 2 ... isvalid: true
    | offset: 0 CreateTime: T keySize: K valueSize: V sequence: 0 headerKeys: [] key: {...} payload: {...}
    | offset: 5 CreateTime: T keySize: 4 valueSize: 6 ... headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 0
    Found N invalid bytes at the end of NAME

The offsets decoder prints `key: {"type":"2","data":{...}} payload: {"version":"3","data":{...}}`, `payload:
<DELETE>` for a tombstone, and `key: Unknown record type N at offset O, skipping.` or `key: Error at offset O,
skipping. MESSAGE` (no payload) for what it cannot read; the transaction-log and share-group-state decoders
print the same (the transaction log's `transactionStatus` as the state's name, `"Ongoing"`); the
cluster-metadata decoder prints no key and `payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{...}}`
or `payload: Error at O, skipping. MESSAGE`; the remote-log-metadata decoder prints no key and the record as
`RemoteLogMetadataSerde` reads it, in its `toString()` form (`payload: RemoteLogSegmentMetadata{...}`, kept as
text in `payload`).
Records of control batches get their marker (`endTxnMarker: ...`) or, for the KRaft log's own, their type's name
and their value's JSON (`LeaderChange: {...}`, `SnapshotHeader {...}`, `SnapshotFooter {...}`, `KRaftVersion {...}`,
`KRaftVoters {...}`: `control` is then `{"type": "LeaderChange", "data": {...}}`), and no contents. A snapshot's
section starts with `Snapshot end offset: N, epoch: E` instead of `Log starting offset: N`. Only the standard
library, like the rest of labkit.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labkit import build

MAIN_CLASS = "org.apache.kafka.tools.DumpLogSegments"
DECODERS = {"offsets": "--offsets-decoder", "cluster-metadata": "--cluster-metadata-decoder",
            "transaction-log": "--transaction-log-decoder", "share-group-state": "--share-group-state-decoder",
            "remote-log-metadata": "--remote-log-metadata-decoder"}
TIMEOUT_S = 300
DELETE = "<DELETE>"

_BATCH_V2 = re.compile(
    r"baseOffset: (?P<baseOffset>-?\d+) lastOffset: (?P<lastOffset>-?\d+) count: (?P<count>\S+) "
    r"baseSequence: (?P<baseSequence>-?\d+) lastSequence: (?P<lastSequence>-?\d+) producerId: (?P<producerId>-?\d+) "
    r"producerEpoch: (?P<producerEpoch>-?\d+) partitionLeaderEpoch: (?P<partitionLeaderEpoch>-?\d+) "
    r"isTransactional: (?P<isTransactional>true|false) isControl: (?P<isControl>true|false) "
    r"deleteHorizonMs: (?P<deleteHorizonMs>\S+) ")
_BATCH_LEGACY = re.compile(r"offset: (?P<lastOffset>-?\d+) ")
_BATCH_TAIL = re.compile(
    r"position: (?P<position>\d+) (?P<timestampType>\w+): (?P<maxTimestamp>-?\d+) size: (?P<size>\d+) "
    r"magic: (?P<magic>\d+) compresscodec: (?P<compresscodec>\w+) crc: (?P<crc>\d+) isvalid: (?P<isvalid>true|false)$")
_RECORD = re.compile(
    r"\| offset: (?P<offset>-?\d+) (?P<timestampType>\w+): (?P<timestamp>-?\d+) "
    r"keySize: (?P<keySize>-?\d+) valueSize: (?P<valueSize>-?\d+)"
    r"(?: sequence: (?P<sequence>-?\d+) headerKeys: \[(?P<headerKeys>[^\]]*)\])?"
    r"(?: isValid: (?P<isValid>true|false) crc: (?P<crc>\d+))?")
_END_TXN = re.compile(r" endTxnMarker: (?P<type>\w+) coordinatorEpoch: (?P<coordinatorEpoch>-?\d+)")
_CONTROL_JSON = re.compile(r" (?P<type>LeaderChange:|SnapshotHeader|SnapshotFooter|KRaftVersion|KRaftVoters) (?=\{)")
_CONTROL_OTHER = re.compile(r" controlType: (?P<type>\w+)\((?P<id>-?\d+)\)")
# what the remote-log-metadata decoder prints: RemoteLogMetadataSerde's reading, as its toString() writes it
_REMOTE_METADATA = re.compile(r"Remote(LogSegmentMetadata|LogSegmentMetadataUpdate|PartitionDeleteMetadata)\{")
_TRAILING = re.compile(r"Found (\d+) invalid bytes at the end of (.*)$")
_JSON = json.JSONDecoder()


class DumpError(RuntimeError):
    """DumpLogSegments failed or printed something this parser does not know; the message quotes it."""


@dataclass
class DumpedRecord:
    """One record as DumpLogSegments printed it.

    `key` and `payload` are the parsed JSON the decoder printed; `tombstone` is true where it printed
    `<DELETE>`; `error` is the text it printed instead of a key or payload it could not parse (an unknown
    record type, a failed read). `control` is the marker of a control batch's record: `{"type": "COMMIT",
    "coordinatorEpoch": 0}`, `{"type": "LeaderChange", "data": {...}}`, `{"type": "UNKNOWN", "id": 9}`.
    """

    file: str
    batch: dict[str, Any]
    offset: int
    timestamp_type: str
    timestamp: int
    key_size: int
    value_size: int
    sequence: int | None = None
    header_keys: list[str] = field(default_factory=list)
    control: dict[str, Any] | None = None
    key: Any = None
    payload: Any = None
    tombstone: bool = False
    error: str | None = None


@dataclass
class DumpedFile:
    """What DumpLogSegments printed for one file: its batches (header fields, parsed), records and trailing bytes."""

    file: str
    batches: list[dict[str, Any]] = field(default_factory=list)
    records: list[DumpedRecord] = field(default_factory=list)
    invalid_trailing_bytes: int = 0


def command(files: list[str | Path], decoder: str) -> list[str]:
    if decoder not in DECODERS:
        raise ValueError(f"unknown decoder {decoder!r}; known: {', '.join(DECODERS)}")
    if not files:
        raise ValueError("no files to dump")
    names = [str(Path(f).resolve()) for f in files]
    for name in names:
        if "," in name:
            raise ValueError(f"DumpLogSegments takes a comma-separated list: {name} cannot be named in it")
    return [build.java(), "-Xmx512m", f"-Dlog4j2.configurationFile={build.log4j_config('log4j2-tools.properties')}",
            "-cp", build.classpath("kafka"), MAIN_CLASS, "--files", ",".join(names), DECODERS[decoder],
            "--print-data-log"]


def dump(files: list[str | Path], decoder: str = "offsets") -> list[DumpedFile]:
    """Run DumpLogSegments once over `files` (segment files, `.log`, and KRaft snapshots, `.checkpoint`) and parse
    its output, one entry per file."""
    done = subprocess.run(command(files, decoder), capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise DumpError(f"DumpLogSegments exited with {done.returncode}: {done.stderr.strip()[-2000:]}")
    return parse(done.stdout)


def records(files: list[str | Path], decoder: str = "offsets") -> list[DumpedRecord]:
    """Every record of every file, in the order printed."""
    return [record for dumped in dump(files, decoder) for record in dumped.records]


def parse(text: str) -> list[DumpedFile]:
    """DumpLogSegments' standard output -> one DumpedFile per `Dumping` section."""
    out: list[DumpedFile] = []
    current: DumpedFile | None = None
    batch: dict[str, Any] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("Dumping "):
            current = DumpedFile(line[len("Dumping "):])
            out.append(current)
            batch = None
            continue
        if current is None:
            raise DumpError(f"line {number} comes before any 'Dumping' line: {line[:200]!r}")
        if line.startswith(("Log starting offset: ", "Snapshot end offset: ", "KRaft bootstrap snapshot")):
            continue
        if line.startswith("| "):
            if batch is None:
                raise DumpError(f"line {number}: a record before any batch: {line[:200]!r}")
            current.records.append(_record(current.file, batch, line, number))
            continue
        trailing = _TRAILING.match(line)
        if trailing:
            current.invalid_trailing_bytes = int(trailing.group(1))
            continue
        batch = _batch(line, number)
        current.batches.append(batch)
    return out


def _typed(fields: dict[str, str | None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, text in fields.items():
        if text is None:
            continue
        if text in ("true", "false"):
            out[name] = text == "true"
        elif re.fullmatch(r"-?\d+", text):
            out[name] = int(text)
        else:
            out[name] = text
    return out


def _batch(line: str, number: int) -> dict[str, Any]:
    head = _BATCH_V2.match(line) or _BATCH_LEGACY.match(line)
    tail = _BATCH_TAIL.search(line, head.end()) if head else None
    if head is None or tail is None or tail.start() != head.end():
        raise DumpError(f"line {number} is neither a batch nor a record: {line[:300]!r}")
    return _typed({**head.groupdict(), **tail.groupdict()})


def _record(file: str, batch: dict[str, Any], line: str, number: int) -> DumpedRecord:
    head = _RECORD.match(line)
    if head is None:
        raise DumpError(f"line {number}: not a record line: {line[:300]!r}")
    fields = _typed({k: v for k, v in head.groupdict().items() if k != "headerKeys"})
    header_keys = head.group("headerKeys")
    record = DumpedRecord(
        file=file, batch=batch, offset=fields["offset"], timestamp_type=fields["timestampType"],
        timestamp=fields["timestamp"], key_size=fields["keySize"], value_size=fields["valueSize"],
        sequence=fields.get("sequence"), header_keys=header_keys.split(",") if header_keys else [],
    )
    rest = line[head.end():]
    if batch.get("isControl"):
        record.control = _control(rest, number)
        return record
    if rest.startswith(" key: "):
        rest = _contents(record, "key", rest[len(" key: "):], number)
    if rest.startswith(" payload: "):
        rest = _contents(record, "payload", rest[len(" payload: "):], number)
    if rest:
        raise DumpError(f"line {number}: unexpected text after the record's contents: {rest[:300]!r}")
    return record


def _contents(record: DumpedRecord, what: str, text: str, number: int) -> str:
    """Read a key or payload from the start of `text`; return what follows it."""
    if text.startswith("{"):
        try:
            value, end = _JSON.raw_decode(text)
        except json.JSONDecodeError as error:
            raise DumpError(f"line {number}: the {what} is not JSON: {error}: {text[:300]!r}") from None
        setattr(record, what, value)
        return text[end:]
    if what == "payload" and text == DELETE:
        record.tombstone = True
        return ""
    if what == "payload" and _REMOTE_METADATA.match(text):  # the remote-log-metadata decoder's toString()
        record.payload = text
        return ""
    # text the decoder printed instead of JSON: it runs to the end of the line
    record.error = text
    return ""


def _control(rest: str, number: int) -> dict[str, Any]:
    end_txn = _END_TXN.fullmatch(rest)
    if end_txn:
        return {"type": end_txn.group("type"), "coordinatorEpoch": int(end_txn.group("coordinatorEpoch"))}
    other = _CONTROL_OTHER.fullmatch(rest)
    if other:
        return {"type": other.group("type"), "id": int(other.group("id"))}
    marker = _CONTROL_JSON.match(rest)
    if marker:
        data, end = _JSON.raw_decode(rest, marker.end())
        if rest[end:]:
            raise DumpError(f"line {number}: unexpected text after a control record: {rest[end:][:300]!r}")
        return {"type": marker.group("type").rstrip(":"), "data": data}
    raise DumpError(f"line {number}: a control record this parser does not know: {rest[:300]!r}")
