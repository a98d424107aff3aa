"""decode_offsets' columnar path gives exactly the row path's output (no Spark needed): every record type of
the sample dump, whole and damaged, lenient and strict; rows in = rows out, in order, with the same _error."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_meta.errors import KafkaMetaError
from kafka_meta.offsets import catalog
from kafka_meta.spark.batch import FAILFAST
from kafka_meta.spark.offsets import decode_batch, decode_rows, record_columns
from kafka_meta.spark.offsets_columnar import GROUP_METADATA, NESTED, ColumnarOffsets
from kafka_meta.testing.strategies import values_for

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "offsets" / "sample.jsonl"


def _sample() -> list[tuple[bytes, bytes | None]]:
    out = []
    for line in SAMPLE.read_text().splitlines():
        record = json.loads(line)
        out.append((bytes.fromhex(record["key"]), None if record["value"] is None else bytes.fromhex(record["value"])))
    return out


RECORDS = _sample()


def _damaged(key: bytes, value: bytes | None) -> list[tuple[bytes | None, bytes | None]]:
    """Truncations of key and value, trailing bytes, a version beyond the known ones, bad UTF-8, nulls."""
    out: list[tuple[bytes | None, bytes | None]] = [(key, None), (None, value), (key + b"\x00", value)]
    out += [(key[:n], value) for n in (0, 1, 2, 3, len(key) - 1)]
    if value:
        out += [(key, value[:n]) for n in (0, 1, 2, 3, len(value) // 2, len(value) - 1)]
        out += [(key, value + b"\x00"), (key, b"\x7f\xff" + value[2:]), (key, value[:2] + b"\xff" * 8)]
        forward = (int.from_bytes(value[:2], "big") + 1).to_bytes(2, "big")
        out.append((key, forward + value[2:]))
    if len(key) > 6:  # the group id's first bytes (after the record type and string length) made invalid UTF-8
        out.append((key[:4] + b"\xff\xfe" + key[6:], value))
    return out


def _both(pairs: list[tuple[bytes | None, bytes | None]], strict: bool = False,
          controls: list[bool] | None = None) -> tuple[list[dict], list[dict]]:
    keys = pa.array([k for k, _ in pairs], pa.binary())
    values = pa.array([v for _, v in pairs], pa.binary())
    flags = None if controls is None else pa.array(controls, pa.bool_())
    columnar = decode_batch(keys, values, strict=strict, controls=flags)
    rows = decode_rows(keys, values, strict=strict, controls=flags)
    assert columnar.type == rows.type == record_columns()
    columnar.validate(full=True)  # buffers put together by hand (spread columns, null columns) are sound
    return columnar.to_pylist(), rows.to_pylist()


def test_single_layout_record_types_without_nest_have_a_columnar_plan():
    decoder = ColumnarOffsets(False, record_columns())
    for rt in catalog().values():
        plan = decoder.plans[rt.number]
        simple = (rt.number not in NESTED or rt.number == GROUP_METADATA) and len(rt.values.variants) == 1
        assert (plan is not None) == simple, rt.name


def test_sample_records_go_columnar_where_they_can():
    """Only the record types without a plan reach the row path (its calls are counted)."""
    keys = [k for k, _ in RECORDS]
    values = [v for _, v in RECORDS]
    seen: list[bytes | None] = []

    def slow_row(key, value, control):
        seen.append(key)
        return decode_rows(pa.array([key], pa.binary()), pa.array([value], pa.binary())).to_pylist()[0]

    decoder = ColumnarOffsets(False, record_columns())
    out = decoder.decode(pa.array(keys, pa.binary()), pa.array(values, pa.binary()), np.zeros(len(keys), bool),
                         slow_row, lambda e: {"_error": str(e)})
    assert len(out) == len(RECORDS)
    sticky = [k for k, v in RECORDS if k[:2] == b"\x00\x02" and v and b"sticky" in v]  # user data: row by row
    assert len(sticky) == 2
    expected_slow = [k for k in keys if decoder.plans.get(int.from_bytes(k[:2], "big")) is None or k in sticky]
    assert seen == expected_slow
    assert len(expected_slow) < len(keys) // 2  # most of the sample is single-layout


@pytest.mark.parametrize("strict", [False, True])
def test_every_sample_record_decodes_as_on_the_row_path(strict):
    shuffled = RECORDS * 3
    random.Random(7).shuffle(shuffled)
    columnar, rows = _both(shuffled, strict)
    assert len(columnar) == len(shuffled)
    assert columnar == rows
    errors = [r["_error"] for r in columnar if r["_error"]]
    # the sample's one damaged key, three times; strict reading refuses more (unknown types, newer versions)
    assert len(errors) == (9 if strict else 3) and any("byte 2" in e for e in errors)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("index", range(len(RECORDS)), ids=[f"{k[:2].hex()}-{i}" for i, (k, _) in enumerate(RECORDS)])
def test_damaged_records_decode_as_on_the_row_path(index, strict):
    key, value = RECORDS[index]
    pairs = [(key, value), *_damaged(key, value), (key, value)]  # good rows around the damage: order is kept
    columnar, rows = _both(pairs, strict)
    assert len(columnar) == len(pairs)
    assert columnar == rows
    assert columnar[0] == columnar[-1]


def test_damage_gives_error_rows_not_failures():
    key, value = next((k, v) for k, v in RECORDS if k[:2] == b"\x00\x01" and v)
    columnar, _ = _both([(key, value[:-1]), (key, value)])
    assert "OffsetCommit" in columnar[0]["_error"] and "byte" in columnar[0]["_error"]
    assert columnar[1]["_error"] is None and columnar[1]["offsetCommit"]["key"]["group"]


def test_control_records_stay_on_the_row_path():
    columnar, rows = _both(RECORDS[:4], controls=[True, False, True, False])
    assert columnar == rows and columnar[0]["recordName"].startswith("control")


def test_failfast_raises_the_row_paths_error():
    key, value = next((k, v) for k, v in RECORDS if k[:2] == b"\x00\x01" and v)
    keys, values = pa.array([key, key], pa.binary()), pa.array([value, value[:5]], pa.binary())
    with pytest.raises(KafkaMetaError) as columnar:
        decode_batch(keys, values, FAILFAST)
    with pytest.raises(KafkaMetaError) as rows:
        decode_rows(keys, values, FAILFAST)
    assert str(columnar.value) == str(rows.value)


def test_a_member_that_does_not_decode_sends_its_group_record_to_the_row_path():
    """The member's error is the nest's own words; the other rows of the batch stay columnar and in order."""
    key, value = next((k, v) for k, v in RECORDS if k[:2] == b"\x00\x02" and v and b"range" in v)
    start = value.index(b"\x00\x03\x00\x00\x00\x02\x00\x06orders")  # the first member's subscription v3
    broken = value[:start + 5] + b"\x09" + value[start + 6:]  # nine topics announced, two there
    columnar, rows = _both([(key, value), (key, broken), (key, value)])
    assert columnar == rows
    assert columnar[1]["_error"] is None and columnar[1]["members"][0]["subscription"] is None
    assert columnar[1]["members"][0]["errors"][0].startswith("subscription: ")
    assert columnar[0]["members"][0]["subscription"]["topics"] == ["orders", "payments"]


def test_groups_of_other_protocol_types_have_no_members_column():
    groups = [(k, v) for k, v in RECORDS if k[:2] == b"\x00\x02"]
    columnar, rows = _both(groups)
    assert columnar == rows
    kinds = {r["groupMetadata"]["value"]["protocolType"]: r["members"] for r in columnar if r["groupMetadata"]["value"]}
    assert kinds["connect"] is None and kinds[""] is None and kinds["consumer"]


def test_an_empty_batch_gives_no_rows():
    columnar, rows = _both([])
    assert columnar == rows == []


LAYOUTS = [(rt.number, v.format, version) for rt in catalog().values() for v in rt.values.variants
           for version in v.format.versions]


@pytest.mark.parametrize("number, fmt, version", LAYOUTS, ids=[f"{n}-{f.name}-v{v}" for n, f, v in LAYOUTS])
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_generated_records_of_every_layout_decode_as_on_the_row_path(number, fmt, version, data):
    """Values drawn from each layout's own constructs (any field values, GroupMetadata members with any bytes):
    whole, as a tombstone, and cut short, beside a good record of another type."""
    rt = catalog()[number]
    key = rt.key.encode(data.draw(values_for(rt.key.construct(0))))
    value = fmt.encode(data.draw(values_for(fmt.construct(version))), version)
    other = RECORDS[1]
    pairs = [(key, value), other, (key, None), (key, value[:len(value) // 2]), other]
    columnar, rows = _both(pairs)
    assert len(columnar) == len(pairs) and columnar == rows
