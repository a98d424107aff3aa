"""A real cluster's ``__consumer_offsets`` through Spark's Kafka source, held to the broker's own log segments.

Two scenarios of the lab write to the session broker's ``__consumer_offsets``: ``transactions`` (offsets
committed inside transactions, one of them aborted: what ``read_committed`` must leave out) and then
``storm`` (a classic group rebalancing again and again, committing as it goes). Between the two, the
streaming job (``kafka-meta stream``) reads what is there in several micro-batches and stops; after the
second, it starts again from its checkpoint. Then ``kafka-meta analyze --format kafka`` reads the topic whole.

The truth is the broker's log directory, read by the project's own log reader: every record that is not a
transaction marker and not of an aborted transaction, at its (partition, offset), with its bytes. Both jobs
run as the commands a user runs, in processes of their own (each with Spark's Kafka connector on its
classpath); the test's own Spark session (no connector) reads their Parquet and decodes the log's records.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from console_support import run_console

pytestmark = pytest.mark.kafka

SCENARIO_PHASES = ("transactions", "storm")
JOB_TIMEOUT_S = 600
ABORT = 0  # a control record's type (its key: version int16, type int16)


def run_scenario(lab, name: str, broker, outdir: Path) -> None:
    """One lab scenario's Java program against the running broker (no capture: only the topic matters here)."""
    import labkit.record
    from labkit.scenarios import SCENARIOS

    outdir.mkdir(parents=True, exist_ok=True)
    code = labkit.record._run_scenario(SCENARIOS[name].main_class, broker.bootstrap, outdir)
    assert code == 0, f"scenario {name} failed (exit {code}); see {outdir / 'scenario.log'}"


def kafka_meta(*args: str) -> subprocess.CompletedProcess:
    """The console script, as a user runs it; it must succeed."""
    result, _ = run_console(*args, timeout=JOB_TIMEOUT_S)
    err = result.stderr
    assert result.returncode == 0, f"kafka-meta {args[0]} failed ({result.returncode}): {err[-3000:]}"
    return result


def stream_run(broker, output: Path, checkpoint: Path, *more: str) -> int:
    """One run of the streaming job over what the topic holds now; the records it says it read."""
    result = kafka_meta("stream", "--bootstrap-server", broker.bootstrap, "--output", str(output), "--checkpoint",
                        str(checkpoint), "--available-now", *more)
    line = result.stdout.strip().splitlines()[-1]
    assert line.startswith("kafka-meta stream: "), result.stdout
    return int(line.split()[2])


def committed_log(log_dir: Path) -> tuple[dict[tuple[int, int], dict], set[tuple[int, int]]]:
    """The broker's __consumer_offsets as a read_committed consumer sees it, by (partition, offset), and the
    places of the records aborted transactions wrote (a transactional record belongs to the next marker of its
    producer in its partition)."""
    from kafka_meta.log import read_log

    rows = [row for partition in sorted(log_dir.glob("__consumer_offsets-*")) for row in read_log(partition)]
    assert not [row["_error"] for row in rows if row["_error"]], "the broker's own log reads without damage"
    records: dict[tuple[int, int], dict] = {}
    aborted: set[tuple[int, int]] = set()
    waiting: dict[tuple[int, int], list[tuple[int, int]]] = {}  # (partition, producer) -> records in its transaction
    for row in rows:
        place = (row["partition"], row["offset"])
        if row["control"]:
            settled = waiting.pop((row["partition"], row["producerId"]), [])
            if int.from_bytes(row["key"][2:4], "big") == ABORT:
                aborted.update(settled)
                for each in settled:
                    del records[each]
            continue
        records[place] = row
        if row["producerId"] >= 0:
            waiting.setdefault((row["partition"], row["producerId"]), []).append(place)
    assert not waiting, f"transactions still open in the log: {waiting}"
    return records, aborted


def decoding_columns(spark) -> list[str]:
    """The key, the value and every column decode_offsets adds: a record's decoding, without where and when
    it was read (compared on their own) or a job's own bookkeeping."""
    from kafka_meta.spark.offsets import decode_offsets

    empty = spark.createDataFrame([], "key binary, value binary")
    return sorted(decode_offsets(empty).columns)


def decoded_by_place(frame, columns: list[str]) -> dict[tuple[int, int], str]:
    """Each row's decoding as JSON text, by (partition, offset)."""
    from pyspark.sql import functions as F

    rows = frame.select("partition", "offset", F.to_json(F.struct(*columns)).alias("decoded")).collect()
    by_place = {(row.partition, row.offset): row.decoded for row in rows}
    assert len(by_place) == len(rows), "a (partition, offset) twice"
    return by_place


