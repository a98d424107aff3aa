"""One log order and one commit rule for both faces of the timeline: ``kafka-meta report`` (plain Python)
and ``kafka-meta analyze`` (Spark) read the same inputs into the same rounds.

Inputs are read one after another in the order given, each partition's records by offset (never by
timestamp: magic 0 records have none); an offset commit counts for the generation in force in its own
partition when it was written, a transaction's when its COMMIT marker was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kafka_meta as km
from kafka_meta.analysis import timeline as model
from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.generations import add_commit_counts, build_generations, log_order
from kafka_meta.inputs import read
from kafka_meta.offsets import encode_record, new_record

ROOT = Path(__file__).resolve().parents[1]
T = 1767225600000  # ms


def _member(member_id: str) -> dict:
    sub = km.encode(km.model("ConsumerProtocolSubscription")(topics=["t"]), 3)
    asg = km.encode(km.model("ConsumerProtocolAssignment")(assigned_partitions=[{"topic": "t", "partitions": [0]}]), 3)
    return {"memberId": member_id, "clientId": member_id, "clientHost": "/10.0.0.1", "sessionTimeout": 45000,
            "rebalanceTimeout": 300000, "subscription": sub, "assignment": asg}


def generation(n: int, partition: int, offset: int, ts: int) -> dict:
    key, value = encode_record(new_record("GroupMetadata", {"group": "g"}, {
        "protocolType": "consumer", "generation": n, "protocol": "range", "leader": f"m{n}",
        "members": [_member(f"m{n}")]}))
    return {"partition": partition, "offset": offset, "timestamp": ts, "key": key.hex(), "value": value.hex()}


def commit(partition: int, offset: int, ts: int = -1) -> dict:
    key, value = encode_record(new_record("OffsetCommit", {"group": "g", "topic": "t", "partition": 0},
                                          {"offset": 100 + offset}))
    return {"partition": partition, "offset": offset, "timestamp": ts, "key": key.hex(), "value": value.hex()}


def two_dumps(tmp_path: Path) -> list[str]:
    """Two dumps of group g where reading by (partition, offset) across both, or giving each commit to the
    round read last, or to the round started before it, each tell another story.

    a.jsonl, given first, is partition 7: generation 5, two commits without a time (magic 0), generation 6,
    a commit. b.jsonl is partition 2 of an older time: a commit before any generation of its partition, then
    generation 2 and its commit."""
    a = [generation(5, 7, 0, T), commit(7, 1), commit(7, 2), generation(6, 7, 3, T + 10_000),
         commit(7, 4, T + 11_000)]
    b = [commit(2, 0), generation(2, 2, 1, T - 100_000), commit(2, 2, T - 99_000)]
    paths = []
    for name, rows in (("a.jsonl", a), ("b.jsonl", b)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
        paths.append(str(tmp_path / name))
    return paths


def story(rounds: list[model.Round]) -> list[tuple]:
    return [(r.generation, r.commits, r.leader, r.phase, r.complete, sorted(r.triggers)) for r in rounds]


def test_commits_count_for_the_generation_in_force_in_their_own_partition(tmp_path):
    inputs = read(two_dumps(tmp_path))
    g = build_timeline(offsets_rows=inputs.offsets).group("g")
    # rounds by start; generation 2's partition does not lend its generation to a's commits, nor a's to b's
    assert [(r.generation, r.commits) for r in g.rounds] == [(2, 1), (5, 2), (6, 1)]
    assert not any("not recorded" in t for r in g.rounds for t in r.triggers)  # a is read first: 5, 6, then 2
    # the commit written before any generation of its partition, with no time: nothing says which round
    assert len(g.commits) == 5 and sum(r.commits for r in g.rounds) == 4
    assert [c.generation for c in g.commits] == [5, 5, 6, None, 2]


def test_rows_are_read_in_log_order_not_file_order():
    rows = [{"_source": "x", "partition": 1, "offset": 5}, {"_source": "x", "partition": 0, "offset": 9},
            {"_source": "y", "partition": 0, "offset": 0}, {"_source": "x", "partition": 1, "offset": 2},
            {"_source": "x", "partition": 1}, {"_source": "y", "partition": 0, "offset": 0}]
    # sources in the order first read; in one, partition then offset (none first), then the order read
    assert [n for n, _ in log_order(rows)] == [2, 5, 4, 1, 3, 6]


def test_generation_records_written_again_in_one_partition_are_read_once():
    """A byte-identical rewrite in the same partition is skipped (the Spark job drops it on its executors);
    the same record in another partition is another log's, and read."""
    rows = [generation(3, 0, 0, T), commit(0, 1, T + 1), generation(3, 0, 2, T + 2), commit(0, 3, T + 3)]
    groups, errors = build_generations(rows, "dump.jsonl")
    (r,) = groups["g"].rounds
    assert errors == [] and r.commits == 2 and r.evidence.offset == 0  # the first record, not its copy
    groups, _ = build_generations([*rows, generation(3, 1, 0, T - 5)], "dump.jsonl")
    (r,) = groups["g"].rounds
    assert r.commits == 2 and r.start == (T - 5) / 1000 and r.evidence.offset == 0  # partition 1's copy


