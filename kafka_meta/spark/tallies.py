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

A commit counts for its group unless its key's newest record is a tombstone: :func:`committed_per_group`.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from kafka_meta.analysis.generations import COMMITS
from kafka_meta.spark.schema import ERROR_FIELD

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


def arrow_newest(decoded: pa.RecordBatch, order: pa.Array) -> pa.Table:
    """The newest tally of a batch of decoded records, ``order`` giving each row's place."""
    bad, _, control = _flags(decoded)
    commit = pc.is_in(decoded.column("recordType"), pa.array(COMMITS, pa.int32()))
    kept = pc.fill_null(pc.and_(pc.and_(pc.invert(bad), commit), pc.invert(control)), False)
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
    newest = order.cast("long") * 2 + F.coalesce(F.col("tombstone"), F.lit(False)).cast("long")
    return decoded.where(kept).groupBy("key", "groupId").agg(F.max(newest).alias("newest"))


def committed_per_group(newest: Any) -> dict[str, int]:
    """Per group, its commit keys whose newest record is no tombstone (``newest``: tallies, any number)."""
    from pyspark.sql import functions as F

    rows = (newest.groupBy("key", "groupId").agg(F.max("newest").alias("newest"))
            .where(F.col("newest") % 2 == 0).groupBy("groupId").count().collect())
    return {row.groupId: row["count"] for row in rows}
