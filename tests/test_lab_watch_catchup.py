"""``kafka-meta watch --from-beginning`` on the session's real KRaft broker whose ``__consumer_offsets`` already
holds tens of thousands of commits: it says it is catching up (how far behind, from the broker's own log ends),
then that it has caught up, once; by then it has read every commit of the groups committed before it started."""

from __future__ import annotations

import io
import json
import uuid

import pytest
from test_lab_watch import Watching

from kafka_meta.live.events import CATCHING_UP, CAUGHT_UP
from kafka_meta.live.view import JsonLines, TerminalView, snapshot

pytestmark = pytest.mark.kafka

GROUPS, PARTITIONS, REQUESTS = 10, 100, 300  # 300 OffsetCommit requests of 100 partitions: 30,000 commits


def _preload(bootstrap: str, topic: str, groups: list[str]) -> None:
    """Real offset commits: consumers of ``groups`` (assigned, no group membership) committing every partition of
    ``topic`` per request, the groups in turn."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.structs import OffsetAndMetadata

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])
    admin.close()
    partitions = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    consumers = [KafkaConsumer(bootstrap_servers=bootstrap, group_id=g, enable_auto_commit=False) for g in groups]
    try:
        for c in consumers:
            c.assign(partitions)
        for n in range(REQUESTS):
            consumers[n % GROUPS].commit({tp: OffsetAndMetadata(n, "", -1) for tp in partitions})
    finally:
        for c in consumers:
            c.close()


def test_watch_from_the_beginning_says_it_is_catching_up_then_caught_up(kafka_broker):
    tag = uuid.uuid4().hex[:8]
    groups = [f"catchup-{tag}-{g}" for g in range(GROUPS)]
    _preload(kafka_broker.bootstrap, f"catchup-{tag}", groups)
    watching = Watching(kafka_broker.bootstrap, from_beginning=True)
    try:
        watching.wait_for(lambda: CAUGHT_UP in watching.out.kinds(), 60, "the watch to catch up")
    finally:
        core = watching.stop()
    told = [e for e in watching.out.events if e.kind in (CATCHING_UP, CAUGHT_UP)]
    assert [e.kind for e in told] == [CATCHING_UP, CAUGHT_UP]  # each once, in that order
    behind, caught = told[0].detail, told[1].detail
    # the first look comes after the first poll, which hands over at most 20,000 records of the 30,000 and more
    assert behind["behind"] >= PARTITIONS * REQUESTS - 20_000 and behind["caughtUp"] is False
    assert behind["message"].startswith("catching up: ") and " records behind" in behind["message"]
    assert caught["caughtUp"] is True and caught["message"] == "caught up"
    assert caught["readWhileCatchingUp"] >= behind["behind"]
    for group in groups:  # every commit of every group written before the watch started, each read once
        assert core.commits[group] == REQUESTS // GROUPS * PARTITIONS, group
    assert {g for g in core.group_names() if g.startswith(f"catchup-{tag}-")} == set(groups)
    # and it says so where a person and a program look
    from rich.console import Console

    console = Console(record=True, width=200, file=io.StringIO(), color_system=None)
    view = TerminalView(console)
    view.close(core)
    status = next(line for line in console.export_text().splitlines() if line.startswith("connected to"))
    assert status.endswith("; caught up"), status
    out = io.StringIO()
    JsonLines(out).event(snapshot(core, told[1].at))
    assert json.loads(out.getvalue())["catchUp"]["caughtUp"] is True