def test_counts_go_to_their_generation_and_only_without_one_by_time():
    rounds = [model.Round("g", "offsets", generation=g, start=s) for g, s in ((1, 10.0), (2, 20.0), (3, 30.0))]
    groups = {"g": model.GroupTimeline("g", rounds=rounds)}
    add_commit_counts(groups, [("g", 1, 35.0, 4),  # its generation, whatever its time
                               ("g", None, 25.0, 2),  # no generation: the round started before
                               ("g", None, None, 7),  # neither: the group's, no round's
                               ("h", None, 5.0, 1)], {"h": 3})
    assert [r.commits for r in rounds] == [4, 2, 0]
    assert sum(c.partitions for c in groups["g"].commits) == 13
    assert groups["h"].kind == "offsets only" and groups["h"].aborted_commits == 3


@pytest.fixture(scope="module", params=["stretches", "window"])
def analyzed(request, spark, tmp_path_factory):
    """Spark's timeline of inputs, by the analyze job itself; its commits placed both ways: in the stretches
    of the generation records brought to the driver, and (for logs with too many of those) by a window."""
    from kafka_meta.spark import timeline as spark_timeline
    from kafka_meta.spark.job import Progress, run

    def timeline(paths: list[str]):
        out = tmp_path_factory.mktemp("analyze")
        limit = spark_timeline.BROADCAST_GENERATIONS
        spark_timeline.BROADCAST_GENERATIONS = limit if request.param == "stretches" else -1
        try:
            return run(spark, paths, output=str(out), progress=Progress(lambda line: None)).timeline
        finally:
            spark_timeline.BROADCAST_GENERATIONS = limit

    return timeline


def test_report_and_analyze_tell_the_same_story(analyzed, tmp_path):
    paths = two_dumps(tmp_path)
    inputs = read(paths)
    told = build_timeline(inputs.exchanges, inputs.offsets)
    saved = analyzed(paths)
    assert story(saved.group("g").rounds) == story(told.group("g").rounds)
    assert [(r.generation, r.commits) for r in saved.group("g").rounds] == [(2, 1), (5, 2), (6, 1)]
    # the per-second commit counts: one per second with commits, each at its generation
    seconds = sorted((c.generation, c.ts, c.partitions) for c in saved.group("g").commits if c.generation)
    assert seconds == [(2, (T - 99_000) / 1000, 1), (5, None, 2), (6, (T + 11_000) / 1000, 1)]


def test_transactional_commits_count_at_their_marker_on_both_faces(analyzed):
    """The lab's transactions recording (a real broker's log): offsets committed in transactions count for
    the generation in force at their COMMIT marker, those aborted never, the same through both faces."""
    logs = str(ROOT / "fixtures" / "lab" / "transactions" / "kafka-logs")
    inputs = read([logs])
    told = build_timeline(offsets_rows=inputs.offsets)
    saved = analyzed([logs])
    assert sorted(g.group for g in saved.groups) == sorted(g.group for g in told.groups)
    for g in told.groups:
        twin = saved.group(g.group)
        assert story(twin.rounds) == story(g.rounds), g.group
        assert twin.aborted_commits == g.aborted_commits, g.group
        assert sum(c.partitions for c in twin.commits) == len(g.commits), g.group
    assert any(g.aborted_commits for g in told.groups) and any(r.commits for g in told.groups for r in g.rounds)
