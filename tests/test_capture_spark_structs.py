"""The kafka-meta-capture source's request/response structs: derived from the spec files (every field of
every version is a column), holding exactly what read_capture decodes for every exchange of every fixture
capture, read back by the analyze job's timeline, and keeping damaged bodies as rows with ``_error``."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from capture_support import FIXTURES, SHARED_CAPTURES, as_json, everything, tcp_segments, with_tcp, write_pcap

pytest.importorskip("pyspark")

from pyspark.sql import types as T

from kafka_meta.models.values import kafka_uuid_text
from kafka_meta.spark.bodies import (
    NESTED,
    RAW,
    UnfitValue,
    body_rows,
    body_spark_type,
    body_value,
    decoded_apis,
)
from kafka_meta.spark.schema import choice_name

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "schemas" / "protocol"
STORM = FIXTURES / "cfk_storm.pcap"
VIEWS = ("clientView", "streamsView")  # derived views: in the JSON form, not stored (docs/capture.md)
MARKERS = ("_type", "_version", "_error", "_raw")


def all_captures() -> list[Path]:
    files = sorted(p for p in FIXTURES.iterdir() if p.is_file())
    if SHARED_CAPTURES is not None:
        files += sorted(p for p in SHARED_CAPTURES.iterdir() if p.suffix in (".pcap", ".pcapng"))
    return files


@pytest.fixture(scope="module")
def captures(spark):
    from kafka_meta.spark import register

    register(spark)
    return spark.read.format("kafka-meta-capture")


# --- the values: every exchange of every fixture capture ---------------------------------------------


def assert_holds(struct, value, path: str) -> None:
    """``struct`` (a Row as a dict) holds ``value`` (the protocol layer's decoded form): each field of the
    value in the struct field of its name, every other struct field null; member metadata bytes in
    ``_raw``; user data under its type's field; uuids in Kafka's text form."""
    if value is None:
        assert struct is None, path
    elif isinstance(value, bytes) and isinstance(struct, dict):  # member metadata left as bytes
        assert bytes(struct["_raw"]) == value and all(struct[k] is None for k in struct if k != "_raw"), path
    elif isinstance(value, bytes):
        assert bytes(struct) == value, path
    elif isinstance(value, uuid.UUID):
        assert struct == kafka_uuid_text(value), path
    elif isinstance(value, tuple):  # an unknown tagged field
        assert (struct["tag"], bytes(struct["data"])) == value, path
    elif isinstance(value, list):
        assert isinstance(struct, list) and len(struct) == len(value), path
        for i, (s, v) in enumerate(zip(struct, value, strict=True)):
            assert_holds(s, v, f"{path}[{i}]")
    elif isinstance(value, dict):
        assert isinstance(struct, dict), path
        choice = choice_name(value["_type"]) if "_type" in value and "_error" not in value else None
        if choice in struct:  # user data: the decoded message under its type's field
            inner = {k: v for k, v in value.items() if k not in MARKERS}
            value = {k: v for k, v in value.items() if k in MARKERS} | {choice: inner}
        value = {k: v for k, v in value.items() if k not in VIEWS}
        assert set(value) <= set(struct), f"{path}: {sorted(set(value) - set(struct))} not in the struct"
        for k, s in struct.items():
            assert_holds(s, value.get(k), f"{path}.{k}")
    else:
        assert struct == value and type(struct) is type(value), f"{path}: {struct!r} != {value!r}"


def assert_body(struct, body, api: str | None, path: str) -> None:
    """One field set per body: the exchange's api, or ``_raw`` for bytes left undecoded."""
    if body is None:
        assert struct is None, path
        return
    set_fields = [k for k, v in struct.items() if v is not None]
    if RAW in body:
        assert set_fields == [RAW] and bytes(struct[RAW]) == body[RAW], path
    else:
        assert set_fields == [api], (path, set_fields)
        assert_holds(struct[api], body, f"{path}.{api}")


def without_nulls(value):
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None and k not in VIEWS}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def test_every_exchange_of_every_capture_as_structs(captures):
    files = all_captures()
    rows = captures.load([str(f) for f in files]).collect()
    expected = [(f, everything(f)) for f in files]
    assert len(rows) == sum(len(exs) + len(problems) for _, (exs, problems) in expected)
    got = {(r.source.file, r.source.frame, r.correlationId, r.client): r for r in rows if r.apiKey is not None}
    seen_apis = set()
    for _, (exs, _problems) in expected:
        for e in exs:
            if e["apiKey"] is None:
                continue
            r = got[(e["source"]["file"], e["source"]["frame"], e["correlationId"], e["client"])]
            assert r._error == e["_error"]
            for side in ("request", "response"):
                struct = None if r[side] is None else r[side].asDict(recursive=True)
                assert_body(struct, e[side], e["apiName"], f"{e['source']}.{side}")
                # what the timeline reads back: the JSON form's values, nulls and views aside
                assert without_nulls(as_json(body_value(struct))) == without_nulls(as_json(e[side]))
            seen_apis.add(e["apiName"])
    assert {"JoinGroup", "SyncGroup", "Heartbeat", "ConsumerGroupHeartbeat", "OffsetCommit"} <= seen_apis


