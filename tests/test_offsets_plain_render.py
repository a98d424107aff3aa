"""The plain rendering of __consumer_offsets records is the typed one: for every record of the fixtures, the
captures, Kafka's golden vectors and generated records (nests and damaged bytes included), PlainRenderer gives
exactly ``record_json(decode_record(...))`` (same keys in the same order, same values, same errors), and the
verbs that print records print the same bytes either way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED_REASON, golden_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from log_support import LOGS, SAMPLE

import kafka_meta as km
from kafka_meta.cli import log_dump
from kafka_meta.cli.blobs import from_text
from kafka_meta.cli.main import main
from kafka_meta.errors import KafkaMetaError
from kafka_meta.log import Record, SegmentReader, find_segments, read_log
from kafka_meta.log.compression import Inflater
from kafka_meta.log.files import segment_bytes
from kafka_meta.offsets import catalog, decode_record
from kafka_meta.offsets.plain_render import NotCovered, PlainRenderer
from kafka_meta.offsets.render import RecordStats, group_of_json, kind_of_json, record_json
from kafka_meta.testing.strategies import values_for

CAPTURE = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "capture.jsonl"
MODES = [(strict, raw) for strict in (False, True) for raw in (False, True)]
RENDERERS = {mode: PlainRenderer(strict=mode[0], raw=mode[1]) for mode in MODES}
SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def text(obj) -> str:
    """What the verbs print: key order and JSON types count, not only equality."""
    return json.dumps(obj, ensure_ascii=False)


def typed(key, value, strict, raw, control=False) -> str:
    try:
        return text(record_json(decode_record(key, value, strict=strict, control=control), raw=raw))
    except KafkaMetaError as e:
        return f"error: {e}"


def plain(key, value, strict, raw, control=False) -> str:
    try:
        return text(RENDERERS[strict, raw](key, value, control))
    except KafkaMetaError as e:
        return f"error: {e}"


def assert_same(key, value, control=False) -> bool:
    """Both paths agree in every mode, and so does the text of the record printed alone; returns whether the
    plain path itself read the record (lenient)."""
    covered = False
    for strict, raw in MODES:
        want = typed(key, value, strict, raw, control)
        assert plain(key, value, strict, raw, control) == want, f"strict={strict} raw={raw} {key!r} {value!r}"
        renderer = RENDERERS[strict, raw]
        try:  # the plain path alone, where it applies: the same JSON (not only by falling back)
            got = renderer.render(key, value, control)
        except Exception:  # noqa: BLE001 - not covered: the typed path answered above
            pass
        else:
            assert text(got) == want
            covered = covered or (strict, raw) == (False, False)
        found = None if control else renderer.text(key, value)
        if found is not None:
            body, name, tombstone, read_forward = found
            assert "{" + body + "}" == want
            rendered = json.loads(want)
            assert (name, tombstone, read_forward) == (rendered["record"], rendered["value"] is None,
                                                      "readForward" in rendered)
    return covered


def log_records() -> list[tuple[bytes | None, bytes | None, bool]]:
    out = []
    reader = SegmentReader(Inflater(1 << 24), None)
    for segment in find_segments(LOGS):
        with segment_bytes(segment) as data:
            out += [(e.key, e.value, e.control) for e in reader.events(data) if isinstance(e, Record)]
    return out


def test_every_record_of_the_fixture_logs():
    records = log_records()
    covered = sum(assert_same(key, value, control) for key, value, control in records)
    markers = sum(control for _, _, control in records)
    assert len(records) == 149 and markers == 2
    assert covered == len(records)  # every record read without models


def test_the_captures_and_the_offsets_sample():
    rows = [json.loads(line) for path in (CAPTURE, SAMPLE) for line in path.read_text().splitlines()]
    rows = [r for r in rows if "key" in r]
    assert len(rows) > 40
    for row in rows:
        value = None if row.get("value") is None else from_text(row["value"])
        assert_same(from_text(row["key"]), value, bool(row.get("control")))


GOLDEN = [c for snapshot in ("java", "java-2026") for c in golden_cases(f"{snapshot}/offsets-topic.jsonl")]


@pytest.mark.skipif(not GOLDEN, reason=SHARED_REASON)
def test_kafkas_golden_records():
    for case in GOLDEN:
        value = None if case["hex"] is None else bytes.fromhex(case["hex"])
        assert assert_same(bytes.fromhex(case["keyHex"]), value)


def group_record(protocol: str | None, subscription: bytes, assignment: bytes, version: int = 3) -> tuple:
    member = {"memberId": "m", "clientId": "c", "clientHost": "h", "sessionTimeout": 1, "rebalanceTimeout": 2,
              "subscription": subscription, "assignment": assignment}
    value = {"protocolType": "consumer", "generation": 1, "protocol": protocol, "leader": "m", "members": [member]}
    rt = catalog()[2]
    return rt.key.encode({"group": "g"}), rt.values.encode(rt.values.model.model_validate(value), version)


@pytest.mark.skipif(not golden_cases("java/consumer-protocol.jsonl"), reason=SHARED_REASON)
def test_golden_member_bytes_nested():
    """Kafka's consumer-protocol messages and assignor user data as a group member's bytes."""
    subscriptions = [c for c in golden_cases("java/consumer-protocol.jsonl") if "Subscription" in c["type"]]
    assignments = [c for c in golden_cases("java/consumer-protocol.jsonl") if "Assignment" in c["type"]]
    assert subscriptions and assignments
    for sub, asg in zip(subscriptions, assignments * len(subscriptions), strict=False):
        for protocol in ("range", "sticky", "cooperative-sticky", "stream", None):
            assert_same(*group_record(protocol, bytes.fromhex(sub["hex"]), bytes.fromhex(asg["hex"])))
    for case in golden_cases("java/sticky-userdata.jsonl"):
        user_data = None if case["hex"] is None else bytes.fromhex(case["hex"])
        subscription = km.encode(km.model("ConsumerProtocolSubscription")(topics=["a"], user_data=user_data), 1)
        for protocol in ("sticky", "cooperative-sticky"):
            assert_same(*group_record(protocol, subscription, b""))


LAYOUTS = [(rt.number, variant.label, variant.format, version)
           for rt in catalog().values() for variant in rt.values.variants for version in variant.format.versions]


@pytest.mark.parametrize("number, label, fmt, version", LAYOUTS,
                         ids=[f"{n}-{label}-v{v}" for n, label, _, v in LAYOUTS])
@SETTINGS
@given(data=st.data())
def test_generated_records(number, label, fmt, version, data):
    rt = catalog()[number]
    key = rt.key.encode(data.draw(values_for(rt.key.construct(0))))
    value = fmt.encode(data.draw(values_for(fmt.construct(version))), version)
    assert assert_same(key, value) or number in (2, 5)  # a nest of drawn bytes may not decode
    assert assert_same(key, None)
    assert_same(key, value + data.draw(st.binary(min_size=1, max_size=4)))  # trailing bytes
    assert_same(key, value[:data.draw(st.integers(0, max(len(value) - 1, 0)))])  # cut short
    newer = (fmt.versions.high + data.draw(st.integers(1, 3))).to_bytes(2, "big")
    assert_same(key, newer + value[2:])  # a version newer than known (read forward, or refused)


def member_bytes(type_name: str, data) -> bytes:
    """Bytes of one of the type's layouts at one of its versions, as drawn (user data: any variant)."""
    fmt = km.get_format(type_name)
    layouts = getattr(fmt, "variants", None)
    layout = data.draw(st.sampled_from([v.format for v in layouts])) if layouts else fmt
    version = data.draw(st.sampled_from(list(layout.versions)))
    return layout.encode(data.draw(values_for(layout.construct(version))), version)


