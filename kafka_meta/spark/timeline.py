"""The analyze job's rebalance timeline: the few rows it needs, gathered from the decoded DataFrame.

The timeline reads every group record in log order (a generation per GroupMetadata record, an epoch per
ConsumerGroupMetadata record and the member records after it). There are as many of those as there were
rebalances, few next to the commits, so they are collected and read by the plain-Python builder
(:func:`kafka_meta.analysis.assemble.build_timeline`); byte-identical rewrites of a key's value are dropped
on the executors first. Commits are many: Spark counts them per group and
second, and only the counts come back.
"""

from __future__ import annotations

import json
from typing import Any

from kafka_meta.analysis.assemble import Timeline, build_timeline
from kafka_meta.analysis.epoch_log import BY_RECORD_TYPE
from kafka_meta.analysis.epochs import topic_id
from kafka_meta.analysis.rounds import GROUP_APIS
from kafka_meta.spark.bodies import body_value

# classic generations (2), the KIP-848 topic names of Kafka 4.0 (4), and the epochs and member records of
# consumer, share and streams groups
TIMELINE_RECORD_TYPES = (2, 4, *sorted(BY_RECORD_TYPE))
ORDER = ("partition", "offset")


def _ms(df: Any) -> Any:
    """Record time in epoch milliseconds, from a Kafka-source timestamp or a dump's milliseconds."""
    from pyspark.sql import functions as F

    if "timestamp" not in df.columns:
        return F.lit(None).cast("long")
    if dict(df.dtypes)["timestamp"].startswith("timestamp"):
        return (F.col("timestamp").cast("double") * 1000).cast("long")
    return F.col("timestamp").cast("long")