def test_column_paths_reach_into_bodies_and_member_metadata(captures):
    from pyspark.sql import functions as F

    df = captures.load(str(FIXTURES / "aio_streams.pcapng"))
    joins = df.where("apiName = 'JoinGroup'").select(
        "request.JoinGroup.groupId", F.explode("request.JoinGroup.protocols").alias("p")).collect()
    assert joins and {r.p.name for r in joins} == {"stream"}
    info = [r.p.metadata.userData for r in joins]
    assert {(u._type, u._version, u.subscriptionInfo.latestSupportedVersion) for u in info} == \
        {("SubscriptionInfo", 11, 11)}
    assert all(u.stickyAssignorUserData is None and u._raw is None for u in info)
    synced = df.where("apiName = 'SyncGroup' and response.SyncGroup.errorCode = 0").select(
        "client", "correlationId", "response.SyncGroup.assignment").collect()
    from kafka_meta.capture import read_capture

    want = {(ex.client, ex.correlation_id): ex.response["assignment"]
            for ex in read_capture(FIXTURES / "aio_streams.pcapng")
            if ex.api_name == "SyncGroup" and ex.response and not ex.response["errorCode"]}
    assert synced and len(synced) == len(want)
    for r in synced:
        a, w = r.assignment, want[(r.client, r.correlationId)]
        assert [(t.topic, t.partitions) for t in a.assignedPartitions] == \
            [(t["topic"], t["partitions"]) for t in w["assignedPartitions"]]
        assert [t.asDict() for t in a.userData.assignmentInfo.activeTasks] == w["userData"]["activeTasks"]
        assert a.userData._type == "AssignmentInfo" and a.userData._version == w["userData"]["_version"]


# --- the types: derived from the spec files ----------------------------------------------------------

SCALARS = {"int8": T.ByteType(), "int16": T.ShortType(), "int32": T.IntegerType(), "int64": T.LongType(),
           "uint16": T.IntegerType(), "float64": T.DoubleType(), "string": T.StringType(),
           "bytes": T.BinaryType(), "bool": T.BooleanType(), "uuid": T.StringType()}


def read_spec(path: Path) -> dict:
    """A spec file of Kafka's JSON dialect (``//`` comments) read as plain JSON."""
    return json.loads(re.sub(r"^\s*//.*$", "", path.read_text(), flags=re.MULTILINE))


def spec_fields(spec: dict, fields: list[dict], prefix: tuple[str, ...] = ()):
    """(path, Kafka type) of every field of every version, nested ones too, camelCase as Kafka's JSON."""
    common = {s["name"]: s["fields"] for s in spec.get("commonStructs", [])}
    for f in fields:
        path = (*prefix, f["name"][0].lower() + f["name"][1:])
        yield path, f["type"]
        element = f["type"].removeprefix("[]")
        nested = f.get("fields") or common.get(element)
        if nested:
            yield from spec_fields(spec, nested, path)


def spark_field(struct: T.StructType, path: tuple[str, ...]):
    """The Spark type at ``path``, through arrays of structs."""
    t: T.DataType = struct
    for name in path:
        while isinstance(t, T.ArrayType):
            t = t.elementType
        assert isinstance(t, T.StructType) and name in t.fieldNames(), f"{'.'.join(path)}: no field {name!r}"
        t = t[name].dataType
    return t