@pytest.fixture(scope="module")
def phases(lab, kafka_broker, tmp_path_factory):
    """The two scenarios, the streaming job stopped between them and restarted after, analyze at the end; then
    the broker's log as it stands."""
    work = tmp_path_factory.mktemp("spark-stream")
    output, checkpoint = work / "stream-out", work / "checkpoint"
    timings: dict[str, float] = {}

    def timed(what: str, action, *args):
        started = time.monotonic()
        result = action(*args)
        timings[what] = round(time.monotonic() - started, 1)
        return result

    timed("scenario transactions", run_scenario, lab, "transactions", kafka_broker, work / "transactions")
    first = timed("stream, first run", stream_run, kafka_broker, output, checkpoint, "--max-offsets-per-trigger", "7")
    after_first = sorted(Path(output).glob("*.parquet"))
    timed("scenario storm", run_scenario, lab, "storm", kafka_broker, work / "storm")
    second = timed("stream, restarted", stream_run, kafka_broker, output, checkpoint)
    analyzed = work / "analyze-out"
    timed("analyze --format kafka", kafka_meta, "analyze", "--format", "kafka", "--bootstrap-server",
          kafka_broker.bootstrap, "--output", str(analyzed))
    records, aborted = committed_log(kafka_broker.log_dir)
    print(f"\nspark stream lab: {timings}", file=sys.stderr)
    return {"output": output, "first": first, "second": second, "files_after_first": after_first,
            "analyzed": analyzed, "records": records, "aborted": aborted}


@pytest.fixture(scope="module")
def log_decoded(spark, phases):
    """The log's committed records decoded by decode_offsets on the test's own session."""
    from kafka_meta.spark.offsets import decode_offsets

    rows = [{"partition": p, "offset": o, "key": bytes(r["key"]), "value": None if r["value"] is None
             else bytes(r["value"])} for (p, o), r in sorted(phases["records"].items())]
    frame = spark.createDataFrame(rows, "partition int, offset long, key binary, value binary")
    return decoded_by_place(decode_offsets(frame), decoding_columns(spark))


def test_the_scenarios_wrote_an_aborted_transaction_and_rebalances(phases, log_decoded):
    assert phases["aborted"], "the transactions scenario aborts one transaction: its commit is in the log"
    groups = {json.loads(decoded)["groupId"] for decoded in log_decoded.values()}
    assert {"lab-txn", "lab-storm"} <= groups


def test_analyze_from_kafka_sees_every_committed_record_of_the_log(spark, phases, log_decoded):
    from kafka_meta.spark.job import read_decoded

    written = read_decoded(spark, str(phases["analyzed"]))  # offsets/ with groups/: decode_offsets' columns
    assert written.count() == len(phases["records"])
    from_kafka = decoded_by_place(written, decoding_columns(spark))
    assert set(from_kafka) == set(phases["records"])  # nothing missing, nothing extra, aborted ones left out
    assert not set(from_kafka) & phases["aborted"]
    assert from_kafka == log_decoded


def test_analyze_from_kafka_keeps_each_records_time_and_place(spark, phases):
    from pyspark.sql import functions as F

    written = spark.read.parquet(str(phases["analyzed"] / "offsets"))
    rows = written.select("partition", "offset", F.unix_millis("timestamp").alias("ms"), "_file", "control").collect()
    assert {(r.partition, r.offset): r.ms for r in rows} == {
        place: record["timestamp"] for place, record in phases["records"].items()}
    assert all(r._file == f"__consumer_offsets-{r.partition}" and r.control is False for r in rows)


def test_analyze_from_kafka_reports_the_scenarios_groups_and_nothing_of_its_own(phases):
    report = json.loads((phases["analyzed"] / "report.json").read_text())
    text = json.dumps(report)
    assert "lab-txn" in text and "lab-storm" in text
    # the source assigns partitions instead of subscribing: reading the topic joined no group, so none was
    # written to it (a subscribing reader's "spark-kafka-..." group would be in the log and the report)
    assert "spark-kafka" not in text


def test_streaming_stopped_between_phases_and_restarted_writes_every_record_once(spark, phases, log_decoded):
    assert phases["first"] > 0 and phases["second"] > 0  # both runs read something: the stop was midway
    assert phases["files_after_first"], "the first run wrote Parquet before the second scenario"
    written = spark.read.parquet(str(phases["output"]))  # through the sink's log: each batch's files once
    total = written.count()
    assert total == phases["first"] + phases["second"] == len(phases["records"])  # rows in = rows out
    streamed = decoded_by_place(written, decoding_columns(spark))  # fails on any (partition, offset) written twice
    assert set(streamed) == set(phases["records"])
    assert streamed == log_decoded


def test_streaming_output_has_no_decoding_errors(spark, phases):
    from pyspark.sql import functions as F

    written = spark.read.parquet(str(phases["output"]))
    assert written.where(F.col("_error").isNotNull()).count() == 0
    assert {r.recordName for r in written.select("recordName").distinct().collect()} >= {"OffsetCommit",
                                                                                       "GroupMetadata"}
