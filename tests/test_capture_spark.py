"""The kafka-meta-capture Spark data source on real captures: one partition per file, one row per exchange
(and per problem), the same values as read_capture, bodies as structs (tests/test_capture_spark_structs.py
checks them field by field) or, with bodies=json, JSON text that from_json turns into structs, bad files as
error rows rather than failed jobs."""

from __future__ import annotations

import pytest
from capture_support import FIXTURES, as_json, everything

from kafka_meta.spark.bodies import body_value

pytest.importorskip("pyspark")

STORM = FIXTURES / "cfk_storm.pcap"


@pytest.fixture(scope="module")
def captures(spark):
    from kafka_meta.spark import register

    register(spark)
    return spark.read.format("kafka-meta-capture")


def test_a_directory_decodes_one_partition_per_file(captures):
    files = sorted(p for p in FIXTURES.iterdir() if p.is_file())
    df = captures.load(str(FIXTURES))
    assert df.rdd.getNumPartitions() == len(files)
    rows = df.collect()
    want = [e for f in files for e in everything(f)[0]]
    assert len(rows) == len(want)
    got = {(r.source.file, r.source.frame, r.correlationId, r.client): r for r in rows}
    for e in want:
        r = got[(e["source"]["file"], e["source"]["frame"], e["correlationId"], e["client"])]
        assert (r.apiName, r.apiVersion, r.clientId, r.groupId, r.memberId, r.errorCode, r.ts, r.latencyMs) == \
            (e["apiName"], e["apiVersion"], e["clientId"], e["groupId"], e["memberId"], e["errorCode"], e["ts"],
             e["latencyMs"])
        assert without_nulls(as_json(body_value(r.request.asDict(recursive=True)))) == \
            without_nulls(as_json(e["request"]))


def without_nulls(value):
    """A body without its null fields and derived views: the struct cannot tell a field absent at the
    row's version from a null one, and leaves the views out (docs/capture.md)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None and k not in ("clientView",
                                                                                             "streamsView")}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def test_json_bodies_become_structs(captures):
    from pyspark.sql import functions as F

    df = captures.option("bodies", "json").load(str(STORM)).where("apiName = 'JoinGroup' and errorCode = 0")
    schema = "struct<groupId:string,protocols:array<struct<name:string,metadata:struct<topics:array<string>," \
             "_type:string,_version:int>>>>"
    rows = df.select(F.from_json("request", schema).alias("r")).select(
        "r.groupId", F.explode("r.protocols").alias("p")).collect()
    assert rows and {r.groupId for r in rows} == {"g-cfk-storm"}
    assert {(r.p.name, r.p.metadata._type) for r in rows} == {("range", "ConsumerProtocolSubscription")}
    assert all(set(r.p.metadata.topics) == {"orders", "payments"} for r in rows)


def test_bad_input_gives_error_rows(captures, tmp_path):
    text = tmp_path / "notes.pcap"
    text.write_text("not a capture")
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(STORM.read_bytes()[:-100])
    rows = captures.load([str(text), str(cut)]).collect()
    bad = [r for r in rows if r.source.file == str(text)]
    assert len(bad) == 1 and "not a pcap or pcapng capture" in bad[0]._error and bad[0].apiKey is None
    exs, problems = everything(cut)
    from_cut = [r for r in rows if r.source.file == str(cut)]
    assert len(from_cut) == len(exs) + len(problems)
    assert sum(1 for r in from_cut if r.apiKey is None and "file ends inside" in (r._error or "")) == 1


def test_ports_option(captures):
    rows = captures.load(str(STORM)).collect()
    port = rows[0].broker.rsplit(":", 1)[1]
    assert captures.option("ports", port).load(str(STORM)).count() == len(rows)
    assert captures.option("ports", "1").load(str(STORM)).count() == 0