USER_DATA = {"sticky": "StickyAssignorUserData", "cooperative-sticky": "CooperativeStickyAssignorUserData",
             "stream": "SubscriptionInfo"}


@settings(SETTINGS, max_examples=60)
@given(data=st.data())
def test_generated_nests(data):
    """Consumer groups whose members carry consumer-protocol bytes with assignor user data (or garbage), and
    KIP-848 members with classic protocols: decoded in place by both paths, errors included."""
    protocol = data.draw(st.sampled_from([*USER_DATA, "range", None]))
    garbage = st.binary(max_size=12)
    members = []
    for _ in range(data.draw(st.integers(0, 3))):
        user_data = None
        if protocol in USER_DATA and data.draw(st.booleans()):
            user_data = member_bytes(USER_DATA[protocol], data)
        elif data.draw(st.booleans()):
            user_data = data.draw(garbage)
        subscription = km.model("ConsumerProtocolSubscription")(topics=["t"], user_data=user_data)
        sub_bytes = km.encode(subscription, data.draw(st.integers(0, 3)))
        asg_bytes = data.draw(st.one_of(st.just(b""), garbage, st.builds(
            lambda v: km.encode(km.model("ConsumerProtocolAssignment")(assigned_partitions=[], user_data=v)),
            st.none() | garbage)))
        members.append({"memberId": "m", "clientId": "c", "clientHost": "h", "sessionTimeout": 1,
                        "rebalanceTimeout": 2, "subscription": data.draw(st.just(sub_bytes) | garbage),
                        "assignment": asg_bytes})
    rt = catalog()[2]
    value = {"protocolType": data.draw(st.sampled_from(["consumer", "connect"])), "generation": 1,
             "protocol": protocol, "leader": "m", "members": members}
    key = rt.key.encode({"group": "g"})
    assert_same(key, rt.values.encode(rt.values.model.model_validate(value), data.draw(st.integers(0, 4))))
    classic = catalog()[5]
    protocols = [{"name": p, "metadata": data.draw(st.just(sub_bytes) | garbage)}
                 for p in data.draw(st.lists(st.sampled_from([*USER_DATA, "range"]), max_size=3))
                 for sub_bytes in [km.encode(km.model("ConsumerProtocolSubscription")(
                     topics=["t"], user_data=member_bytes(USER_DATA[p], data) if p in USER_DATA else None))]]
    member = classic.values.model.model_validate(
        {"classicMemberMetadata": {"sessionTimeoutMs": 1, "supportedProtocols": protocols}})
    assert_same(classic.key.encode({"group_id": "g", "member_id": "m"}), classic.values.encode(member))


