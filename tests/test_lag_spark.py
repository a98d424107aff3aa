"""The analyze job's lag (kafka_meta.spark.lag): on a log directory with a group's commits and the user topic
they consume, each group's standing is the one ``kafka-meta report`` tells, and ``lag/`` holds every commit
in force with the lag it left, equal to the report's lag history."""

from __future__ import annotations

import struct
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kafka_meta.cli.report_reading import read_report
from kafka_meta.offsets import encode_record, new_record

pytestmark = pytest.mark.spark

T = 1767225600000


def batch(records: list[tuple[bytes | None, bytes | None]], offset: int, ms: int) -> bytes:
    """A magic 2 batch of ``records`` at ``offset``, every record written at ``ms``."""
    from kafka.record.memory_records import MemoryRecordsBuilder

    builder = MemoryRecordsBuilder(2, 0, batch_size=1 << 30)
    for key, value in records:
        assert builder.append(ms, key, value) is not None
    builder.close()
    data = bytearray(builder.buffer())
    struct.pack_into(">q", data, 0, offset)
    return bytes(data)


def log_directory(root: Path) -> Path:
    """``orders-0`` growing 10 records a second, ``orders-1`` one a second; the group ``billing`` committing
    both every second: partition 0 ten records further each time, partition 1 stuck at offset 0."""
    logs = root / "kafka-logs"
    offsets, commits, at = logs / "__consumer_offsets-0", [], 0
    offsets.mkdir(parents=True)
    generation = encode_record(new_record("GroupMetadata", {"group": "billing"}, {
        "protocolType": "consumer", "generation": 3, "protocol": "range", "leader": "m", "members": []}))
    commits.append(batch([generation], at, T))
    at += 1
    for i in range(12):
        pair = [encode_record(new_record("OffsetCommit", {"group": "billing", "topic": "orders", "partition": p},
                                         {"offset": offset, "commitTimestamp": T + i * 1000}))
                for p, offset in ((0, 10 * i), (1, 0))]
        commits.append(batch(pair, at, T + i * 1000 + 500))
        at += 2
    (offsets / f"{0:020d}.log").write_bytes(b"".join(commits))
    for p, per_second in ((0, 10), (1, 1)):
        part = logs / f"orders-{p}"
        part.mkdir()
        (part / f"{0:020d}.log").write_bytes(b"".join(
            batch([(None, b"v")] * per_second, i * per_second, T + i * 1000) for i in range(13)))
    return logs


def test_analyze_tells_each_groups_standing_as_report_does_and_writes_lag(spark, tmp_path):
    from kafka_meta.spark.job import run

    logs = log_directory(tmp_path)
    alone = read_report([str(logs)], jobs=1)
    standing = alone.lag["billing"]
    rows = {p.partition: p for p in standing.partitions}
    assert (rows[0].offset, rows[0].log_end, rows[0].lag_records) == (110, 130, 20)
    assert (rows[1].offset, rows[1].log_end, rows[1].lag_records, rows[1].evaluation.status) == (0, 13, 13, "STALL")
    assert rows[0].generation == 3 and standing.status.status == "ERR"
    assert [p.records for p in rows[1].history] == [i + 1 for i in range(12)]  # the log end at each commit
    assert [p.seconds for p in rows[1].history] == [i + 0.5 for i in range(12)]  # offset 0 written at T

    report = run(spark, [str(logs)], output=str(tmp_path / "out"))
    assert report.lag == alone.lag
    table = pq.read_table(tmp_path / "out" / "lag").to_pylist()
    assert len(table) == 24
    for row in table:
        point = next(p for p in rows[row["partition"]].history if p.ms == int(row["timestamp"].timestamp() * 1000))
        assert (row["offset"], row["lagRecords"], row["lagSeconds"]) == (point.offset, point.records, point.seconds)


def test_report_read_by_processes_per_core_tells_what_analyze_tells(spark, tmp_path):
    """Two partitions of ``__consumer_offsets``, each a group of its own: ``report`` reads them in two processes
    (the path it takes on a large directory), adds the readings up, and tells each group's standing, its rounds
    and its counts as the analyze job does; ``audit`` has 150 partitions, 40 commits each, so both thin each
    partition's history to its share of the group's and keep the same points of it."""
    from kafka_meta.cli.report_reading import plan
    from kafka_meta.spark.job import run

    logs = log_directory(tmp_path)
    other = logs / "__consumer_offsets-1"
    other.mkdir()
    generation = encode_record(new_record("GroupMetadata", {"group": "audit"}, {
        "protocolType": "consumer", "generation": 5, "protocol": "range", "leader": "m", "members": []}))
    batches = [batch([generation], 0, T)]
    for i in range(40):
        batches.append(batch([encode_record(new_record("OffsetCommit", {"group": "audit", "topic": "orders",
                                                                        "partition": p},
                                                       {"offset": i, "commitTimestamp": T + i * 700}))
                              for p in range(150)], 1 + 150 * i, T + i * 700))
    (other / f"{0:020d}.log").write_bytes(b"".join(batches))
    assert len(plan([str(logs)], 2) or []) == 2
    parallel = read_report([str(logs)], jobs=2)
    assert set(parallel.lag) == {"billing", "audit"}
    row = parallel.lag["audit"].partitions[1]
    assert row.commits == 40 and row.to_json()["historyPoints"] == 3  # 512 points shared by 150 partitions
    assert row.history[0].offset < 20 and row.history[-1].offset == 39  # from the first half to the newest
    assert parallel.lag == read_report([str(logs)], jobs=1).lag
    report = run(spark, [str(logs)], output=str(tmp_path / "out"))
    assert report.lag == parallel.lag
    assert {g: [r.to_json() for r in report.story.group(g).rounds] for g in ("billing", "audit")} == {
        g: [r.to_json() for r in parallel.story.group(g).rounds] for g in ("billing", "audit")}
    assert report.records == parallel.records
