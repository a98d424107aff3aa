"""The tallies the writing tasks keep (kafka_meta.spark.tallies): however a segment's rows are batched, they add
up to the same, and a run never spans a group record."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from log_support import LOGS

from kafka_meta.analysis.generations import COMMITS
from kafka_meta.log import find_segments
from kafka_meta.spark.job import COMMIT_TYPES
from kafka_meta.spark.offsets_writer import in_groups
from kafka_meta.spark.sources.log import decoded_batch, segment_rows
from kafka_meta.spark.tallies import READ_ORDER, arrow_runs, combine_runs


def commits(decoded: pa.RecordBatch) -> pa.Array:
    return pc.is_in(decoded.column("recordType"), pa.array(COMMITS, pa.int32()))


def decoded_rows() -> tuple[pa.RecordBatch, dict[str, pa.Array]]:
    """The rows of the fixtures' segment with the most commits, decoded as the job writes them, with the
    columns the job adds."""
    batches = []
    for segment in find_segments(str(LOGS)):
        if segment.size:
            batch = pa.Table.from_batches(list(segment_rows(segment, []))).combine_chunks().to_batches()[0]
            batches.append(decoded_batch(batch, COMMIT_TYPES))
    decoded = max(batches, key=lambda b: pc.sum(commits(b)).as_py())
    columns = {name: decoded.column(name) for name in decoded.schema.names}
    columns["_source"] = pa.array(["in"] * decoded.num_rows)
    columns[READ_ORDER] = pa.array(np.arange(decoded.num_rows, dtype=np.int64))
    return decoded, columns


def runs_in_pieces(decoded: pa.RecordBatch, columns: dict[str, pa.Array], size: int) -> pa.Table:
    tables, run = [], 0
    for start in range(0, decoded.num_rows, size):
        piece = decoded.slice(start, size)
        rows = {name: column.slice(start, size) for name, column in columns.items()}
        table, run = arrow_runs(piece, rows, in_groups(piece), run)
        tables.append(table)
    return combine_runs(pa.concat_tables(tables))


def test_runs_add_up_the_same_however_the_rows_are_batched():
    decoded, columns = decoded_rows()
    whole = runs_in_pieces(decoded, columns, decoded.num_rows)
    counted = decoded.filter(pc.and_(commits(decoded), pc.invert(pc.fill_null(decoded.column("tombstone"), False))))
    assert counted.num_rows >= 5
    assert pc.sum(whole.column("_n")).as_py() == counted.num_rows  # every commit, once
    for size in (1, 3, 7):
        pieces = runs_in_pieces(decoded, columns, size)
        assert pieces.sort_by([("_order", "ascending")]).equals(whole.sort_by([("_order", "ascending")])), size


def test_a_run_never_spans_a_group_record():
    decoded, columns = decoded_rows()
    group_at = np.flatnonzero(in_groups(decoded).to_numpy(zero_copy_only=False))
    assert len(group_at)
    runs = runs_in_pieces(decoded, columns, decoded.num_rows)
    order = columns[READ_ORDER].to_numpy()
    commit = commits(decoded).to_numpy(zero_copy_only=False)
    for first, weight, group in zip(runs.column("_order").to_pylist(), runs.column("_n").to_pylist(),
                                    runs.column("groupId").to_pylist(), strict=True):
        later = [i for i in order[commit] if i >= first]
        members = [i for i in later if decoded.column("groupId")[i].as_py() == group]
        last = members[weight - 1]  # the run's commits are its group's next ones, with no group record between
        assert not any(first < g < last for g in group_at), (first, last)