@settings(SETTINGS, max_examples=200)
@given(key=st.binary(max_size=24), value=st.none() | st.binary(max_size=40), control=st.booleans())
def test_arbitrary_bytes(key, value, control):
    assert_same(key, value, control)


@SETTINGS
@given(number=st.sampled_from([*catalog(), 99, -1]), value=st.none() | st.binary(max_size=30))
def test_known_record_types_with_arbitrary_values(number, value):
    assert_same(number.to_bytes(2, "big", signed=True) + b"\x00\x01g\x00\x01t\x00\x00\x00\x01", value)


def test_stats_filters_and_kinds_from_the_json():
    """The summary counts, --group and --type read the JSON as they read the typed records."""
    typed_stats, json_stats = RecordStats(), RecordStats()
    for key, value, control in log_records():
        record = decode_record(key, value, control=control)
        rendered = record_json(record)
        typed_stats.add(record)
        json_stats.add_json(rendered)
        assert group_of_json(rendered) == record.group_id
        kind = "control" if control else ("unknown" if rendered.get("unknown") else record.record_name)
        assert kind_of_json(rendered) == kind
    assert json_stats.summary() == typed_stats.summary() and "control 2" in typed_stats.summary()


# ------------------------------------------------------------------ the verbs print the same bytes
def run(capsys, argv) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def reference_log_output(raw: bool) -> str:
    """``kafka-meta log --decode`` as it printed records before the plain path: record_json(decode_record(...))
    after where each record was read (and, for a record of a transactional batch, its producer and how its
    transaction ended), dumped by json.dumps."""
    lines = []
    for row in read_log(LOGS, limit=1 << 24):
        if row["_error"] is None:
            where = {k: row[k] for k in ("topic", "partition", "offset", "timestamp")}
            if row["transaction"] is not None:
                where.update(producerId=row["producerId"], transaction=row["transaction"])
            record = decode_record(row["key"], row["value"], control=row["control"])
            lines.append(json.dumps({**where, **record_json(record, raw=raw)}, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


@pytest.mark.parametrize("raw", [False, True])
def test_log_decode_prints_the_typed_bytes(capsys, raw):
    code, out, err = run(capsys, ["log", "--decode", str(LOGS), *(["--raw"] if raw else [])])
    assert code == 1  # the fixtures' damaged batches
    printed = "".join(line + "\n" for line in out.splitlines() if '"_error": ' not in line)
    assert printed == reference_log_output(raw)
    stats = RecordStats()
    for key, value, control in log_records():
        stats.add(decode_record(key, value, control=control))
    assert stats.summary() in err.splitlines()


def forced_typed(monkeypatch) -> None:
    """Every record through decode_record and record_json, as before the plain path."""
    def render(self, key, value, control=False):
        raise NotCovered("forced")

    monkeypatch.setattr(PlainRenderer, "render", render)
    monkeypatch.setattr(PlainRenderer, "text", lambda self, key, value: None)


VERBS = [
    ["log", "--decode", str(LOGS)],
    ["log", "--decode", "--raw", str(LOGS)],
    ["log", "--decode", "--strict", str(LOGS)],
    ["log", "--group", "checkout", str(LOGS)],
    ["log", "--decode", "--raw", "--group", "ledger", str(LOGS)],
    ["offsets", str(SAMPLE)],
    ["offsets", "--raw", "--type", "GroupMetadata,unknown,control,1", str(SAMPLE)],
    ["offsets", "--strict", "--group", "checkout", str(SAMPLE)],
    ["offsets", str(CAPTURE)],
    ["offsets", str(LOGS)],
]


@pytest.mark.parametrize("argv", VERBS, ids=lambda argv: " ".join(a for a in argv if "/" not in a))
def test_verbs_print_what_the_typed_path_printed(capsys, monkeypatch, argv):
    monkeypatch.setattr(log_dump, "PROGRESS_EVERY", 1e9)  # no progress lines: timing would make them differ
    fast = run(capsys, argv)
    forced_typed(monkeypatch)
    assert fast == run(capsys, argv)
    assert fast[1].count("\n") > 5
