"""The analyze job's rebalance timeline: the few rows it needs, gathered from the decoded DataFrame.

The timeline reads every group record in log order (a generation per GroupMetadata record, an epoch per
ConsumerGroupMetadata record and the member records after it). There are as many of those as there were
rebalances, few next to the commits, so they are streamed to the driver in log order and read by the
plain-Python builder (:func:`kafka_meta.analysis.assemble.build_timeline`), which ``kafka-meta report`` uses
too; byte-identical rewrites of a key's value in one partition are dropped on the executors first, as the
builder drops them. Log order is the builder's (:func:`kafka_meta.analysis.generations.log_order`): the inputs
in the order given, each one's records by topic, partition and offset, then in the order they were read.

Commits are many: they stay on the executors, where each is given the generation in force where it was written
(the last generation or group epoch record of its group before it in its partition, or before its COMMIT
marker for a transaction's), and only counts per (group, generation, second) come back, to reach the rounds
by the builder's own rule (:func:`kafka_meta.analysis.generations.add_commit_counts`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kafka_meta.analysis import timeline as model
from kafka_meta.analysis.assemble import Timeline, build_timeline
from kafka_meta.analysis.epochs import topic_id
from kafka_meta.analysis.generations import COMMITS, GENERATION_RECORD_TYPES, TIMELINE_RECORD_TYPES, CommitCount
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.analysis.rounds import GROUP_APIS
from kafka_meta.spark.bodies import body_value

SCOPE = ("_source", "topic", "partition")  # one partition's log, as one input holds it
LOG_ORDER = ("topic", "partition", "offset")  # within one input; then the order the rows were read in
# the generation column of each record that sets one (GENERATION_RECORD_TYPES)
GENERATION_COLUMNS = ("groupMetadata.value.generation", "consumerGroupMetadata.value.epoch",
                      "shareGroupMetadata.value.epoch", "streamsGroupMetadata.value.epoch")
NO_GENERATION = -(1 << 40)  # a generation record's tombstone (the group deleted): no generation from there on


# the nested decoded fields the timeline reads, beside GENERATION_COLUMNS
TOPIC_COLUMNS = ("offsetCommit.value.topicId", "offsetCommit.key.topic")
# the flat columns the report's steps read (counting, the newest record per key, the timeline)
READ_ORDER = "_order"  # a row's position as read: inputs in the order given, each file's rows in file order
WEIGHT = "_n"  # how many commits a row of commits stands for: 1, or a run's (kafka_meta.spark.tallies)
REPORT_COLUMNS = ("key", "value", "timestamp", "topic", "partition", "offset", "_source", "_file", "control",
                  "producerId", "transaction", "recordType", "recordName", "groupId", "tombstone", "readForward",
                  "unknown", "_error", READ_ORDER)


def report_columns(decoded: Any) -> Any:
    """``decode_offsets`` output cut down to what the report reads: its flat columns and, of the nested ones,
    only the fields named in :data:`GENERATION_COLUMNS` and :data:`TOPIC_COLUMNS`, at the same paths."""
    from pyspark.sql import functions as F

    nested: dict[str, dict[str, list[str]]] = {}
    for path in (*GENERATION_COLUMNS, *TOPIC_COLUMNS):
        top, middle, leaf = path.split(".")
        if _has_field(decoded.schema, path):
            nested.setdefault(top, {}).setdefault(middle, []).append(leaf)
    structs = [F.struct(*(F.struct(*(F.col(f"{top}.{middle}.{leaf}").alias(leaf) for leaf in leaves)).alias(middle)
                          for middle, leaves in middles.items())).alias(top) for top, middles in nested.items()]
    return decoded.select(*(c for c in REPORT_COLUMNS if c in decoded.columns), *structs)


def _has_field(schema: Any, path: str) -> bool:
    """Whether a dotted path names a field of nested structs in ``schema``."""
    from pyspark.sql.types import StructType

    for name in path.split("."):
        if not isinstance(schema, StructType) or name not in schema.fieldNames():
            return False
        schema = schema[name].dataType
    return True


def _ms(df: Any) -> Any:
    """Record time in epoch milliseconds, from a Kafka-source timestamp or a dump's milliseconds."""
    from pyspark.sql import functions as F

    if "timestamp" not in df.columns:
        return F.lit(None).cast("long")
    if dict(df.dtypes)["timestamp"].startswith("timestamp"):  # exact milliseconds, as the builder reads them
        return F.unix_millis(F.col("timestamp").cast("timestamp"))
    return F.col("timestamp").cast("long")




