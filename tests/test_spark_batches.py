"""Batch decoding for Spark (no Spark needed): columns equal rows, rows out equal rows in."""

from __future__ import annotations

import pyarrow as pa
import pytest
from formats import arrays_agree, drawn_batch, ids, registered_formats, versioned
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_malformed import mutate

import kafka_meta as km
from kafka_meta.spark.batch import BatchDecoder
from kafka_meta.spark.columnar import batch_program
from kafka_meta.spark.columns import arrow_text
from kafka_meta.spark.rows import row_from_model
from kafka_meta.spark.schema import message_row_type
from kafka_meta.testing.strategies import values_for

FORMATS = [f for f in registered_formats() if f.name in km.types()]


@pytest.mark.parametrize("pair", versioned(FORMATS), ids=ids)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_columns_equal_rows_and_typed_decoding(pair, data):
    fmt, version, good = drawn_batch(pair, data.draw)
    damaged = [mutate(blob, data.draw) for blob in good[:2]]
    blobs = [*good, None, *damaged]
    decoder = BatchDecoder(fmt.name, version=version if fmt.framing.__class__.__name__ == "Unframed" else None)
    columns = decoder(pa.array(blobs, pa.binary()))
    rows = pa.array(arrow_text(decoder.rows(blobs)), type=decoder.row_type)
    assert len(columns) == len(blobs)
    assert arrays_agree(columns, rows)
    for blob, row in zip(good, columns.to_pylist(), strict=False):
        message = fmt.decode(blob, version)
        expected = {**row_from_model(message), "_version": message.version, "_error": None}
        # through the same Arrow type: strings cannot hold Java's unpaired surrogates, and a polymorphic
        # field lists its other possible types as nulls
        assert row == pa.array([arrow_text(expected)], type=decoder.row_type).to_pylist()[0]


def test_errors_and_nulls_keep_their_rows():
    blobs = [bytes.fromhex("000000000000ffffffff"), b"\x00", None, bytes.fromhex("0000000000010002c328ffffffff")]
    out = BatchDecoder("ConsumerProtocolSubscription")(pa.array(blobs, pa.binary())).to_pylist()
    assert len(out) == 4 and out[0]["topics"] == [] and out[0]["_error"] is None
    assert "2-byte version" in out[1]["_error"] and out[1]["topics"] is None
    assert out[2] is None
    # invalid UTF-8 in a name reads as Kafka's readers read it (new String(bytes, UTF_8): U+FFFD), not an error
    assert out[3]["_error"] is None and out[3]["topics"] == ["\ufffd("]


def test_failfast_raises_the_decode_error():
    decoder = BatchDecoder("ConsumerProtocolSubscription", mode="FAILFAST")
    with pytest.raises(km.DecodeError, match="byte 2"):
        decoder(pa.array([bytes.fromhex("0001000000")], pa.binary()))


def test_a_row_failing_half_way_is_undone():
    """The second blob appends topics before failing in ownedPartitions; its partial appends are undone."""
    good = km.encode(km.model("ConsumerProtocolSubscription")(topics=["a", "b"], owned_partitions=[
        {"topic": "a", "partitions": [1, 2]}]), 1)
    broken = good[:-3]
    program = batch_program(km.get_format("ConsumerProtocolSubscription"), False, None, False)
    out = program.decode([good, broken, good]).to_pylist()
    assert out[0] == out[2] and out[0]["ownedPartitions"] == [{"topic": "a", "partitions": [1, 2]}]
    assert out[1]["topics"] is None and "ownedPartitions" in out[1]["_error"]


def test_versions_read_forward_go_through_rows():
    data = bytearray(km.encode(km.model("OffsetCommitValue")(offset=5, metadata="m", commit_timestamp=1), 4))
    data[0:2] = (7).to_bytes(2, "big")
    out = BatchDecoder("OffsetCommitValue")(pa.array([bytes(data)], pa.binary())).to_pylist()
    assert out[0]["offset"] == 5 and out[0]["_version"] == 7


def test_schema_of_every_type_builds():
    for name in km.types():
        assert pa.types.is_struct(message_row_type(km.model(name)))


def _through_arrow(row):
    from kafka_meta.spark.offsets import record_columns

    return pa.array([row], type=record_columns()).to_pylist()[0]


LAYOUT_CASES = [(rt.number, rt.values.variants[0].format, v) for rt in __import__(
    "kafka_meta.offsets", fromlist=["catalog"]).catalog().values() for v in rt.values.variants[0].format.versions]


@pytest.mark.parametrize("number, fmt, version", LAYOUT_CASES, ids=[f"{n}-v{v}" for n, _, v in LAYOUT_CASES])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_fast_offsets_rows_equal_the_full_reader(number, fmt, version, data):
    from kafka_meta.offsets import catalog
    from kafka_meta.spark.offsets import FastRows, record_row

    rt = catalog()[number]
    key = rt.key.encode(data.draw(values_for(rt.key.construct(0))))
    value = fmt.encode(data.draw(values_for(fmt.construct(version))), version)
    for v in (value, None):
        fast = FastRows(False).row(key, v)
        if fast is not None:
            assert _through_arrow(fast) == _through_arrow(record_row(key, v))


def test_trailing_bytes_follow_the_formats_own_rule(tmp_path):
    """Where Kafka's reader refuses bytes after the body, so do the batch paths (columns and rows alike). The
    rule belongs to the format from its registration on (as the metadata-log frame sets it)."""
    blobs = [b"\x00\x00\x00\x07", b"\x00\x00\x00\x07\xff"]
    for name, keeps in (("KeepsTrailingProbe", True), ("RefusesTrailingProbe", False)):
        spec = tmp_path / f"{name}.json"
        spec.write_text(f'{{"type": "data", "name": "{name}", "validVersions": "0", "flexibleVersions": "none",'
                        ' "fields": [{"name": "A", "type": "int32", "versions": "0+"}]}')
        km.load_specs(spec, replace=True)
        km.get_format(name).keeps_trailing = keeps
        decoder = BatchDecoder(name)
        for rows in (decoder(pa.array(blobs, pa.binary())).to_pylist(), decoder.rows(blobs)):
            assert rows[0].get("_error") is None and rows[0]["a"] == 7
            if keeps:  # Java ignores them: so do we
                assert rows[1].get("_error") is None and rows[1]["a"] == 7
            else:
                assert rows[1]["_error"] == f"{name} v0, byte 4: 1 bytes follow the last field (Kafka refuses them)"


def test_metadata_record_with_trailing_bytes_is_an_error_row():
    frame = bytes.fromhex("010c00116d657461646174612e76657273696f6e001500")
    out = BatchDecoder("MetadataRecord")(pa.array([frame, frame + b"\x00"], pa.binary())).to_pylist()
    assert out[0]["_error"] is None and out[0]["record"]["featureLevelRecord"]["featureLevel"] == 21
    assert "follow the last field" in out[1]["_error"]
