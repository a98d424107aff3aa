"""Every kind of input, read by its one reader, and every Spark data source, composed with the decoders
(``decode_offsets``, ``from_kafka_meta``) into a DataFrame that writes to Parquet as it is, with one
selectable ``_error``; and ``kafka-meta analyze`` reading what the registry recognises: a JSON Lines file with
a malformed line, captures beside log segments, segments damaged from their first byte. An empty file is no
input of any kind, whatever its name."""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

from log_support import SAMPLE, copy_partition, kafka_python_batch
from pyspark.sql import functions as F

from kafka_meta.errors import InputError
from kafka_meta.inputs import BY_NAME, EMPTY, classify, read
from kafka_meta.log import read_log
from kafka_meta.spark import from_kafka_meta, register
from kafka_meta.spark.inputs import FORMATS, READERS, plan, read_inputs, spark_reader
from kafka_meta.spark.offsets import decode_offsets
from kafka_meta.spark.sources import DATA_SOURCES

ROOT = Path(__file__).resolve().parents[1]
CAPTURE = ROOT / "fixtures" / "captures" / "pcap" / "kafkajs.pcapng"
SAMPLE_ROWS = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
BAD_LINE = '{"key": "0001", "value": \n'  # cut off mid-object: not JSON


# --- samples of every kind: one each, so a kind added to the registry without one fails here -------------

def jsonl_sample(tmp: Path) -> Path:
    lines = SAMPLE.read_text().splitlines(keepends=True)
    path = tmp / "dump.txt"  # its name says nothing: its content does
    path.write_text("".join(lines[:5]) + BAD_LINE + "".join(lines[5:]))
    return path