def _place(row: Any, keep: list[str], source: str | None) -> str | None:
    """Where a record was read, as the readers without Spark say it: the reader's own place (a log's
    partition), else the input it came from."""
    if "_file" in keep and row["_file"]:
        return str(row["_file"])
    return row["_source"] if "_source" in keep else source


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


@dataclass
class Tallied:
    """What the Python workers tallied of the commits as they wrote a log (kafka_meta.spark.tallies): the
    commits the timeline counts, in runs (a DataFrame), and the topic names the commits give (id -> name)."""

    runs: Any
    topics: dict[str, str]


def timeline_of(decoded: Any, source: str | None = None, exchanges: list[dict[str, Any]] | None = None,
                names: dict[str, str] | None = None, group_records: Any = None,
                tallied: Tallied | None = None) -> Timeline:
    """The timeline of ``decode_offsets`` output (rows in; only group records and commit counts come out),
    with captured exchanges when there are some; ``names`` (topic id -> name, from the cluster's metadata log)
    adds to the names the commits give. ``group_records``: the same rows' group records that decoded (the
    analyze job's ``groups/``, numbered as ``decoded`` is), read instead of picking them out of every row.
    ``tallied``: the same rows' commits as the workers that wrote them tallied them, read instead of every
    commit."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if READ_ORDER not in decoded.columns:  # numbered here unless the job numbered the rows as it read them
        decoded = decoded.withColumn(READ_ORDER, F.monotonically_increasing_id())
    decoded_fine = F.col("_error").isNull() & ~F.col("unknown") & ~F.col("control")
    good = decoded.where(decoded_fine)
    groups = good if group_records is None else group_records.where(decoded_fine)
    scope = [c for c in SCOPE if c in decoded.columns]
    position = [*(["offset"] if "offset" in decoded.columns else []), "_order"]
    keep = [c for c in (*SCOPE, "offset", "_file") if c in decoded.columns]
    records = (groups.where(F.col("recordType").isin(*TIMELINE_RECORD_TYPES))
               .select("key", "value", _ms(decoded).alias("timestamp"), *keep, "_order"))
    records = _changes_only(records, position, ["key", *scope])
    rank = []
    if "_source" in keep:  # inputs in the order they were read: the first position of each
        records = records.withColumn("_rank", F.min("_order").over(Window.partitionBy("_source")))
        rank = ["_rank"]
    records = records.orderBy(*rank, *[c for c in LOG_ORDER if c in keep], "_order")
    # streamed a partition at a time: a storm's worth of group records must not be collected whole (the
    # driver's result-size limit and heap), and the builder reads them in one pass anyway
    rows = ({"key": bytes(r.key), "value": None if r.value is None else bytes(r.value), "timestamp": r.timestamp,
             **{c: r[c] for c in keep}, "_file": _place(r, keep, source)}
            for r in records.toLocalIterator())
    if tallied is None:
        commits = (good.where(F.col("recordType").isin(*COMMITS) & ~F.col("tombstone"))
                   .withColumn("_ms", _ms(decoded)).withColumn(WEIGHT, F.lit(1).cast("long")))
        named = topic_names(commits)
    else:
        commits = tallied.runs.withColumn("_ms", _ms(tallied.runs))
        named = {topic_id(i): name for i, name in tallied.topics.items()}
    commits, aborted = settled_commits(decoded, commits)
    counts = commit_counts(groups, commits, scope)
    return build_timeline(exchanges or [], offsets_rows=rows, commit_counts=counts,
                          topic_names={**(names or {}), **named}, aborted_commits=aborted,
                          offsets_ordered=True)


def commit_counts(good: Any, commits: Any, scope: list[str]) -> list[CommitCount]:
    """Commits per (group, generation in force, second), counted on the executors.

    The generation in force at a commit is the last generation (or group epoch) record of its group before it
    in its partition, or before its COMMIT marker for a transaction's (``_at``), in log order (``_at``, then
    ``_order``; no offset comes first). A tombstone of the generation record leaves none in force. The second
    is Kafka's milliseconds floored, none where the record has no time (-1, magic 0).

    Generation records are few (one per rebalance) and commits are most of the log: the generation records
    come to the driver as the stretches of log order each generation is in force, and every commit finds its
    stretch in a broadcast join, so the commits are counted where they are, never sorted. A log with more
    than :data:`BROADCAST_GENERATIONS` generation records is counted with a window over both instead."""
    from pyspark.sql import functions as F

    columns = set(good.columns)
    present = [F.col(c) for c in GENERATION_COLUMNS if c.split(".")[0] in columns]
    generation = (F.coalesce(*present) if present else F.lit(None)).cast("long")
    at = F.col("offset") if "offset" in columns else F.lit(None).cast("long")
    generations = (good.where(F.col("recordType").isin(*GENERATION_RECORD_TYPES) & F.col("groupId").isNotNull()
                              & (F.col("groupId") != ""))
                   .select(*scope, "groupId", at.alias("_at"), "_order",
                           F.when(F.col("tombstone"), F.lit(NO_GENERATION)).otherwise(generation).alias("_gen"))
                   .where(F.col("_gen").isNotNull()))
    timed = (F.col("_ms") >= 0) & (F.col("_ms") < F.lit(model.LAST_SECOND * 1000))
    few = generations.limit(BROADCAST_GENERATIONS + 1).collect()  # one pass: they are few, or the window
    if len(few) > BROADCAST_GENERATIONS:
        in_force = _in_force_by_window(generations, commits, scope)
    else:
        in_force = _in_force_by_stretch(few, commits, scope)
    counted = (in_force.groupBy("groupId", F.col("_inForce").alias("generation"),
                                F.when(timed, F.floor(F.col("_ms") / 1000)).alias("second"))
               .agg(F.sum(WEIGHT).alias("count")).collect())
    return [(r.groupId, r.generation, None if r.second is None else float(r.second), r["count"]) for r in counted]


BROADCAST_GENERATIONS = 200_000  # generation records brought to the driver to place commits without a sort
BEFORE_ANY_OFFSET = -1  # where a row without an offset sorts: before every offset (offsets start at 0)


def _position(prefix: str = "") -> tuple[Any, Any]:
    from pyspark.sql import functions as F

    return F.coalesce(F.col(f"{prefix}_at"), F.lit(BEFORE_ANY_OFFSET)), F.col(f"{prefix}_order")


def _in_force_by_stretch(generations: list[Any], commits: Any, scope: list[str]) -> Any:
    """Each commit with ``_inForce``: the stretches between one generation record and the next of its group
    in its partition (``generations``: the rows, collected), built on the driver, broadcast, and joined on the
    group and partition."""
    from pyspark.sql import functions as F

    spark = commits.sparkSession
    stretches: list[tuple[Any, ...]] = []
    points: dict[tuple[Any, ...], list[tuple[int, int, int]]] = {}
    for r in generations:
        at = BEFORE_ANY_OFFSET if r["_at"] is None else r["_at"]
        points.setdefault(tuple(r[c] for c in (*scope, "groupId")), []).append((at, r["_order"], r["_gen"]))
    for where, marks in points.items():
        marks.sort(key=lambda m: (m[0], m[1]))
        for (at, order, gen), after in zip(marks, [*marks[1:], None], strict=True):
            stretches.append((*where, at, order, None if after is None else after[0],
                              None if after is None else after[1], None if gen == NO_GENERATION else gen))
    if not stretches:
        return commits.withColumn("_inForce", F.lit(None).cast("long"))
    schema = (", ".join(f"{c} {t}" for c, t in commits.select(*scope, "groupId").dtypes)
              + ", _fromAt long, _fromOrder long, _toAt long, _toOrder long, _inForce long")
    frame = spark.createDataFrame(stretches, schema)
    renamed = frame.select(*(F.col(c).alias(f"_s_{c}") for c in (*scope, "groupId")), "_fromAt", "_fromOrder",
                           "_toAt", "_toOrder", "_inForce")
    at, order = _position()
    after_start = (at > F.col("_fromAt")) | ((at == F.col("_fromAt")) & (order > F.col("_fromOrder")))
    before_end = (F.col("_toAt").isNull() | (at < F.col("_toAt"))
                  | ((at == F.col("_toAt")) & (order < F.col("_toOrder"))))
    same = [commits[c].eqNullSafe(renamed[f"_s_{c}"]) for c in scope] + [commits["groupId"] == renamed["_s_groupId"]]
    condition = same[0]
    for more in [*same[1:], after_start, before_end]:
        condition = condition & more
    return commits.join(F.broadcast(renamed), condition, "left").select(*commits.columns, "_inForce")


def _in_force_by_window(generations: Any, commits: Any, scope: list[str]) -> Any:
    """Each commit with ``_inForce``: a window over the generation records and the commits together, in log
    order (for logs whose generation records are too many to bring to the driver)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    written = commits.select(*scope, "groupId", "_at", "_order", F.lit(None).cast("long").alias("_gen"), "_ms",
                             WEIGHT)
    marks = generations.withColumn("_ms", F.lit(None).cast("long")).withColumn(WEIGHT, F.lit(None).cast("long"))
    in_log_order = (Window.partitionBy(*scope, "groupId").orderBy("_at", "_order")
                    .rowsBetween(Window.unboundedPreceding, Window.currentRow))
    last = F.last("_gen", ignorenulls=True).over(in_log_order)
    return (marks.unionByName(written).withColumn("_inForce", F.when(last != NO_GENERATION, last))
            .where(F.col("_gen").isNull()))


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
    """The commits that are in force, each with the offset it came into force at (``_at``): its own, or for a
    transactional one (``producerId`` of a transactional batch), only when the next marker of its producer in
    its partition is a COMMIT, that marker's; and, per group, how many an ABORT undid. Worked out on the
    executors: each transactional commit looks ahead to its producer's next marker."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    own = F.col("offset") if "offset" in commits.columns else F.lit(None).cast("long")
    if "producerId" not in decoded.columns or "offset" not in decoded.columns:
        return commits.withColumn("_at", own), {}
    where = [c for c in SCOPE if c in decoded.columns]
    transactional = F.coalesce(F.col("producerId"), F.lit(-1)) >= 0
    plain = commits.where(~transactional).withColumn("_at", own)
    markers = (decoded.where(F.col("control") & transactional)
               .select(*where, "producerId", "offset", F.col("recordName").alias("_marker")))
    pending = commits.where(transactional).withColumn("_marker", F.lit(None).cast("string"))
    ahead = Window.partitionBy(*where, "producerId").orderBy("offset").rowsBetween(0, Window.unboundedFollowing)
    judged = (pending.unionByName(markers, allowMissingColumns=True)
              .withColumn("_outcome", F.first("_marker", ignorenulls=True).over(ahead))
              .withColumn("_at", F.first(F.when(F.col("_marker").isNotNull(), F.col("offset")), ignorenulls=True)
                          .over(ahead))
              .where(F.col("_marker").isNull()))
    aborted = {r.groupId: r["count"] for r in judged.where(F.col("_outcome") == "control ABORT")
               .groupBy("groupId").agg(F.sum(WEIGHT).alias("count")).collect() if r.groupId}
    kept = judged.where(F.col("_outcome") == "control COMMIT").select(*plain.columns)
    return plain.unionByName(kept), aborted


def _changes_only(records: Any, order: list[str], per: list[str]) -> Any:
    """Drop a record whose value repeats the previous value of its key (in the same partition of the same
    input: ``per``), byte for byte.

    Such a copy says nothing new to the builder (a generation written again keeps the content and the first
    time it was seen), and a log can hold millions of them (a coordinator rewriting the same group state, the
    bench's repeated batches): dropped here, on the executors, they never travel to the driver. The builder
    skips the same ones when it reads every row itself (``kafka-meta report``), so both faces read the same
    records. A tombstone after a value is a change and stays; a copy in another partition or input is another
    log's record and stays too.
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


def write_report_html(report: AnalysisReport, path: Any) -> bool:
    """report.html beside report.json; False (and the JSON alone) when plotly is not installed."""
    try:
        from kafka_meta.report.html import write_html
    except ImportError:
        return False
    write_html(report, path)
    return True