def capture_exchanges(spark: Any, paths: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """The group-protocol exchanges of packet captures (files or directories), read by the capture data
    source on the executors; only those rows come back, bodies in the protocol layer's form. Also the
    problems the reader found, with their file and packet."""
    from kafka_meta.spark.sources import register

    register(spark)
    return group_exchanges(spark.read.format("kafka-meta-capture").load(paths))


def group_exchanges(df: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """The group-protocol rows of a ``kafka-meta-capture`` DataFrame as exchange dicts, and its problems."""
    from pyspark.sql import functions as F

    # Metadata exchanges too: their responses name the topics KIP-848 heartbeats give by id only
    rows = df.where(F.col("apiName").isin(*GROUP_APIS, "Metadata")
                    | (F.col("apiName").isNull() & F.col("_error").isNotNull()))
    exchanges, problems = [], []
    for row in rows.collect():
        d = row.asDict(recursive=True)
        if d["apiName"] is None:
            problems.append(f"{d['source']['file']} packet {d['source']['frame']}: {d['_error']}")
            continue
        for body in ("request", "response"):  # structs, or JSON text (option bodies=json)
            d[body] = json.loads(d[body]) if isinstance(d[body], str) else body_value(d[body])
        exchanges.append(d)
    return exchanges, problems


def timeline_of(decoded: Any, source: str | None = None, exchanges: list[dict[str, Any]] | None = None,
                names: dict[str, str] | None = None) -> Timeline:
    """The timeline of ``decode_offsets`` output (rows in; only group records and commit counts come out),
    with captured exchanges when there are some; ``names`` (topic id -> name, from the cluster's metadata log)
    adds to the names the commits give."""
    from pyspark.sql import functions as F

    good = decoded.where(F.col("_error").isNull() & ~F.col("unknown") & ~F.col("control"))
    order = [c for c in ORDER if c in decoded.columns]
    keep = [c for c in ("partition", "offset", "_source") if c in decoded.columns]
    records = (good.where(F.col("recordType").isin(*TIMELINE_RECORD_TYPES))
               .select("key", "value", _ms(decoded).alias("timestamp"), *keep))
    records = _changes_only(records, order, ["key", "_source"] if "_source" in keep else ["key"])
    if order:
        records = records.orderBy(*order)
    # streamed a partition at a time: a storm's worth of group records must not be collected whole (the
    # driver's result-size limit and heap), and the builder reads them in one pass anyway
    rows = ({"key": bytes(r.key), "value": None if r.value is None else bytes(r.value), "timestamp": r.timestamp,
             **{c: r[c] for c in keep if c != "_source"}, "_file": r["_source"] if "_source" in keep else source}
            for r in records.toLocalIterator())
    commits = good.where(F.col("recordType").isin(0, 1) & ~F.col("tombstone")) \
        .withColumn("_ms", _ms(decoded))
    commits, aborted = settled_commits(decoded, commits)
    per_second = (commits.groupBy("groupId", F.floor(F.col("_ms") / 1000).alias("second")).count().collect())
    counts = [(r.groupId, None if r.second is None else float(r.second), r["count"]) for r in per_second]
    timeline = build_timeline(exchanges or [], offsets_rows=rows, commit_counts=counts,
                              topic_names={**(names or {}), **topic_names(commits)})
    for group, n in aborted.items():  # the log's count; a capture of the same transactions saw the same ones
        tl = timeline.group(group)
        if tl is not None:
            tl.aborted_commits = max(tl.aborted_commits, n)
    return timeline


def topic_names(commits: Any) -> dict[str, str]:
    """Topic id -> name from the offset commits (which carry both since Kafka 4.1): the KIP-848 records the
    timeline collects name topics by id only. As many rows come back as there are topics."""
    from pyspark.sql import functions as F

    if "offsetCommit" not in commits.columns:
        return {}
    pairs = (commits.where(F.col("offsetCommit.value.topicId").isNotNull())
             .select(F.col("offsetCommit.value.topicId").alias("id"), F.col("offsetCommit.key.topic").alias("name"))
             .distinct().collect())
    return {topic_id(r.id): r.name for r in pairs if r.name}


def settled_commits(decoded: Any, commits: Any) -> tuple[Any, dict[str, int]]:
    """The commits that are in force: a transactional one (``producerId`` of a transactional batch) only when
    the next marker of its producer in its partition is a COMMIT; and, per group, how many an ABORT undid.
    Worked out on the executors: each transactional commit looks ahead to its producer's next marker."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if "producerId" not in decoded.columns or "offset" not in decoded.columns:
        return commits, {}
    where = [c for c in ("_source", "topic", "partition") if c in decoded.columns]
    transactional = F.coalesce(F.col("producerId"), F.lit(-1)) >= 0
    plain = commits.where(~transactional)
    markers = (decoded.where(F.col("control") & transactional)
               .select(*where, "producerId", "offset", F.col("recordName").alias("_marker")))
    pending = commits.where(transactional).withColumn("_marker", F.lit(None).cast("string"))
    ahead = Window.partitionBy(*where, "producerId").orderBy("offset").rowsBetween(0, Window.unboundedFollowing)
    judged = (pending.unionByName(markers, allowMissingColumns=True)
              .withColumn("_outcome", F.first("_marker", ignorenulls=True).over(ahead))
              .where(F.col("_marker").isNull()))
    aborted = {r.groupId: r["count"] for r in judged.where(F.col("_outcome") == "control ABORT")
               .groupBy("groupId").count().collect() if r.groupId}
    kept = judged.where(F.col("_outcome") == "control COMMIT").select(*plain.columns)
    return plain.unionByName(kept), aborted


def _changes_only(records: Any, order: list[str], per: list[str]) -> Any:
    """Drop a record whose value repeats the previous value of its key, byte for byte.

    Such a copy says nothing new to the builder (a generation written again keeps the content and the first
    time it was seen), and a log can hold millions of them (a coordinator rewriting the same group state, a
    copied directory, the bench's repeated batches): dropped here, on the executors, they never travel to
    the driver. A tombstone after a value is a change and stays.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if not order:
        records = records.withColumn("_order", F.monotonically_increasing_id())
    in_log_order = Window.partitionBy(*per).orderBy(*(order or ["_order"]))
    first = F.lag(F.lit(True)).over(in_log_order).isNull()
    repeat = F.lag("value").over(in_log_order).eqNullSafe(F.col("value"))
    records = records.withColumn("_change", first | ~repeat).where("_change").drop("_change")
    return records if order else records.drop("_order")


def write_timeline_html(timeline: Timeline, path: Any) -> bool:
    """report.html beside report.json; False (and the JSON alone) when plotly is not installed."""
    try:
        from kafka_meta.report.html import write_html
    except ImportError:
        return False
    write_html(timeline, path)
    return True
