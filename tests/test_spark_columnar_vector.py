"""Whole-column decoding of flat layouts gives exactly the per-row batch decoder's rows (no Spark needed):
every flat layout of the bundled types and of Kafka's own specs (flexible versions, tagged fields), good and
damaged values, nulls, sliced and large binary arrays, lenient and strict. And the all-null columns that
decode_offsets sends to the JVM weigh no more than what they hold."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from formats import arrays_agree, drawn_batch, ids, registered_formats, upstream_formats, versioned
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_malformed import mutate

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import Unframed
from kafka_meta.spark.columnar import BatchProgram, batch_program
from kafka_meta.spark.columnar_vector import VectorProgram, flat_layout
from kafka_meta.spark.columns import InvalidUtf8, null_array
from kafka_meta.spark.offsets import decode_batch, decode_rows, record_columns
from kafka_meta.spark.schema import message_row_type


def _asked(fmt: SpecFormat, version: int) -> int | None:
    """The version a caller passes: only for formats that do not carry it."""
    return version if isinstance(fmt.framing, Unframed) else None


def _flat(formats: list) -> list[tuple[SpecFormat, int]]:
    out = []
    for fmt, version in versioned([f for f in formats if isinstance(f, SpecFormat)]):
        if not VectorProgram.applies(fmt, _asked(fmt, version)):
            continue
        # the row type a BatchProgram would have (message_row_type), without compiling one per collection
        if flat_layout(fmt.construct(version), message_row_type(fmt.model)) is not None:
            out.append((fmt, version))
    return out


SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "offsets" / "sample.jsonl"
FLAT = _flat(registered_formats()) + _flat(upstream_formats())[::3]


def _outcome(decode) -> pa.Array | str:
    try:
        return decode()
    except InvalidUtf8:  # both paths give up on the batch alike; the caller then reads it row by row
        return "invalid UTF-8"


def test_the_common_records_have_flat_layouts():
    names = {fmt.name for fmt, _ in FLAT}
    assert {"OffsetCommitKey", "OffsetCommitValue", "GroupMetadataKey"} <= names


@pytest.mark.parametrize("pair", FLAT, ids=ids)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_flat_rows_equal_the_row_decoders(pair, data):
    fmt, version, good = drawn_batch(pair, data.draw)
    blobs = [*good, None, *(mutate(blob, data.draw) for blob in good[:2]), b"", *good]
    for strict in (False, True):
        program = batch_program(fmt, False, _asked(fmt, version), strict)  # compiled once a process, as in use
        assert program.vector is not None
        handed: list[int] = []

        def rest(rows: list[bytes | None], program: BatchProgram = program, handed: list[int] = handed) -> pa.Array:
            handed.append(len(rows))
            return program.decode(rows)

        for array in (pa.array(blobs, pa.binary()), pa.array([b"x", *blobs], pa.large_binary()).slice(1)):
            expected = _outcome(lambda program=program: program.decode(blobs))
            got = _outcome(lambda array=array, program=program: program.vector.decode(array, rest))
            assert type(got) is type(expected)
            assert got == expected if isinstance(got, str) else arrays_agree(got, expected)
        if not fmt.construct(version).flexible and not strict:  # no tag buffers to send a row elsewhere
            assert all(n <= len(blobs) - 2 * len(good) for n in handed), "good rows left to the row decoder"


def _commit() -> tuple[bytes, bytes]:
    """An OffsetCommit v3 record (key, value) of the sample dump."""
    for line in SAMPLE.read_text().splitlines():
        record = json.loads(line)
        if record["key"].startswith("0001") and (record["value"] or "").startswith("0003"):
            return bytes.fromhex(record["key"]), bytes.fromhex(record["value"])
    raise AssertionError("the sample dump has no OffsetCommit v3")


def test_rows_the_layout_does_not_fit_go_to_the_row_decoder_in_order():
    program = BatchProgram(next(f for f, _ in FLAT if f.name == "OffsetCommitValue"), False, None, False)
    good = _commit()[1]
    offset = int.from_bytes(good[2:10], "big")
    blobs = [good, good[:-1], None, good[:2] + b"\x00" * 3, good, (9).to_bytes(2, "big") + good[2:], good]
    handed: list[list[bytes | None]] = []

    def rest(rows: list[bytes | None]) -> pa.Array:
        handed.append(rows)
        return program.decode(rows)

    out = program.vector.decode(pa.array(blobs, pa.binary()), rest)
    assert out.equals(program.decode(blobs))
    assert handed == [[good[:-1], None, good[:2] + b"\x00" * 3, (9).to_bytes(2, "big") + good[2:]]]
    rows = out.to_pylist()
    assert [r and r["offset"] for r in rows] == [offset, None, None, None, offset, None, offset]
    assert "byte" in rows[1]["_error"] and rows[2] is None


def _ipc_bytes(array: pa.Array) -> int:
    sink = pa.BufferOutputStream()
    batch = pa.RecordBatch.from_arrays([array], names=["x"])
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue().size


@pytest.mark.parametrize("field", list(record_columns()), ids=lambda f: f.name)
def test_null_columns_hold_nulls_and_no_nested_filler(field):
    made = null_array(field.type, 1000)
    made.validate(full=True)
    assert made.type == field.type and made.null_count == 1000
    assert made.to_pylist() == [None] * 1000
    assert _ipc_bytes(made) <= _ipc_bytes(pa.array([None] * 1000, field.type))


def test_a_decode_offsets_batch_weighs_what_the_row_path_gives():
    key, value = _commit()
    keys, values = pa.array([key] * 500, pa.binary()), pa.array([value] * 500, pa.binary())
    columnar, rows = decode_batch(keys, values), decode_rows(keys, values)
    assert columnar.equals(rows) and columnar.field("_error").null_count == 500
    assert _ipc_bytes(columnar) <= 1.05 * _ipc_bytes(rows)
