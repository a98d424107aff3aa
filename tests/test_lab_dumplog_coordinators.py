"""Kafka's DumpLogSegments is the reference for the transaction and share coordinators' logs: `kafka-meta log
--decode` gives, record for record and field for field, what `--transaction-log-decoder` and
`--share-group-state-decoder` print for the real broker recordings under fixtures/lab/ (a transactional producer
and consumer, a share group).

The mapping is the offsets one: Kafka's key `{"type": "N", "data": {...}}` is our `recordType` and `key`, its
payload `{"version": "V", "data": {...}}` our `valueVersion` and `value` (`<DELETE>`: a tombstone, our null
value). Kafka's payload is the generated JSON converter's at that version, so a tagged field at its default is
left out; ours prints every field, so such a field must be at its default. The transaction log's decoder prints
`transactionStatus` as the state's name: ours is the id, its name beside it as `transactionState`.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from kafka_meta.cli.main import main
from kafka_meta.formats import share_state, transaction_log
from kafka_meta.offsets.catalog import catalog
from kafka_meta.spec.model import parse_default

pytestmark = pytest.mark.kafka

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "lab"
TXN_LOGS, SHARE_LOGS = LAB / "transactions" / "kafka-logs", LAB / "share" / "kafka-logs"
PARTITIONS = {
    "transaction-log": (transaction_log.LOG, sorted(TXN_LOGS.glob("__transaction_state-*"))),
    "share-group-state": (share_state.LOG, sorted(SHARE_LOGS.glob("__share_group_state-*"))),
}
SHOWN = 10


def kafka_meta_log(paths: list[Path]) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["log", "--decode", *map(str, paths)])
    return code, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def kafka_payload(log: Any, row: dict[str, Any]) -> dict[str, Any]:
    """Our line's value as Kafka's converter prints it at the value's version: tagged fields at their default
    left out (after checking they are), the transaction state by name."""
    version = row["valueVersion"]
    spec = catalog(log)[row["recordType"]].values.variants[0].format.spec
    value = dict(row["value"])
    state = value.pop("transactionState", None)
    out: dict[str, Any] = {}
    for field in spec.fields:
        name = field.json_name
        if not field.present(version):
            value.pop(name)
            continue
        if field.tagged(version):
            default = parse_default(field.type, field.default, nullable=False)
            if value[name] == default:
                value.pop(name)
                continue
        out[name] = value.pop(name)
    assert value == {}, f"fields the spec does not have: {value}"
    if log is transaction_log.LOG:
        assert transaction_log.STATES[out["transactionStatus"]] == state
        out["transactionStatus"] = state
    return out


@pytest.mark.parametrize("decoder", sorted(PARTITIONS))
def test_log_decode_is_dumplogsegments(lab, decoder):
    import labkit.dumplog

    log, partitions = PARTITIONS[decoder]
    segments = sorted(s for p in partitions for s in p.glob("*.log"))
    dumped = labkit.dumplog.dump(segments, decoder)
    kafka = {(Path(d.file).parent.name, r.offset): r for d in dumped for r in d.records}
    code, rows, err = kafka_meta_log(partitions)
    assert code == 0, err
    ours = {(f"{row['topic']}-{row['partition']}", row["offset"]): row for row in rows}
    assert kafka and set(kafka) == set(ours)
    mismatches = []
    for place, record in sorted(kafka.items()):
        row = ours[place]
        assert record.error is None and record.control is None, (place, record.error)
        got_key = {"type": str(row["recordType"]), "data": row["key"]}
        got_payload = None if row["value"] is None else {"version": str(row["valueVersion"]),
                                                          "data": kafka_payload(log, row)}
        want_payload = None if record.tombstone else record.payload
        if (got_key, got_payload) != (record.key, want_payload):
            mismatches.append(f"{place}: ours {got_key} {got_payload}; Kafka {record.key} {want_payload}")
    assert not mismatches, "\n".join(mismatches[:SHOWN])
    assert len(kafka) >= 10  # real traffic: every record of the recording compared
    names = {row["record"] for row in rows}
    assert names == ({"TransactionLog"} if log is transaction_log.LOG else {"ShareSnapshot", "ShareUpdate"})


# --- __remote_log_metadata: a real broker's, with tiered storage on (fixtures/tiered, docs/internal-topics.md) ----
REMOTE = Path(__file__).resolve().parents[1] / "fixtures" / "tiered" / "kafka-logs" / "__remote_log_metadata-0"


def segment_id(value: dict[str, Any]) -> str:
    tip = value["topicIdPartition"]
    return f"RemoteLogSegmentId{{topicIdPartition={tip['id']}:{tip['name']}-{tip['partition']}, id={value['id']}}}"


def as_kafka_prints(row: dict[str, Any]) -> str:
    """Our line as RemoteLogMetadataSerde's reading prints itself (its toString()), for the records a broker
    writes; the custom metadata Kafka shows as an Optional (the lab's remote storage keeps none)."""
    from kafka_meta.internal_topics.remote_log_metadata import SEGMENT_STATES

    value = row["value"]
    assert value["customMetadata"] is None
    state = SEGMENT_STATES[value["remoteLogSegmentState"]]
    if row["record"] == "RemoteLogSegmentMetadataRecord":
        epochs = ", ".join(f"{e['leaderEpoch']}={e['offset']}" for e in value["segmentLeaderEpochs"])
        return (f"RemoteLogSegmentMetadata{{remoteLogSegmentId={segment_id(value['remoteLogSegmentId'])}, "
                f"startOffset={value['startOffset']}, endOffset={value['endOffset']}, brokerId={value['brokerId']}, "
                f"maxTimestampMs={value['maxTimestampMs']}, eventTimestampMs={value['eventTimestampMs']}, "
                f"segmentLeaderEpochs={{{epochs}}}, segmentSizeInBytes={value['segmentSizeInBytes']}, "
                f"customMetadata=Optional.empty, state={state}, txnIdxEmpty={str(value['txnIndexEmpty']).lower()}}}")
    assert row["record"] == "RemoteLogSegmentMetadataUpdateRecord", row["record"]
    return (f"RemoteLogSegmentMetadataUpdate{{remoteLogSegmentId={segment_id(value['remoteLogSegmentId'])}, "
            f"customMetadata=Optional.empty, state={state}, eventTimestampMs={value['eventTimestampMs']}, "
            f"brokerId={value['brokerId']}}}")


def test_remote_log_metadata_decode_is_dumplogsegments(lab):
    """A broker with tiered storage on (labkit.broker.start(tiered_storage=True)) copied six segments of a topic to
    the lab's remote storage and deleted them there: every record of its __remote_log_metadata, as
    `--remote-log-metadata-decoder` prints it, is what `kafka-meta log --decode` read."""
    import labkit.dumplog

    [dumped] = labkit.dumplog.dump(sorted(REMOTE.glob("*.log")), "remote-log-metadata")
    code, rows, err = kafka_meta_log([REMOTE])
    assert code == 0, err
    assert [r.offset for r in dumped.records] == [row["offset"] for row in rows]
    mismatches = [f"{row['offset']}: ours {as_kafka_prints(row)}; Kafka {record.payload}"
                  for record, row in zip(dumped.records, rows, strict=True)
                  if record.key is not None or as_kafka_prints(row) != record.payload]
    assert not mismatches, "\n".join(mismatches[:SHOWN])
    states = {(row["record"], row["value"]["remoteLogSegmentState"]) for row in rows}
    assert states == {("RemoteLogSegmentMetadataRecord", 0), *(("RemoteLogSegmentMetadataUpdateRecord", s)
                                                               for s in (1, 2, 3))}
