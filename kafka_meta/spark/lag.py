"""The analyze job's lag: ``lag/``, a Parquet table of every commit in force with the lag it left (records and
seconds), and each group's standing in the report, told as ``kafka-meta report`` tells it
(:mod:`kafka_meta.analysis.lag`).

The log ends come from the user topics' partitions of the log directories, by their batch headers, on the
driver: a partition's end offset and its bounded offset-to-time index (a few kilobytes each), broadcast to the
executors, where each commit's lag is worked out as it is written. Only a bounded part of the commits comes to
the driver: per group and partition the last :data:`~kafka_meta.analysis.burrow.WINDOW` (what Burrow's rules
read) and the thinned history the report keeps (:func:`~kafka_meta.analysis.lag.history_stride`), so the
driver's memory follows the groups and partitions, never the commits. The commits in force are those the
report counts: outside a transaction, or in a committed one (the log source's ``transaction`` label); a
tombstone leaves nothing committed before it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from kafka_meta.analysis.assemble import Timeline
from kafka_meta.analysis.burrow import WINDOW
from kafka_meta.analysis.generations import COMMITS, GENERATION_RECORD_TYPES
from kafka_meta.analysis.lag import (
    GROUP_HISTORY,
    HISTORY,
    CommitPoint,
    GroupStanding,
    LagState,
    LogEnd,
    history_cap,
    history_stride,
    lag_at,
)
from kafka_meta.analysis.lag_feed import owner_in
from kafka_meta.spark.timeline import GENERATION_COLUMNS, NO_GENERATION, SCOPE, _ms

LAG_SCHEMA = ("groupId string, topic string, partition int, offset long, _ms long, logEndOffset long, "
              "lagRecords long, lagSeconds double")  # lag/ has the commit's time as a timestamp instead of _ms


def log_ends(paths: Iterable[str]) -> dict[tuple[str, int], LogEnd]:
    """Every user topic partition's log end and offset-to-time index under ``paths`` (batch headers only)."""
    from kafka_meta.inputs.topics import partition_role
    from kafka_meta.log import read_partitions

    ends: dict[tuple[str, int], LogEnd] = {}
    for path in paths:
        for partition in read_partitions(path):
            if partition.topic is None or partition.partition is None or partition_role(partition) != "user":
                continue
            scan = partition.scan
            if scan.log_end_offset is not None:
                ends[(partition.topic, partition.partition)] = LogEnd(scan.log_end_offset, scan.first_offset,
                                                                      scan.times)
    return ends


def _commits(offsets: Any) -> Any:
    """The commit rows in force (tombstones kept, to cut what they deleted), with their key and place."""
    from pyspark.sql import functions as F

    columns = set(offsets.columns)
    shapes = [c for c in ("offsetCommit", "legacyOffsetCommit") if c in columns]
    if not shapes or "groupId" not in columns:
        return None

    def field(path: str) -> Any:
        return F.coalesce(*(F.col(f"{s}.{path}") for s in shapes))

    fine = F.col("recordType").isin(*COMMITS) & F.col("_error").isNull() & ~F.coalesce(F.col("control"), F.lit(False))
    if "transaction" in columns:
        fine = fine & (F.col("transaction").isNull() | (F.col("transaction") == "committed"))
    scope = [c for c in SCOPE if c in columns]
    at = F.col("offset") if "offset" in columns else F.lit(None).cast("long")
    return (offsets.where(fine & F.col("groupId").isNotNull() & (F.col("groupId") != ""))
            .select(*scope, "groupId", at.alias("_at"), "_order", "tombstone",
                    field("key.topic").alias("_topic"), field("key.partition").cast("int").alias("_partition"),
                    field("value.offset").alias("_offset"), _ms(offsets).alias("_ms"))
            .withColumnRenamed("topic", "_logTopic").withColumnRenamed("partition", "_logPartition"))


