"""What ``kafka-meta explain`` keeps follows the groups, not the rows: at a fixed number of groups, four times
the records of a log directory (each round a new generation of every group and its commits) or four times the
captured exchanges (each round a JoinGroup, a SyncGroup and heartbeats per group) leave its peak memory
about where it was (measured with tracemalloc, the whole verb run in this process), where a reading that
keeps every row, measured the same way, needs about four times as much."""

from __future__ import annotations

import base64
import gc
import json
import os
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from log_support import kafka_python_batch
from test_report_memory import commit

import kafka_meta as km
from kafka_meta.cli.main import main
from kafka_meta.inputs import rows
from kafka_meta.offsets import encode_record, new_record

GROUPS, TOPICS, PARTITIONS, HEARTBEATS = 8, 3, 4, 20


def member_bytes(member: int) -> tuple[bytes, bytes]:
    """A consumer's subscription (v3) and assignment bytes."""
    subscription = km.model("ConsumerProtocolSubscription")(topics=["t0"], user_data=None, owned_partitions=[],
                                                            generation_id=-1, rack_id=None)
    assignment = km.model("ConsumerProtocolAssignment")(
        assigned_partitions=[{"topic": "t0", "partitions": [member]}], user_data=None)
    return km.encode(subscription, 3), km.encode(assignment, 3)


def generation(group: str, n: int) -> tuple[bytes, bytes]:
    """A GroupMetadata record of generation ``n``: two members, each with its subscription and assignment."""
    members = []
    for m in range(2):
        subscription, assignment = member_bytes(m)
        members.append({"memberId": f"{group}-m{m}", "clientId": "c", "clientHost": "/10.0.0.1",
                        "rebalanceTimeout": 300000, "sessionTimeout": 45000, "subscription": subscription,
                        "assignment": assignment})
    return encode_record(new_record("GroupMetadata", {"group": group}, {
        "protocolType": "consumer", "generation": n, "protocol": "range", "leader": f"{group}-m0",
        "currentStateTimestamp": 0, "members": members}))


def log_directory(tmp: Path, rounds: int) -> Path:
    """Two partitions of ``__consumer_offsets``: ``rounds`` rounds of each group's new generation, then its
    commits of every partition of every topic."""
    logs = tmp / f"logs-{rounds}"
    for p in range(2):
        part = logs / f"__consumer_offsets-{p}"
        part.mkdir(parents=True)
        batches, offset = [], 0
        for r in range(rounds):
            for g in (f"g{i}" for i in range(GROUPS) if i % 2 == p):
                records = [generation(g, r + 1)] + [commit(g, f"t{t}", q, r) for t in range(TOPICS)
                                                    for q in range(PARTITIONS)]
                batches.append(kafka_python_batch(0, records, offset))
                offset += len(records)
        (part / f"{0:020d}.log").write_bytes(b"".join(batches))
    return logs


def exchanges(tmp: Path, rounds: int) -> Path:
    """Captured exchanges as JSON Lines (the capture layer's JSON shape): each round, each group's JoinGroup
    (the leader's response lists the members), SyncGroup (the leader hands out the assignments) and
    heartbeats."""
    path = tmp / f"exchanges-{rounds}.jsonl"
    text = base64.b64encode
    with path.open("w") as out:
        for r in range(1, rounds + 1):
            for group in (f"g{i}" for i in range(GROUPS)):
                members = [(f"{group}-m{m}", *member_bytes(m)) for m in range(2)]
                lines = [
                    {"apiKey": 11, "request": {"groupId": group, "protocolType": "consumer"},
                     "response": {"errorCode": 0, "generationId": r, "protocolName": "range",
                                  "leader": members[0][0],
                                  "members": [{"memberId": m, "metadata": text(s).decode()} for m, s, _ in members]}},
                    {"apiKey": 14, "request": {"groupId": group, "generationId": r, "memberId": members[0][0],
                                               "assignments": [{"memberId": m, "assignment": text(a).decode()}
                                                               for m, _, a in members]},
                     "response": {"errorCode": 0}},
                    *({"apiKey": 12, "request": {"groupId": group, "generationId": r, "memberId": m},
                       "response": {"errorCode": 0}} for _ in range(HEARTBEATS) for m, _, _ in members)]
                out.writelines(json.dumps(line) + "\n" for line in lines)
    return path


def peak(run: Callable[[], object], stdout: TextIO | None = None) -> int:
    """The most memory ``run`` held at once, above what was held before it (stderr, and stdout unless another
    is given, to /dev/null)."""
    gc.collect()
    with open(os.devnull, "w") as null:
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = stdout or null, null
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            run()
            return tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()
            sys.stdout, sys.stderr = saved


def explained(path: Path) -> Callable[[], object]:
    def run() -> None:
        assert main(["explain", "--json", str(path)]) == 0

    return run


def collected(path: Path) -> Callable[[], object]:
    """A reading that keeps every row: what the measure must catch."""
    return lambda: list(rows([str(path)]))


def test_explain_holds_the_same_at_four_times_the_records(tmp_path):
    peak(explained(log_directory(tmp_path, 1)))  # the readers compiled, the catalogue built: kept either way
    small = peak(explained(log_directory(tmp_path, 40)))
    large = peak(explained(log_directory(tmp_path, 160)))
    assert large < 1.25 * small + 64 * 1024, (small, large)


def test_explain_holds_the_same_at_four_times_the_exchanges(tmp_path):
    peak(explained(exchanges(tmp_path, 1)))
    small = peak(explained(exchanges(tmp_path, 40)))
    large = peak(explained(exchanges(tmp_path, 160)))
    assert large < 1.25 * small + 64 * 1024, (small, large)


def test_keeping_every_row_would_grow_with_them(tmp_path):
    """The measure can fail: keeping the rows read holds ~4x at 4x the records, and at 4x the exchanges."""
    for make in (log_directory, exchanges):
        peak(collected(make(tmp_path / "warm", 1)))
        small = peak(collected(make(tmp_path, 40)))
        large = peak(collected(make(tmp_path, 160)))
        assert large > 3 * small, (make.__name__, small, large)
