"""kafka_meta.spark on a real local Spark: schemas, every type, both modes, row conservation, offsets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED_REASON, SPEC_DIR, golden_cases, need_shared

import kafka_meta as km

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from pyspark.sql import functions as F
from pyspark.sql.utils import PythonException

from kafka_meta.spark import FAILFAST, from_kafka_meta, schema_for
from kafka_meta.spark.offsets import decode_offsets, explode_members
from kafka_meta.spark.rows import row_from_model

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "fixtures" / "offsets" / "sample.jsonl"
JAVA = [c for c in golden_cases("java/consumer-protocol.jsonl")]


def test_schema_is_the_union_of_versions_plus_version_and_error():
    schema = schema_for("ConsumerProtocolSubscription")
    names = [f.name for f in schema.fields]
    assert names == ["topics", "userData", "ownedPartitions", "generationId", "rackId", "_version", "_error"]
    assert schema["generationId"].dataType.simpleString() == "int"
    assert schema_for("OffsetCommitValue")["topicId"].dataType.simpleString() == "string"


@pytest.mark.skipif(not JAVA, reason=SHARED_REASON)
def test_every_java_consumer_vector_decodes_like_the_python_api(spark):
    rows = [(c["type"], bytearray.fromhex(c["hex"])) for c in JAVA]
    df = spark.createDataFrame(rows, "type string, blob binary")
    for type_name in ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment"):
        got = df.where(F.col("type") == type_name).select(from_kafka_meta("blob", type_name).alias("m")).collect()
        expected = [km.decode(type_name, bytes(b)) for t, b in rows if t == type_name]
        assert len(got) == len(expected)
        for row, message in zip(got, expected, strict=True):
            as_dict = row.m.asDict(recursive=True)
            assert as_dict["_version"] == message.version and as_dict["_error"] is None
            assert {k: v for k, v in as_dict.items() if not k.startswith("_")} == row_from_model(message)


GOLDEN_EXAMPLES = {  # types whose all-defaults message Kafka would refuse: a real one instead
    "SubscriptionInfo": ("java/streams-subscription.jsonl", lambda c: c["version"] == 11),
    "MetadataRecord": ("java/feature-level.jsonl", lambda c: c["type"].startswith("MetadataRecordFrame/")),
}


def example_blob(name: str) -> bytes:
    try:
        return km.encode(km.model(name)())
    except km.EncodeError:
        source, wanted = GOLDEN_EXAMPLES[name]
        cases = [c for c in golden_cases(source) if wanted(c)]
        if not cases:
            pytest.skip(SHARED_REASON)
        return bytes.fromhex(cases[0]["hex"])


def test_every_registered_type_runs_in_spark(spark):
    """A valid message of each bundled type (all defaults, or a real one) decodes in Spark without an error."""
    names = [n for n in km.types() if getattr(km.get_format(n), "family", "") != "user"]
    blobs = [(name, bytearray(example_blob(name))) for name in names]
    df = spark.createDataFrame(blobs, "type string, b binary")
    for name in names:
        # request/response bodies (schemas/protocol) travel without their version: it is in the header
        fmt = km.get_format(name)
        options = {"version": fmt.versions.high} if type(getattr(fmt, "framing", None)).__name__ == "Unframed" \
            and fmt.versions.low != fmt.versions.high else None
        [row] = df.where(F.col("type") == name).select(from_kafka_meta("b", name, options).alias("m")).collect()
        assert row.m["_error"] is None and row.m["_version"] is not None, (name, row.m["_error"])


def test_specs_loaded_by_the_user_reach_the_workers(spark):
    need_shared()
    km.load_specs(SPEC_DIR / "clients" / "SyncGroupRequest.json", replace=True)
    message = km.model("SyncGroupRequest")(group_id="g", generation_id=3, member_id="m",
                                           assignments=[{"member_id": "m", "assignment": b"\x00\x01"}])
    df = spark.createDataFrame([(bytearray(km.encode(message, 5)),)], "b binary")
    [row] = df.select(from_kafka_meta("b", "SyncGroupRequest", {"version": 5}).alias("m")).collect()
    assert row.m._error is None and row.m.groupId == "g" and row.m.assignments[0].assignment == b"\x00\x01"


def test_permissive_keeps_every_row_and_failfast_stops(spark):
    good = km.encode(km.model("ConsumerProtocolAssignment")(assigned_partitions=[{"topic": "t", "partitions": [1]}]))
    blobs = [good, b"\x00\x03\x00", None, good, b"\xff\xff"] * 200
    df = spark.createDataFrame([(bytearray(b) if b is not None else None,) for b in blobs], "b binary").repartition(3)
    out = df.select(from_kafka_meta("b", "ConsumerProtocolAssignment").alias("m"))
    counts = out.select(
        F.count(F.lit(1)).alias("rows"), F.count("m").alias("non_null"),
        F.sum(F.when(F.col("m._error").isNotNull(), 1).otherwise(0)).alias("errors"),
        F.sum(F.when(F.col("m._version") == 3, 1).otherwise(0)).alias("decoded")).first()
    assert counts.rows == 1000 and counts.non_null == 800 and counts.errors == 400 and counts.decoded == 400
    with pytest.raises(PythonException, match="DecodeError"):
        df.select(from_kafka_meta("b", "ConsumerProtocolAssignment", {"mode": FAILFAST})).collect()


def test_options_are_checked_on_the_driver():
    with pytest.raises(ValueError, match="unknown option"):
        from_kafka_meta("b", "ConsumerProtocolAssignment", {"colour": "red"})
    with pytest.raises(km.UnknownTypeError):
        from_kafka_meta("b", "Nope")


def sample_frame(spark):
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    data = [(bytearray.fromhex(r["key"]), None if r["value"] is None else bytearray.fromhex(r["value"]),
             "__consumer_offsets", r["partition"], r["offset"], bool(r.get("control"))) for r in rows]
    return spark.createDataFrame(data, "key binary, value binary, topic string, partition int, offset long, "
                                       "isControl boolean")


def test_decode_offsets_gives_typed_columns_per_record_type(spark):
    df = decode_offsets(sample_frame(spark), control="isControl")
    assert df.count() == len(SAMPLE.read_text().splitlines())
    assert {"offsetCommit", "groupMetadata", "streamsGroupTopology", "members"} <= set(df.columns)
    assert df.where(F.col("_error").isNotNull()).count() == 0
    commits = df.where(F.col("recordName") == "OffsetCommit").select("offsetCommit.value.offset", "readForward")
    assert sorted(r.offset for r in commits.collect() if r.offset is not None) == [77, 1001, 1003, 1004]
    assert df.where("readForward").count() == 1 and df.where("unknown").count() == 1
    assert df.where("tombstone").count() == 3
    variants = {r.valueVariant for r in df.where(F.col("recordType").isin(9, 11, 18)).collect()}
    assert variants == {"2024-10", "2024-12", "2026-08"}


def test_explode_members_gives_one_row_per_member(spark):
    members = explode_members(decode_offsets(sample_frame(spark), control="isControl"))
    rows = {(r.groupId, r.memberId): r for r in members.collect()}
    assert set(rows) == {("billing", "c1-aaa"), ("billing", "c2-bbb"), ("ledger", "s1-ccc"), ("ledger", "s2-ddd"),
                         ("audit", "a1-eee"), ("audit", "a2-fff"), ("connect-cluster", "w1-ggg")}
    ledger = rows[("ledger", "s1-ccc")]
    assert ledger.protocol == "sticky" and ledger.decoded.subscriptionStickyAssignorUserData.generation == 3
    audit = rows[("audit", "a1-eee")]
    assert audit.decoded.subscription.rackId == "rack-a"
    assert audit.decoded.assignment.assignedPartitions[0].partitions == [0, 1]
    assert rows[("connect-cluster", "w1-ggg")].decoded is None  # Kafka Connect keeps its own bytes


def test_decode_offsets_permissive_and_failfast(spark):
    df = spark.createDataFrame([(bytearray(b"\x00\x01\x00"), bytearray(b"\x00"))], "key binary, value binary")
    [row] = decode_offsets(df).collect()
    assert row._error and row.recordType is None
    with pytest.raises(PythonException, match="DecodeError"):
        decode_offsets(df, options={"mode": "FAILFAST"}).collect()