def _lag_rows(ends: dict[tuple[str, int], LogEnd]) -> Any:
    """The executors' function: each commit's lag in records and seconds by the broadcast log ends."""

    def compute(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in batches:
            rows = batch.to_pydict()
            out: dict[str, list[Any]] = {"logEndOffset": [], "lagRecords": [], "lagSeconds": []}
            for topic, partition, offset, ms in zip(rows["topic"], rows["partition"], rows["offset"], rows["_ms"],
                                                    strict=True):
                at, lag, seconds = lag_at(ends.get((topic, partition)), offset, ms)
                out["logEndOffset"].append(at)
                out["lagRecords"].append(lag)
                out["lagSeconds"].append(seconds)
            yield pa.RecordBatch.from_pydict({
                "groupId": pa.array(rows["groupId"], pa.string()), "topic": pa.array(rows["topic"], pa.string()),
                "partition": pa.array(rows["partition"], pa.int32()), "offset": pa.array(rows["offset"], pa.int64()),
                "_ms": pa.array(rows["_ms"], pa.int64()),
                "logEndOffset": pa.array(out["logEndOffset"], pa.int64()),
                "lagRecords": pa.array(out["lagRecords"], pa.int64()),
                "lagSeconds": pa.array(out["lagSeconds"], pa.float64())})

    return compute


def _with_generation(rows: Any, groups: Any, scope: list[str]) -> Any:
    """Each selected commit with ``_inForce``: the generation in force where it was written (as the report
    tells it), from the group records (``groups/``): a window over those records and the selected commits
    (bounded: a window and a history per partition) in log order."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    columns = set(groups.columns)
    present = [F.col(c) for c in GENERATION_COLUMNS if c.split(".")[0] in columns]
    generation = (F.coalesce(*present) if present else F.lit(None)).cast("long")
    at = F.col("offset") if "offset" in columns else F.lit(None).cast("long")
    marks = (groups.where(F.col("recordType").isin(*GENERATION_RECORD_TYPES) & F.col("groupId").isNotNull()
                          & F.col("_error").isNull())
             .select(*scope, "groupId", at.alias("_at"), "_order",
                     F.when(F.col("tombstone"), F.lit(NO_GENERATION)).otherwise(generation).alias("_gen"))
             .where(F.col("_gen").isNotNull()))
    placed = (rows.withColumnRenamed("_logTopic", "topic").withColumnRenamed("_logPartition", "partition")
              .withColumn("_gen", F.lit(None).cast("long")).withColumn("_commit", F.lit(True)))
    in_log_order = (Window.partitionBy(*scope, "groupId").orderBy(F.coalesce(F.col("_at"), F.lit(-1)), "_order")
                    .rowsBetween(Window.unboundedPreceding, Window.currentRow))
    last = F.last("_gen", ignorenulls=True).over(in_log_order)
    return (placed.unionByName(marks.withColumn("_commit", F.lit(False)), allowMissingColumns=True)
            .withColumn("_inForce", F.when(last != NO_GENERATION, last)).where(F.col("_commit")))


def _history_plan(in_force: Any, key: list[str]) -> Any:
    """Per group and partition its count of commits in force and the stride of its history
    (:func:`~kafka_meta.analysis.lag.history_stride` by the group's :func:`~kafka_meta.analysis.lag.history_cap`)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType

    counts = in_force.groupBy(*key).agg(F.count(F.lit(1)).alias("_n")).collect()
    partitions = Counter(r.groupId for r in counts)
    rows = [(*r[:3], r._n, history_stride(r._n, history_cap(HISTORY, GROUP_HISTORY, partitions[r.groupId])))
            for r in counts]
    schema = StructType([*in_force.select(*key).schema.fields, StructField("_n", LongType()),
                         StructField("_stride", LongType())])
    return in_force.sparkSession.createDataFrame(rows, schema)


def lag_of(offsets: Any, groups: Any, log_paths: list[str], timeline: Timeline | None, output: str
           ) -> dict[str, GroupStanding]:
    """Write ``{output}/lag`` (every commit in force with its lag) and give each group's standing."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    commits = _commits(offsets)
    if commits is None:
        return {}
    ends = log_ends(log_paths)
    scope = [c for c in SCOPE if c in offsets.columns]
    key = ["groupId", "_topic", "_partition"]
    position = [F.coalesce(F.col("_at"), F.lit(-1)), F.col("_order")]
    ordered = Window.partitionBy(*key).orderBy(*position)
    whole = Window.partitionBy(*key)
    cut = (commits.withColumn("_pos", F.row_number().over(ordered))
           .withColumn("_cut", F.max(F.when(F.col("tombstone"), F.col("_pos"))).over(whole))
           .where(~F.col("tombstone") & (F.col("_cut").isNull() | (F.col("_pos") > F.col("_cut")))))
    in_force = (cut.where(F.col("_offset").isNotNull() & F.col("_topic").isNotNull()
                          & F.col("_partition").isNotNull()))
    (in_force.select("groupId", F.col("_topic").alias("topic"), F.col("_partition").alias("partition"),
                     F.col("_offset").alias("offset"), "_ms")
     .mapInArrow(_lag_rows(ends), LAG_SCHEMA)
     .select("groupId", "topic", "partition", "offset", F.timestamp_millis("_ms").alias("timestamp"),
             "logEndOffset", "lagRecords", "lagSeconds")
     .write.mode("overwrite").parquet(f"{output}/lag"))
    # the bounded part that comes to the driver: per partition its window and the history the report keeps
    # (every history_stride-th commit), the stride worked out on the driver by the report's own rule from
    # each partition's count (a row per group and partition)
    plan = _history_plan(in_force, key)
    counted = in_force.join(F.broadcast(plan), key).withColumn("_rn", F.row_number().over(ordered))
    kept = counted.where((F.col("_rn") > F.col("_n") - WINDOW) | ((F.col("_rn") % F.col("_stride")) == 0))
    selected = _with_generation(kept, groups, scope).select(*key, "_offset", "_ms", "_inForce", "_rn", "_n")
    state = LagState()
    seen = F.col("_error").isNull() & ~F.coalesce(F.col("control"), F.lit(False)) & ~F.col("unknown")
    state.seen(offsets.where(seen).agg(F.max(_ms(offsets)).alias("t")).collect()[0].t)  # "now": the newest time
    for (topic, partition), end in ends.items():
        state.log_end(topic, partition, end.end, first=end.first, times=end.times)
    by_key: dict[tuple[str, str, int], list[Any]] = {}
    for r in sorted(selected.collect(), key=lambda r: (r.groupId, r._topic, r._partition, r._rn)):
        by_key.setdefault((r.groupId, r._topic, r._partition), []).append(r)
    for (group, topic, partition), rows in by_key.items():
        state.restore(group, topic, partition, [CommitPoint(r._offset, r._ms, r._inForce, None, r._rn) for r in rows],
                      rows[-1]._n)
    groups_by_name = {g.group: g for g in (timeline.groups if timeline is not None else [])}
    return state.standings(owner=owner_in(groups_by_name))