def kafka_type_matches(kafka: str, t: T.DataType) -> bool:
    if kafka.startswith("[]"):
        return isinstance(t, T.ArrayType) and kafka_type_matches(kafka[2:], t.elementType)
    if kafka in SCALARS:
        return t == SCALARS[kafka]
    return isinstance(t, T.StructType)


@pytest.mark.parametrize("spec_file", sorted(SPECS.glob("*.json")), ids=lambda p: p.stem)
def test_every_field_of_every_version_is_a_column(spec_file):
    spec = read_spec(spec_file)
    kind = spec["type"].capitalize()
    api = spec["name"].removesuffix(kind)
    assert decoded_apis(kind)[api] == spec["name"]
    struct = body_spark_type(kind)[api].dataType
    nested = NESTED.get(spec["name"], {})
    paths = list(spec_fields(spec, spec["fields"]))
    assert paths
    for path, kafka in paths:
        t = spark_field(struct, path)
        if path in nested:  # member metadata: the consumer protocol's message, and the bytes beside it
            assert kafka == "bytes" and isinstance(t, T.StructType)
            assert {"_type", "_version", "_error", "_raw"} <= set(t.fieldNames())
            assert ("assignedPartitions" if nested[path] else "topics") in t.fieldNames()
        else:
            assert kafka_type_matches(kafka, t), f"{spec['name']}.{'.'.join(path)}: {kafka} as {t}"
    if spec.get("flexibleVersions", "none") != "none":
        assert "_unknownTaggedFields" in struct.fieldNames()


def test_each_decoded_api_and_raw_are_the_fields_of_a_body():
    for kind in ("Request", "Response"):
        names = body_spark_type(kind).fieldNames()
        assert names[-1] == RAW
        assert set(names[:-1]) == {p.stem.removesuffix(kind) for p in SPECS.glob(f"*{kind}.json")}


def test_member_metadata_user_data_has_a_field_per_assignor_type():
    join = body_spark_type("Request")["JoinGroup"].dataType
    user_data = spark_field(join, ("protocols", "metadata", "userData"))
    assert set(user_data.fieldNames()) == {"stickyAssignorUserData", "cooperativeStickyAssignorUserData",
                                           "subscriptionInfo", "_type", "_version", "_error", "_raw"}
    sync = body_spark_type("Response")["SyncGroup"].dataType
    assert set(spark_field(sync, ("assignment", "userData")).fieldNames()) == \
        {"assignmentInfo", "_type", "_version", "_error", "_raw"}


# --- damage and values that do not fit ---------------------------------------------------------------


def damaged_storm(tmp_path: Path) -> tuple[Path, int, int]:
    """cfk_storm with one JoinGroup request's group id length made huge (the body does not decode) and
    another's subscription claiming 2**31-1 topics (its member metadata does not decode)."""
    from capture_support import read_packets

    packets = read_packets(STORM)
    joins = [s for s in tcp_segments(packets) if s.payload[4:6] == b"\x00\x0b"]
    body_cut, meta_cut = joins[0], joins[1]
    head = 4 + 8 + 2 + int.from_bytes(body_cut.payload[12:14], "big")  # size, key, version, correlation, client id
    bad_body = body_cut.payload[:head] + b"\x7f\xff" + body_cut.payload[head + 2:]
    at = meta_cut.payload.index(b"\x00\x05range") + 7 + 4 + 2  # name, metadata length, its version
    bad_meta = meta_cut.payload[:at] + b"\x7f\xff\xff\xff" + meta_cut.payload[at + 4:]
    packets[body_cut.index] = with_tcp(packets[body_cut.index], payload=bad_body)
    packets[meta_cut.index] = with_tcp(packets[meta_cut.index], payload=bad_meta)
    return write_pcap(tmp_path / "damaged.pcap", packets), body_cut.index + 1, meta_cut.index + 1


def test_damaged_bodies_stay_rows_with_error(captures, tmp_path):
    path, body_frame, meta_frame = damaged_storm(tmp_path)
    rows = captures.load(str(path)).collect()
    exs, problems = everything(path)
    assert len(rows) == len(exs) + len(problems)
    by_frame = {r.source.frame: r for r in rows if r.apiName == "JoinGroup"}
    raw = by_frame[body_frame]
    assert raw.request.JoinGroup is None and raw.request._raw and "request" in raw._error
    meta = by_frame[meta_frame].request.JoinGroup.protocols[0].metadata
    assert meta._type == "ConsumerProtocolSubscription" and meta._error and meta._raw and meta.topics is None
    assert "protocols[0].metadata" in by_frame[meta_frame]._error
    clean = [r for r in rows if r.apiName == "JoinGroup" and r.source.frame not in (body_frame, meta_frame)]
    assert clean and all(r._error is None and r.request.JoinGroup.groupId == "g-cfk-storm" for r in clean)