def parquet_sample(tmp: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp / "records.bin"
    pq.write_table(pa.table({"key": [bytes.fromhex(r["key"]) for r in SAMPLE_ROWS],
                             "value": [None if r["value"] is None else bytes.fromhex(r["value"]) for r in SAMPLE_ROWS],
                             "offset": [r["offset"] for r in SAMPLE_ROWS]}), path)
    return path


def log_sample(tmp: Path) -> Path:
    """A log directory: a partition whose segment has two CRC-damaged batches, and one holding a record whose
    key does not decode (so both the reader's damage and the decoder's errors are in it)."""
    directory = tmp / "kafka-logs"
    directory.mkdir()
    copy_partition(directory, 3)
    bad_key = directory / "__consumer_offsets-9"
    bad_key.mkdir()
    good = next((bytes.fromhex(r["key"]), bytes.fromhex(r["value"])) for r in SAMPLE_ROWS if r["value"])
    (bad_key / "00000000000000000000.log").write_bytes(kafka_python_batch(0, [good, (b"\x00\x01\x00", b"\x00")]))
    return directory


def capture_sample(tmp: Path) -> Path:
    path = tmp / "traffic.dat"
    shutil.copy(CAPTURE, path)
    return path


SAMPLES: dict[str, Callable[[Path], Path]] = {"jsonl": jsonl_sample, "parquet": parquet_sample, "log": log_sample,
                                              "capture": capture_sample}


def test_every_kind_has_a_sample_and_a_spark_reader():
    """The registry is the one list: analyze's --format choices and Spark readers follow it."""
    assert set(SAMPLES) == set(BY_NAME) == set(READERS) == set(FORMATS) - {"auto", "kafka"}
    with pytest.raises(InputError, match="no Spark reader"):
        spark_reader("midi")


def parquet_round_trip(frame, path: Path, spark):
    """Written as it is, read back: rows in = rows out, every column name once, ``_error`` selectable."""
    assert len(frame.columns) == len(set(frame.columns)), frame.columns
    frame.write.mode("overwrite").parquet(str(path))
    back = spark.read.parquet(str(path))
    assert back.columns == frame.columns
    back.select("_error").collect()  # neither ambiguous nor missing
    return back


def plain_rows(kind: str, sample: Path) -> int:
    """How many rows the plain-Python face reads of a sample: what the Spark face must write, no more, no less."""
    if kind == "log":
        return len(list(read_log(sample)))  # damage rows included
    inputs = read([str(sample)])
    return len(inputs.offsets) + len(inputs.exchanges) + (len(inputs.problems) if kind == "capture" else 0)


@pytest.mark.parametrize("kind", list(SAMPLES))
def test_every_kind_composes_with_the_decoders_into_parquet(spark, tmp_path, kind):
    """What analyze reads of each kind (through the registry: plan, then the kind's reader) goes through the
    decoders and into Parquet untouched."""
    sample = SAMPLES[kind](tmp_path)
    planned, unreadable = plan([str(sample)])
    assert not unreadable and [set(p.by_kind) for p in planned] == [{kind}]
    inputs = read_inputs(spark, [str(sample)], planned=(planned, unreadable))
    if inputs.offsets is not None:
        frame = decode_offsets(inputs.offsets, control="control" if "control" in inputs.offsets.columns else None)
    else:
        frame = inputs.exchanges.select("*", from_kafka_meta(F.col("request._raw"), "ConsumerProtocolSubscription")
                                        .alias("rawSubscription"))
    assert (inputs.offsets is None) == (kind == "capture")
    back = parquet_round_trip(frame, tmp_path / "out", spark)
    rows = back.select("_error", *(["recordName"] if inputs.offsets is not None else [])).collect()
    assert len(rows) == plain_rows(kind, sample)  # rows in = rows out
    errors = [r._error for r in rows if r._error]
    if inputs.offsets is not None:
        assert any(r.recordName == "OffsetCommit" for r in rows)
    if kind == "jsonl":
        assert inputs.bad_lines == 1
    if kind == "log":
        assert sum("CRC-32C mismatch" in e for e in errors) == 2  # the reader's damage, kept
        assert len(errors) == 3  # and the decoder's error on the key that does not decode


# --- the Spark data sources, each with the decoder of what it reads ---------------------------------------

def decoded_log(spark, tmp: Path):
    return decode_offsets(spark.read.format("kafka-meta-log").load(str(log_sample(tmp))), control="control")


def decoded_capture(spark, tmp: Path):
    junk = tmp / "junk.pcap"
    junk.write_bytes(b"not a capture at all\n" * 4)
    df = spark.read.format("kafka-meta-capture").load([str(capture_sample(tmp)), str(junk)])
    joins = df.select("*", F.explode_outer("request.JoinGroup.protocols").alias("protocol"))
    return joins.select("*", from_kafka_meta(F.col("protocol.metadata._raw"), "ConsumerProtocolSubscription")
                        .alias("subscription"))


COMPOSED = {"kafka-meta-log": decoded_log, "kafka-meta-capture": decoded_capture}


def test_every_data_source_is_composed_here():
    assert set(COMPOSED) == {source.name() for source in DATA_SOURCES}


@pytest.mark.parametrize("name", list(COMPOSED))
def test_every_data_source_composes_with_its_decoder_into_parquet(spark, tmp_path, name):
    register(spark)
    frame = COMPOSED[name](spark, tmp_path)
    assert frame.columns.count("_error") == 1
    back = parquet_round_trip(frame, tmp_path / "out", spark)
    errors = [r._error for r in back.where(F.col("_error").isNotNull()).select("_error").collect()]
    if name == "kafka-meta-log":
        assert back.count() == len(list(read_log(tmp_path / "kafka-logs")))  # rows in = rows out
        assert sum("CRC-32C mismatch" in e for e in errors) == 2  # the source's damage, not the decoder's
        assert len(errors) == 3  # the decoder's own where the source read the record
    else:
        assert any("junk.pcap" in (r.source.file or "") for r in back.where(F.col("_error").isNotNull()).collect())


def test_json_lines_through_spark_s_own_reader_compose(spark, tmp_path):
    """Spark's JSON reader keeps a malformed line as ``_corrupt_record``: decoded beside it, still one write."""
    raw = spark.read.json(str(jsonl_sample(tmp_path)))
    frame = decode_offsets(raw.withColumn("key", F.unhex("key")).withColumn("value", F.unhex("value"))
                           .where(F.col("key").isNotNull()))
    back = parquet_round_trip(frame, tmp_path / "out", spark)
    assert back.count() == len(SAMPLE_ROWS)


# --- analyze on what the registry recognises -----------------------------------------------------------

def analyze(spark, inputs: list[str], output: Path, capsys) -> tuple[int, str, str]:
    from kafka_meta.spark.job import execute

    args = argparse.Namespace(input=inputs, format="auto", output=str(output), master=None, bootstrap_servers=None)
    code = execute(args, spark)
    out, err = capsys.readouterr()
    return code, out, err


def test_analyze_counts_a_malformed_json_line_and_writes_the_report(spark, tmp_path, capsys):
    code, out, err = analyze(spark, [str(jsonl_sample(tmp_path))], tmp_path / "out", capsys)
    assert code == 1, err  # the line that is not JSON could not be read: listed, and 1
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["errors"] == 0 and report["problems"] == ["1 input line(s) are not JSON objects"]
    assert "1 input line(s) are not JSON objects" in out
    assert spark.read.parquet(str(tmp_path / "out" / "offsets")).count() == len(SAMPLE_ROWS)


def damaged_from_byte_0(tmp: Path) -> Path:
    """A log directory whose every segment is damaged at its first byte."""
    directory = copy_partition(tmp / "logs", 0).parent
    for segment in sorted(directory.rglob("*.log")):
        data = bytearray(segment.read_bytes())
        data[:17] = b"\xff" * 17
        segment.write_bytes(bytes(data))
    return directory


def test_analyze_reads_segments_damaged_from_byte_0_beside_captures(spark, tmp_path, capsys):
    directory = damaged_from_byte_0(tmp_path)
    assert [set(p.by_kind) for p in plan([str(directory)])[0]] == [{"log"}]  # not "not JSON Lines"
    shutil.copy(CAPTURE, directory / "traffic.dat")  # a capture beside the broker's partitions
    damage = [r["_error"] for r in read_log(directory) if r["_error"]]
    assert len(damage) == 2 and all(", byte 0: " in d for d in damage)
    code, out, err = analyze(spark, [str(directory)], tmp_path / "out", capsys)
    assert code == 1, err  # the damaged segments are read around and listed: 1
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    exchanges = read([str(CAPTURE)]).exchanges
    assert sum(sum(groups.values()) for groups in report["exchanges"].values()) == len(exchanges)  # captures read
    segments = [s for s in report["problems"] if "__consumer_offsets-0" in s]
    assert report["errors"] == 0 and len(segments) == 2 and all(", byte 0: " in s for s in segments)  # logs read
    assert ", byte 0: " in out


# --- an empty file has no content, so no kind -----------------------------------------------------------

@pytest.mark.parametrize("name", ["00000000000000000000.log", "empty.pcap", "empty.jsonl"])
def test_an_empty_file_is_no_input_whatever_its_name(tmp_path, name):
    empty = tmp_path / name
    empty.write_bytes(b"")
    assert classify(str(empty)) == ([], [classify(str(empty))[1][0]])
    assert str(classify(str(empty))[1][0]) == f"{empty}: {EMPTY}"
    partition = copy_partition(tmp_path, 1)
    (partition / "00000000000000000099.log").write_bytes(b"")  # a freshly rolled segment, in its partition
    assert [s.kind for s in classify(str(partition))[0]] == ["log"]
    inputs = read([str(empty), str(partition)])
    assert not inputs.complete and len(inputs.offsets) == 37


def test_the_log_source_says_so_of_an_empty_file_named_outright(spark, tmp_path):
    register(spark)
    empty = tmp_path / "00000000000000000000.log"
    empty.write_bytes(b"")
    rows = spark.read.format("kafka-meta-log").load(str(empty)).collect()
    assert [(r.key, r._error) for r in rows] == [(None, f"{empty}: {EMPTY}")]


def test_a_mixed_directory_is_planned_as_every_kind_it_holds(tmp_path):
    """Captures beside a broker's partitions beside JSON Lines and Parquet: each read by its kind's reader."""
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for kind, sample in SAMPLES.items():
        if kind == "log":
            copy_partition(mixed, 1)
        else:
            sample(mixed)
    planned, unreadable = plan([str(mixed)])
    assert not unreadable and set(planned[0].by_kind) == set(BY_NAME)


# --- what every face keeps of a row -----------------------------------------------------------------------

def test_json_lines_keep_the_producer_id_and_a_bad_payload_names_its_input(spark, tmp_path, capsys):
    """A transactional commit's producer id reaches the timeline from JSON Lines as it does from segments
    (the commit waits for its transaction's marker), and an undecodable payload says which input held it."""
    path = tmp_path / "mixed.jsonl"
    record = dict(SAMPLE_ROWS[0], producerId=7)
    path.write_text(json.dumps(record) + "\n" + json.dumps({"type": "ConsumerProtocolSubscription", "hex": "0003"})
                    + "\n")
    offsets = read_inputs(spark, [str(path)]).offsets
    assert "producerId" in offsets.columns and offsets.first().producerId == 7
    code, _, err = analyze(spark, [str(path)], tmp_path / "out", capsys)
    assert code == 1, err  # the payload that does not decode: 1
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["blobErrors"] == 1
    assert any(s.startswith(f"{path}: ConsumerProtocolSubscription payload: ") for s in report["errorSamples"])
