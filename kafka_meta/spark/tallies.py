"""What the analyze job counts in ``__consumer_offsets``, as partial tallies that add up: the same rules on
Arrow batches (the Python workers that write a log's Parquet tally as they write) and on a DataFrame (any
other input, from the Parquet Spark wrote).

Two tallies:

- **counts**, per (record name, type, unknown, bad, damaged): records, tombstones, records read forward.
  Rows of the same group from several tallies simply add up.
- **newest**, per commit key (and its group, which the key holds): the newest of its records that decoded,
  as one number, ``order * 2 + tombstone`` (order: the offset, or the place as read where there is none).
  The largest number of a key is its newest record, and whether that is a tombstone is its last bit: a
  plain ``max`` of a long, which Spark combines before its shuffle in fixed-width buffers (a ``max_by`` of a
  struct took four to five times as long at 1 GB).

A commit counts for its group unless its key's newest record is a tombstone: :func:`committed_per_group`. Only
commits in force are tallied (:func:`kafka_meta.log.rows.in_force`): a commit of an aborted transaction, or of one
still open where the log ends, is never a key's newest, so the key's commit before it stands.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_meta.analysis.generations import COMMITS
from kafka_meta.analysis.timeline import LAST_SECOND
from kafka_meta.log.transactions import COMMITTED
from kafka_meta.spark.schema import ERROR_FIELD
from kafka_meta.spark.timeline import READ_ORDER, WEIGHT

TRANSACTION = "transaction"  # how a record's transaction ended, where the input says (log.rows)
COUNT_KEYS = ("recordName", "recordType", "unknown", "bad", "damaged")
COUNTS_SCHEMA = pa.schema([("recordName", pa.string()), ("recordType", pa.int32()), ("unknown", pa.bool_()),
                           ("bad", pa.bool_()), ("damaged", pa.bool_()), ("n", pa.int64()),
                           ("tombstones", pa.int64()), ("forward", pa.int64())])
NEWEST_SCHEMA = pa.schema([("key", pa.binary()), ("groupId", pa.string()), ("newest", pa.int64())])


# ------------------------------------------------------------------ on Arrow, as a log's records are written
def _flags(decoded: pa.RecordBatch | pa.Table) -> tuple[pa.Array, pa.Array, pa.Array]:
    """bad (the row has an ``_error``), damaged (a reader's damage: no record at all), control."""
    bad = pc.is_valid(decoded.column(ERROR_FIELD))
    damaged = pc.and_(bad, pc.is_null(decoded.column("key")))
    return bad, damaged, pc.fill_null(decoded.column("control"), False)


def arrow_counts(decoded: pa.RecordBatch) -> list[dict[str, Any]]:
    """The counts tally of a batch of decoded records (``decode_batch``' columns with ``key``, ``control``)."""
    bad, damaged, _ = _flags(decoded)
    table = pa.table({"recordName": decoded.column("recordName"), "recordType": decoded.column("recordType"),
                      "unknown": decoded.column("unknown"), "bad": bad, "damaged": damaged,
                      "tombstone": pc.cast(decoded.column("tombstone"), pa.int64()),
                      "forward": pc.cast(decoded.column("readForward"), pa.int64())})
    grouped = table.group_by(list(COUNT_KEYS), use_threads=False).aggregate(
        [([], "count_all"), ("tombstone", "sum"), ("forward", "sum")])
    return [{**{k: row[k] for k in COUNT_KEYS}, "n": row["count_all"], "tombstones": row["tombstone_sum"] or 0,
             "forward": row["forward_sum"] or 0} for row in grouped.to_pylist()]


def arrow_in_force(decoded: pa.RecordBatch | pa.Table) -> pa.Array:
    """Whether each row stands as written (:func:`kafka_meta.log.rows.in_force`: no transaction, or a committed
    one), by its ``transaction`` column; every row, where there is none."""
    if TRANSACTION not in decoded.schema.names:
        return pa.array(np.ones(decoded.num_rows, bool))
    transaction = decoded.column(TRANSACTION)
    return pc.fill_null(pc.or_kleene(pc.is_null(transaction), pc.equal(transaction, COMMITTED)), True)


def arrow_newest(decoded: pa.RecordBatch, order: pa.Array) -> pa.Table:
    """The newest tally of a batch of decoded records, ``order`` giving each row's place."""
    bad, _, control = _flags(decoded)
    commit = pc.is_in(decoded.column("recordType"), pa.array(COMMITS, pa.int32()))
    kept = pc.fill_null(pc.and_(pc.and_(pc.and_(pc.invert(bad), commit), pc.invert(control)),
                                arrow_in_force(decoded)), False)
    newest = pc.add(pc.multiply(order, 2), pc.cast(pc.fill_null(decoded.column("tombstone"), False), pa.int64()))
    table = pa.table({"key": decoded.column("key"), "groupId": decoded.column("groupId"),
                      "newest": newest}).filter(kept)
    return most_recent(table)


def most_recent(table: pa.Table) -> pa.Table:
    """Tallies of newest records combined: the largest number of each key."""
    grouped = table.group_by(["key", "groupId"], use_threads=False).aggregate([("newest", "max")])
    return grouped.rename_columns(["key", "groupId", "newest"]).select(NEWEST_SCHEMA.names).cast(NEWEST_SCHEMA)


# ------------------------------------------------------------------ on Spark, for any decoded records
def spark_counts(decoded: Any) -> list[Any]:
    """The counts tally of a DataFrame of decoded records, collected (a row per group: a handful)."""
    from pyspark.sql import functions as F

    bad = F.col(ERROR_FIELD).isNotNull()
    damaged = F.col("key").isNull() & bad
    return (decoded.groupBy("recordName", "recordType", "unknown", bad.alias("bad"), damaged.alias("damaged"))
            .agg(F.count(F.lit(1)).alias("n"), F.sum(F.col("tombstone").cast("long")).alias("tombstones"),
                 F.sum(F.col("readForward").cast("long")).alias("forward")).collect())


def spark_newest(decoded: Any, order: Any) -> Any:
    """The newest tally of a DataFrame of decoded records (``order``: the column giving each row's place)."""
    from pyspark.sql import functions as F

    control = F.coalesce(F.col("control"), F.lit(False))
    kept = F.col(ERROR_FIELD).isNull() & F.col("recordType").isin(*COMMITS) & ~control
    if TRANSACTION in decoded.columns:  # in force: no transaction, or a committed one (log.rows.in_force)
        kept = kept & (F.col(TRANSACTION).isNull() | (F.col(TRANSACTION) == COMMITTED))
    newest = order.cast("long") * 2 + F.coalesce(F.col("tombstone"), F.lit(False)).cast("long")
    return decoded.where(kept).groupBy("key", "groupId").agg(F.max(newest).alias("newest"))


def committed_per_group(newest: Any) -> dict[str, int]:
    """Per group, its commit keys whose newest record is no tombstone (``newest``: tallies, any number)."""
    from pyspark.sql import functions as F

    rows = (newest.groupBy("key", "groupId").agg(F.max("newest").alias("newest"))
            .where(F.col("newest") % 2 == 0).groupBy("groupId").count().collect())
    return {row.groupId: row["count"] for row in rows}


# ------------------------------------------------------------------ the timeline's commits, in runs
RUNS_SCHEMA = pa.schema([("_source", pa.string()), ("topic", pa.string()), ("partition", pa.int32()),
                         ("groupId", pa.string()), ("producerId", pa.int64()), ("offset", pa.int64()),
                         (READ_ORDER, pa.int64()), ("timestamp", pa.timestamp("us", tz="UTC")),
                         (WEIGHT, pa.int64())])
TOPICS_SCHEMA = pa.schema([("id", pa.string()), ("name", pa.string())])
RUN_KEYS = ["_source", "topic", "partition", "groupId", "producerId", "second", "run"]


def arrow_runs(decoded: pa.RecordBatch, rows: dict[str, pa.Array], group_rows: pa.Array,
               first_run: int) -> tuple[pa.Table, int]:
    """The commits of a batch the timeline counts (decoded, no tombstone, no marker), as runs: one row per
    group, second and stretch of the log between two group records (``group_rows``; ``first_run``: the
    stretch the batch starts in), weighing as many commits (``_n``), at the place of its first. No group
    record lies inside a run, so each of its commits has the generation in force at its first: counted as
    one row, they count as they would one by one. A transaction's commit stays a row of its own (it takes
    effect at its marker). Returns the runs and the stretch the next batch starts in."""
    bad, _, control = _flags(decoded)
    tombstone = pc.fill_null(decoded.column("tombstone"), False)
    commit = pc.is_in(decoded.column("recordType"), pa.array(COMMITS, pa.int32()))
    kept = pc.fill_null(pc.and_(pc.and_(commit, pc.invert(bad)), pc.and_(pc.invert(control),
                                                                          pc.invert(tombstone))), False)
    boundaries = np.cumsum(group_rows.to_numpy(zero_copy_only=False).astype(np.int64))
    run = first_run + boundaries
    order = rows[READ_ORDER]
    transactional = pc.greater_equal(rows["producerId"], 0)
    run = pc.if_else(transactional, pc.negate(pc.add(order, 1)), pa.array(run))  # a row of its own
    ms = pc.divide(pc.cast(rows["timestamp"], pa.int64()), 1000)
    timed = pc.and_(pc.greater_equal(ms, 0), pc.less(ms, LAST_SECOND * 1000))
    second = pc.if_else(timed, pc.divide(ms, 1000), pa.scalar(None, pa.int64()))
    table = pa.table({"_source": rows["_source"], "topic": rows["topic"], "partition": rows["partition"],
                      "groupId": decoded.column("groupId"), "producerId": rows["producerId"], "second": second,
                      "run": run, "offset": rows["offset"], READ_ORDER: order, "timestamp": rows["timestamp"],
                      WEIGHT: pa.array(np.ones(len(order), np.int64))}).filter(kept)
    return combine_runs(table, final=False), first_run + int(boundaries[-1]) if len(boundaries) else first_run


def combine_runs(table: pa.Table, final: bool = True) -> pa.Table:
    """Runs of the same group, second and stretch as one, weighing their sum, at the place of the first."""
    grouped = table.group_by(RUN_KEYS, use_threads=False).aggregate(
        [(WEIGHT, "sum"), ("offset", "min"), (READ_ORDER, "min"), ("timestamp", "min")])
    grouped = grouped.rename_columns([name.rsplit("_", 1)[0] if name.endswith(("_sum", "_min")) else name
                                      for name in grouped.column_names])
    return grouped.select(RUNS_SCHEMA.names).cast(RUNS_SCHEMA) if final else grouped


def arrow_topics(decoded: pa.RecordBatch) -> dict[str, str]:
    """Topic id (as the column holds it) -> name, as the commits that decoded give them (Kafka 4.1+ writes
    both); the timeline's ``topic_names`` on Arrow."""
    if "offsetCommit" not in decoded.schema.names:
        return {}
    bad, _, control = _flags(decoded)
    commit = decoded.column("offsetCommit")
    ids = pc.struct_field(commit, ["value", "topicId"])
    names = pc.struct_field(commit, ["key", "topic"])
    kept = pc.fill_null(pc.and_(pc.and_(pc.invert(bad), pc.invert(control)),
                                pc.and_(pc.is_valid(ids), pc.invert(pc.fill_null(decoded.column("tombstone"),
                                                                                False)))), False)
    pairs = pa.table({"id": ids, "name": names}).filter(kept)
    if not pairs.num_rows:
        return {}
    unique = pairs.group_by(["id", "name"], use_threads=False).aggregate([])
    return {i: n for i, n in zip(unique.column("id").to_pylist(), unique.column("name").to_pylist(),
                                        strict=True) if n}
