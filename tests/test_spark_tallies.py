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



def commit_rows(outcome: str) -> pa.RecordBatch:
    """Offset commits of group g as a decoded batch has them: key a committed plainly, then in a transaction that
    ended as ``outcome``; key b only in such a transaction; key c committed, then in a transaction that committed."""
    rows = [(b"a", None), (b"a", outcome), (b"b", outcome), (b"c", None), (b"c", "committed")]
    return pa.RecordBatch.from_pydict({
        "key": pa.array([k for k, _ in rows], pa.binary()), "groupId": ["g"] * len(rows),
        "recordType": pa.array([1] * len(rows), pa.int32()), "control": [False] * len(rows),
        "tombstone": [False] * len(rows), "transaction": pa.array([t for _, t in rows], pa.string()),
        "_error": pa.array([None] * len(rows), pa.string())})


@pytest.mark.parametrize("outcome", ["aborted", "open"])
def test_a_commit_not_in_force_is_never_a_keys_newest(spark, outcome):
    """A commit of an aborted transaction, or of one still open, leaves the key's earlier commit in force, and a
    key committed only so has no committed offset: on Arrow (the writing tasks) and on Spark alike."""
    from kafka_meta.log.rows import in_force
    from kafka_meta.spark.tallies import arrow_newest, committed_per_group, spark_newest

    decoded = commit_rows(outcome)
    order = pa.array(np.arange(decoded.num_rows, dtype=np.int64))
    tallied = arrow_newest(decoded, order)
    newest = dict(zip(tallied.column("key").to_pylist(), tallied.column("newest").to_pylist(), strict=True))
    assert newest == {b"a": 0 * 2, b"c": 4 * 2}  # a's plain commit stands; b has none; c's committed one is newest
    frame = spark.createDataFrame(pa.Table.from_batches([decoded]).append_column(READ_ORDER, order).to_pandas())
    on_spark = spark_newest(frame, frame[READ_ORDER])
    assert {bytes(r.key): r.newest for r in on_spark.collect()} == newest
    assert committed_per_group(on_spark) == {"g": 2}
    without = spark_newest(frame.drop("transaction"), frame[READ_ORDER])  # an input that does not say: all count
    assert committed_per_group(without) == {"g": 3}
    assert [in_force(t) for t in (None, "committed", "aborted", "open")] == [True, True, False, False]