def storm_join() -> dict:
    from kafka_meta.capture import read_capture

    return next(ex.to_dict() for ex in read_capture(STORM) if ex.api_name == "JoinGroup" and ex.response)


@pytest.mark.parametrize("damage, where", [
    (lambda b: b.update(groupId=5), "request.JoinGroup.groupId: a string, not int"),
    (lambda b: b.update(sessionTimeoutMs=2**31), "request.JoinGroup.sessionTimeoutMs: 2147483648 does not fit"),
    (lambda b: b.update(groupId="g\ud800"), "request.JoinGroup.groupId: a string Spark cannot hold"),
    (lambda b: b["protocols"][0]["metadata"].update(topics=[b"x"]),
     "request.JoinGroup.protocols[0].metadata.topics[0]: a string, not bytes"),
    (lambda b: b["protocols"][0]["metadata"].update(surprise=1),
     "request.JoinGroup.protocols[0].metadata: fields the type does not have: surprise"),
    (lambda b: b.update(protocols="range"), "request.JoinGroup.protocols: a list, not str"),
])
def test_values_that_do_not_fit_are_named(damage, where):
    body = storm_join()["request"]
    damage(body)
    with pytest.raises(UnfitValue) as caught:
        body_rows("Request").row("JoinGroup", body)
    assert caught.value.where("request").startswith(where)


def test_bodies_that_are_no_body_are_named():
    for body, where in (([1], "request: a body (a dict), not list"),
                        ({"_raw": b"x", "groupId": "g"}, "request: a raw body with other fields: groupId"),
                        ({"groupId": "g"}, "request: a decoded body of Fetch, which has no field here")):
        with pytest.raises(UnfitValue) as caught:
            body_rows("Request").row("Fetch", body)
        assert caught.value.where("request") == where


def test_a_body_that_does_not_fit_is_null_with_error_in_its_row():
    from kafka_meta.spark.sources.capture import struct_bodies

    ex = storm_join()
    ex["response"]["members"][0]["metadata"]["generationId"] = "seven"
    request, response, error = struct_bodies(ex)
    assert request is not None and response is None
    assert error.startswith("response left out, it does not fit its struct: "
                            "response.JoinGroup.members[0].metadata.generationId: 'seven' does not fit int32")


# --- the JSON option ---------------------------------------------------------------------------------


def test_bodies_json_option_keeps_the_text(captures):
    df = captures.option("bodies", "json").load(str(STORM))
    assert dict(df.dtypes)["request"] == "string"
    exs = {(e["client"], e["correlationId"]): e for e in everything(STORM)[0]}
    for r in df.collect():
        e = exs[(r.client, r.correlationId)]
        assert json.loads(r.request) == as_json(e["request"])
        assert (r.response is None) == (e["response"] is None)


def test_a_bad_bodies_option_is_named(captures):
    with pytest.raises(Exception, match=r"bodies=.xml.*struct, json"):
        captures.option("bodies", "xml").load(str(STORM)).schema  # noqa: B018


def test_a_value_arrow_refuses_keeps_its_row():
    """The rows go to Spark as Arrow batches; a value Arrow refuses (none is expected: the bodies are
    checked first) is left null and named in its row's _error, and the batch keeps every row."""
    from kafka_meta.spark.sources.capture import arrow_schema, exchange_rows, row_batches

    rows = list(exchange_rows(str(STORM)))
    at = arrow_schema("struct").names.index("stream")
    rows[1] = (*rows[1][:at], 2**40, *rows[1][at + 1:])
    (batch,) = row_batches(iter(rows), arrow_schema("struct"))
    assert batch.num_rows == len(rows)
    assert batch.column("stream")[1].as_py() is None and "stream left out" in batch.column("_error")[1].as_py()
    assert batch.column("request")[1].as_py() is not None and batch.column("_error")[2].as_py() is None
