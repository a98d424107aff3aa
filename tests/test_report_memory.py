"""What ``kafka-meta report`` keeps follows the groups, not the records: at a fixed number of groups and keys,
four times the commits leave the reader holding about what it held before (measured with tracemalloc), where
keeping every commit, as the collected reading did, holds four times as much."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

from log_support import kafka_python_batch

from kafka_meta.analysis.generations import OffsetsTimeline
from kafka_meta.analysis.report_reader import ReportReader
from kafka_meta.inputs import rows
from kafka_meta.inputs.items import Row
from kafka_meta.offsets import encode_record, new_record

GROUPS, TOPICS, PARTITIONS = 8, 3, 4
T = 1767225600000


def generation(group: str, n: int) -> tuple[bytes, bytes]:
    return encode_record(new_record("GroupMetadata", {"group": group}, {
        "protocolType": "consumer", "generation": n, "protocol": "range", "leader": "m", "members": []}))


def commit(group: str, topic: str, partition: int, offset: int) -> tuple[bytes, bytes]:
    return encode_record(new_record("OffsetCommit", {"group": group, "topic": topic, "partition": partition},
                                    {"offset": offset, "commitTimestamp": T}))


def log_directory(tmp: Path, rounds: int) -> Path:
    """Two partitions of ``__consumer_offsets``: each group's first generation, then ``rounds`` rounds of every
    group committing every partition of every topic (the same keys each round, new offsets)."""
    logs = tmp / f"logs-{rounds}"
    for p in range(2):
        part = logs / f"__consumer_offsets-{p}"
        part.mkdir(parents=True)
        groups = [f"g{i}" for i in range(GROUPS) if i % 2 == p]
        batches, offset = [], 0
        first = [generation(g, 1) for g in groups]
        batches.append(kafka_python_batch(0, first, offset))
        offset += len(first)
        for r in range(rounds):
            for g in groups:
                records = [commit(g, f"t{t}", q, r) for t in range(TOPICS) for q in range(PARTITIONS)]
                batches.append(kafka_python_batch(0, records, offset))
                offset += len(records)
        (part / f"{0:020d}.log").write_bytes(b"".join(batches))
    return logs


def held(logs: Path, reader_of) -> tuple[int, int]:
    """The bytes the reader holds after every row was fed (rows read and dropped as they go), and the rows."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        reader, records = reader_of(), 0
        for item in rows([str(logs)]):
            if isinstance(item, Row) and item.kind == "record":
                reader.feed(item.data)
                records += 1
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before, records
    finally:
        tracemalloc.stop()


class Reporting:
    """The report's reader, fed as the CLI feeds it."""

    def __init__(self) -> None:
        self.reader = ReportReader()

    def feed(self, row: dict) -> None:
        self.reader.record(row)


def test_what_the_report_holds_does_not_grow_with_the_records(tmp_path):
    held(log_directory(tmp_path, 1), Reporting)  # the readers compiled, the catalogue built: kept either way
    small, n_small = held(log_directory(tmp_path, 40), Reporting)
    large, n_large = held(log_directory(tmp_path, 160), Reporting)
    assert n_large > 3.9 * n_small
    assert large < 1.25 * small + 64 * 1024, (small, large)


def test_keeping_every_commit_would_grow_with_them(tmp_path):
    """The measure can fail: the timeline that keeps each commit (the collected reading's) holds ~4x."""
    held(log_directory(tmp_path, 1), OffsetsTimeline)
    small, _ = held(log_directory(tmp_path, 40), OffsetsTimeline)
    large, _ = held(log_directory(tmp_path, 160), OffsetsTimeline)
    assert large > 3 * small


def held_to_the_end(logs: Path) -> tuple[int, int, int]:
    """As the CLI reads a log directory (batches of commits whole, the counting lane), to the finished report and
    its JSON document, both still held: the bytes they hold, the peak on the way, and the records."""
    from kafka_meta.cli.report_reading import feed

    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        reader = ReportReader()
        feed(reader, rows([str(logs)], batches=True), str(logs))
        report = reader.finish()
        document = report.to_json()
        gc.collect()
        now, peak = tracemalloc.get_traced_memory()
        records = sum(document["records"].values())
        return now - before, peak - before, records
    finally:
        tracemalloc.stop()


def test_the_finished_report_and_its_document_do_not_grow_with_the_records(tmp_path):
    """The whole verb, as the CLI runs it: what the report and its document hold at the end, and the peak on
    the way, at four times the commits of the same keys (every window and history full at both sizes)."""
    held_to_the_end(log_directory(tmp_path, 1))
    small, small_peak, n_small = held_to_the_end(log_directory(tmp_path, 60))
    large, large_peak, n_large = held_to_the_end(log_directory(tmp_path, 240))
    assert n_large > 3.9 * n_small
    assert large < 1.25 * small + 64 * 1024, (small, large)
    assert large_peak < 1.25 * small_peak + 256 * 1024, (small_peak, large_peak)
