"""``kafka-meta watch`` against a real KRaft broker: the live timeline of real Java consumers rebalancing while
it runs equals what the clients saw (truth.jsonl); share and streams groups are described with their members
as Kafka's Admin client saw them; a broker stopped and restarted under it is waited for, read on from where
reading stopped, and nothing is counted twice; and real transactional producers' transactions (committed,
aborted, left open, timed out, fenced) are told as the coordinator records them, on a topic created after the
watch started."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import threading
import time
from dataclasses import asdict
from pathlib import Path

import pytest
from lab_recordings import fresh_recording, played
from lab_truth import admin_described, completed_members, groups, watched

from kafka_meta.live.core import TRANSACTION_TOPIC, LiveTimeline
from kafka_meta.live.events import CONNECTED, DISCONNECTED, FINDING, STATE, TRANSACTION, Event
from kafka_meta.live.session import WatchOptions, watch
from kafka_meta.live.view import JsonLines
from kafka_meta.log import read_log

pytestmark = pytest.mark.kafka


class Collected:
    """An output keeping the events, for the test to read while the watch runs in its thread."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.closed: LiveTimeline | None = None

    def event(self, e: Event) -> None:
        self.events.append(e)

    def tick(self, core: LiveTimeline, now: float) -> None:
        self.core = core

    def close(self, core: LiveTimeline) -> None:
        self.closed = core

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


class Watching:
    """A watch in a thread of its own, stopped by the test."""

    def __init__(self, bootstrap: str, outputs: tuple = (), **options) -> None:
        self.out, self.stopping, self.error = Collected(), threading.Event(), None
        self.outputs = [self.out, *outputs]
        self.options = WatchOptions(bootstrap, connect_timeout_s=60, describe_every_s=1.0, **options)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        try:
            watch(self.options, self.outputs, stop=self.stopping.is_set)
        except Exception as e:  # noqa: BLE001 - handed to the test, which fails with it
            self.error = e

    def wait_for(self, what, timeout: float, why: str) -> None:
        deadline = time.monotonic() + timeout
        while not what():
            assert self.error is None, self.error
            assert time.monotonic() < deadline, f"waited {timeout:.0f} s for {why}; events: {self.out.kinds()}"
            time.sleep(0.2)

    def stop(self) -> LiveTimeline:
        self.stopping.set()
        self.thread.join(60)
        assert not self.thread.is_alive() and self.error is None, self.error
        assert self.out.closed is not None
        return self.out.closed


def test_the_live_timeline_of_rebalancing_java_consumers_equals_what_they_saw(lab, kafka_broker, tmp_path_factory):
    """Java consumers join, leave and are killed (the lab's classic scenario, recorded against the session
    broker) while the watch runs; every generation the clients completed is a round of the live timeline with
    the same members owning the same partitions."""
    watching = Watching(kafka_broker.bootstrap, from_beginning=True)
    try:
        watching.wait_for(lambda: CONNECTED in watching.out.kinds(), 60, "the watch to connect")
        recording = fresh_recording(lab, kafka_broker, tmp_path_factory)
        truth = {name: g for name, g in groups(recording).items() if g.protocol == "classic"}
        assert truth
        wanted = {name: max(g.generations) for name, g in truth.items()}

        def caught_up() -> bool:
            core = getattr(watching.out, "core", None)
            rounds = core.offsets.log.groups if core is not None else {}
            return all(name in rounds and max((r.generation or 0) for r in rounds[name].rounds) >= last
                       for name, last in wanted.items())

        watching.wait_for(caught_up, 60, "the watch to read the scenario's last generations")
        scenario_over = time.time()  # every commit made: the log ends asked after this are the last word
        watching.wait_for(lambda: (getattr(watching.out, "core", None) is not None
                                   and (watching.out.core.ends_at or 0) > scenario_over + 1), 30,
                          "the watch to ask the groups' log ends")
    finally:
        core = watching.stop()
    _stands_as_kafkas_clients_say(core, kafka_broker.bootstrap, sorted(truth))
    live = core.timelines()
    for name, seen_by_clients in truth.items():
        got = completed_members(live[name].rounds)
        assert set(seen_by_clients.generations) <= set(got), name
        for generation, owners in seen_by_clients.generations.items():
            assert {m: got[generation][m] for m in owners} == owners, (name, generation)
    described = {e.group for e in watching.out.events if e.kind == "state"}
    assert set(truth) <= described  # the coordinator was asked about them, with our own requests


def _stands_as_kafkas_clients_say(core, bootstrap: str, group_names: list[str]) -> None:
    """Each group's standing, as the watch worked it out from its records and ListOffsets answers, equals what
    Kafka's clients say once the groups are done: the admin client's committed offsets, and the log ends."""
    from kafka import KafkaAdminClient, KafkaConsumer

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, isolation_level="read_committed")
    try:
        standings = core.standings()
        for name in group_names:
            committed = {tp: om.offset for tp, om in admin.list_group_offsets(name)[name].items()}
            ends = consumer.end_offsets(list(committed))
            want = {(tp.topic, tp.partition): (offset, ends[tp], max(0, ends[tp] - offset))
                    for tp, offset in committed.items()}
            got = {(p.topic, p.partition): (p.offset, p.log_end, p.lag_records) for p in standings[name].partitions}
            assert got == want, name
    finally:
        consumer.close()
        admin.close()


SHARE, STREAMS = "lab-share", "lab-wordcount-streams"  # the groups of the lab's share and streams scenarios
STREAMS_TASKS = {(s, p) for s in ("0", "1") for p in range(4)}  # two subtopologies of four partitions each


def test_share_and_streams_groups_are_described_with_their_members(lab, kafka_broker, tmp_path_factory):
    """The lab's share and streams scenarios, one after the other, while a watch of their two groups runs: each
    is described with the describe of its type (the broker's ApiVersions has both), with members; a Stable
    streams group's members hold every active task once; and what the watch read of the members is, at least
    once for each group, exactly what Kafka's Admin client read in the scenario (truth.jsonl)."""
    watching = Watching(kafka_broker.bootstrap, groups=[SHARE, STREAMS])
    try:
        watching.wait_for(lambda: CONNECTED in watching.out.kinds(), 60, "the watch to connect")
        share = played(lab, kafka_broker, "share", tmp_path_factory)
        streams = played(lab, kafka_broker, "streams-group", tmp_path_factory)
    finally:
        watching.stop()
    told = {SHARE: [], STREAMS: []}
    for e in watching.out.events:
        if e.kind == STATE:
            told[e.group].append(e.detail)
    for group, kind, recording in ((SHARE, "share", share), (STREAMS, "streams", streams)):
        described = [d for d in told[group] if d["members"]]
        assert described and all(d["kind"] == kind and "note" not in d for d in told[group]), told[group]
        assert all(d["epoch"] > 0 and d["assignmentEpoch"] is not None for d in described)
        truth = [t for t in admin_described(recording, group) if t]
        seen = [watched(d) for d in described]
        assert truth and any(t in seen for t in truth), (truth, seen)
    settled = {group: [d for d in told[group] if d["state"] == "Stable" and d["members"]
                       and all(m["epoch"] == d["assignmentEpoch"] for m in d["members"])] for group in told}
    assert settled[SHARE] and settled[STREAMS]
    for d in settled[STREAMS]:  # every active task held by exactly one member
        assert d["topologyEpoch"] == 0
        active = [(s, p) for m in d["members"] for s, ps in m["tasks"]["active"].items() for p in ps]
        assert sorted(active) == sorted(STREAMS_TASKS), d
    # a share group's members share its partitions: the coordinator gives out only partitions whose share state
    # the broker has initialised (none at first, then more as each is), so in time every one of them, and never
    # one of another topic
    every = {f"lab-share-topic-{p}" for p in range(3)}
    shared = [{tp for m in d["members"] for tp in m["assigned"]} for d in settled[SHARE]]
    assert every in shared and all(given <= every for given in shared), shared


def _restart(lab, directory: Path, broker):
    """The broker again, on its own log directory and port (labkit starts brokers on fresh directories only)."""
    kit = lab.broker
    env = {**os.environ, "LAB_BROKER_LOG": str(directory / kit.LOG_FILE)}
    with open(directory / "broker.out", "ab") as out:
        process = subprocess.Popen(kit._java_command("kafka.Kafka", str(directory / "server.properties"), heap="1g"),
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
    again = kit.Broker(str(directory), process.pid, broker.port, broker.controller_port, broker.cluster_id)
    again.watchdog_pid = kit._start_watchdog(os.getpid(), process.pid, directory)
    (directory / kit.STATE_FILE).write_text(json.dumps(asdict(again), indent=1) + "\n")
    deadline = time.monotonic() + kit.START_TIMEOUT_S
    while not kit.api_versions_answered(broker.port):
        assert process.poll() is None, f"the restarted broker exited; see {directory / kit.LOG_FILE}"
        assert time.monotonic() < deadline, "the restarted broker did not answer"
        time.sleep(0.25)
    return again


def _commit(bootstrap: str, group: str, topic: str, times: int) -> None:
    """A consumer of ``group`` committing ``times`` times (one record per partition each time)."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    try:
        consumer.assign([TopicPartition(topic, 0)])
        from kafka.structs import OffsetAndMetadata

        for n in range(times):
            consumer.commit({TopicPartition(topic, 0): OffsetAndMetadata(n, "", -1)})
    finally:
        consumer.close()


def _commits_in_log(log_dir: Path, group: str) -> int:
    key_start = len(group).to_bytes(2, "big") + group.encode()
    return sum(1 for r in read_log(log_dir) if r["topic"] == "__consumer_offsets" and r["value"] is not None
               and int.from_bytes(r["key"][:2], "big") in (0, 1) and r["key"][2:2 + len(key_start)] == key_start)


def test_a_broker_stopped_and_restarted_mid_watch(lab, tmp_path):
    from kafka.admin import KafkaAdminClient, NewTopic

    directory = tmp_path / "broker"
    broker = lab.broker.start(directory, owner_pid=os.getpid())
    watching = None
    try:
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        admin.create_topics([NewTopic("watched", 1, 1)])
        admin.close()
        _commit(broker.bootstrap, "before", "watched", 5)
        watching = Watching(broker.bootstrap, from_beginning=True)
        watching.wait_for(lambda: getattr(watching.out, "core", None) is not None
                          and watching.out.core.commits["before"] == 5, 60, "the first commits")
        lab.broker.stop(directory)
        watching.wait_for(lambda: DISCONNECTED in watching.out.kinds(), 60, "the watch to see the broker gone")
        broker = _restart(lab, directory, broker)
        watching.wait_for(lambda: watching.out.kinds().count(CONNECTED) == 2, 90, "the watch to reconnect")
        _commit(broker.bootstrap, "after", "watched", 4)
        watching.wait_for(lambda: watching.out.core.commits["after"] == 4, 60, "the commits after the restart")
        events = watching.out.events
        core = watching.stop()
        watching = None
    finally:
        if watching is not None:
            watching.stop()
        lab.broker.stop(directory)
    told = [e for e in events if e.kind in (CONNECTED, DISCONNECTED)]
    assert [e.kind for e in told] == [CONNECTED, DISCONNECTED, CONNECTED]
    assert told[1].detail["reason"] and broker.bootstrap in told[1].detail["bootstrap"]
    resumed = told[2].detail["resumeFrom"]["__consumer_offsets"]
    assert resumed and all(offset > 0 for offset in resumed.values())  # read on from where it was
    for group, written in (("before", 5), ("after", 4)):
        assert _commits_in_log(directory / "kafka-logs", group) == written
        assert core.commits[group] == written, group  # nothing counted twice


HANG_TIMEOUT_MS = 3000  # the transaction the coordinator times out: its transaction.timeout.ms


def _producer(bootstrap: str, transactional_id: str, **settings):
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, transactional_id=transactional_id, **settings)
    producer.init_transactions()
    return producer


def _written(producer, topic: str, partitions: list[int]) -> None:
    """A transaction begun and records sent to ``partitions`` of ``topic`` (and flushed: they are in the log)."""
    producer.begin_transaction()
    for p in partitions:
        producer.send(topic, b"v", partition=p)
    producer.flush()


def test_transactions_committed_aborted_open_timed_out_and_fenced(lab, tmp_path):
    """kafka-python's transactional producers against a broker of the test's own, whose ``__transaction_state``
    does not exist when the watch starts (without --from-beginning: a topic created later is read whole): one
    transaction committed, one aborted, one left open, one left open past its 3 s timeout until the coordinator
    aborts it, and one of a producer fenced by a second instance's initTransactions. The watch's JSON lines say
    each: a ``transaction`` event for each ended one, a ``fenced-producer`` finding for each fenced producer,
    the ``hanging-transaction`` finding for the timed-out one whenever it stayed open long enough past its
    timeout for the watch to see it, and its snapshot holds the one still open."""
    from kafka.admin import KafkaAdminClient, NewTopic

    directory, topic, lines = tmp_path / "broker", "watched-txn", io.StringIO()
    broker = lab.broker.start(directory, owner_pid=os.getpid())
    watching, producers = None, []
    try:
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        admin.create_topics([NewTopic(topic, 2, 1)])
        assert TRANSACTION_TOPIC not in admin.list_topics()
        admin.close()
        watching = Watching(broker.bootstrap, outputs=(JsonLines(lines),))
        watching.wait_for(lambda: CONNECTED in watching.out.kinds(), 60, "the watch to connect")

        done = _producer(broker.bootstrap, "watch-done")
        producers.append(done)
        _written(done, topic, [0, 1])
        done.commit_transaction()
        _written(done, topic, [1])
        done.abort_transaction()
        left_open = _producer(broker.bootstrap, "watch-open", transaction_timeout_ms=600_000)  # open to the end
        hung = _producer(broker.bootstrap, "watch-hung", transaction_timeout_ms=HANG_TIMEOUT_MS)
        first = _producer(broker.bootstrap, "watch-fenced")
        producers += [left_open, hung, first]
        for producer, partitions in ((left_open, [0]), (hung, [1]), (first, [0])):
            _written(producer, topic, partitions)
        producers.append(_producer(broker.bootstrap, "watch-fenced"))  # the second instance fences the first

        def told(kind: str, **wanted) -> list[dict]:
            return [e.detail for e in list(watching.out.events)
                    if e.kind == kind and all(e.detail.get(k) == v for k, v in wanted.items())]

        def ended() -> set[tuple[str, str]]:
            return {(d["transactionalId"], d["outcome"]) for d in told(TRANSACTION)}

        expected = {("watch-done", "committed"), ("watch-done", "aborted"), ("watch-fenced", "aborted"),
                    ("watch-hung", "aborted")}
        watching.wait_for(lambda: expected <= ended(), 60, "the transactions to end, the timed-out one aborted")
        watching.wait_for(lambda: len(told(FINDING, finding="fenced-producer")) >= 2, 30, "both fenced producers")
        core = watching.stop()
        events, watching = list(watching.out.events), None
    finally:
        if watching is not None:
            watching.stop()
        for producer in producers:
            with contextlib.suppress(Exception):  # a fenced producer may refuse to close cleanly: it is gone
                producer.close(timeout=5)
        lab.broker.stop(directory)
    written = [json.loads(line) for line in lines.getvalue().splitlines()]
    told_as_json = [w["event"] for w in written if w["event"] != "snapshot"]  # JsonLines adds its snapshots
    assert told_as_json[:len(events)] == [e.kind for e in events]
    transactions = {(w["transactionalId"], w["outcome"]): w for w in written if w["event"] == TRANSACTION}
    assert set(transactions) == expected  # the one left open never ended
    for key, partitions in ((("watch-done", "committed"), [f"{topic}-0", f"{topic}-1"]),
                            (("watch-done", "aborted"), [f"{topic}-1"]), (("watch-fenced", "aborted"), [f"{topic}-0"]),
                            (("watch-hung", "aborted"), [f"{topic}-1"])):
        assert transactions[key]["partitions"] == partitions, key
        assert transactions[key]["durationMs"] >= 0 and transactions[key]["producerId"] >= 0
    timed_out = transactions["watch-hung", "aborted"]
    assert timed_out["durationMs"] >= HANG_TIMEOUT_MS  # the coordinator aborted it, past its timeout
    fenced = {w["transactionalId"]: w for w in written if w["event"] == FINDING and w["finding"] == "fenced-producer"}
    assert set(fenced) == {"watch-fenced", "watch-hung"}
    assert "past transaction.timeout.ms" in fenced["watch-hung"]["why"]
    assert fenced["watch-fenced"]["byProducerEpoch"] > fenced["watch-fenced"]["producerEpoch"]
    hanging = [w for w in written if w["event"] == FINDING and w["finding"] == "hanging-transaction"]
    assert all(h["transactionalId"] == "watch-hung" and h["openMs"] > HANG_TIMEOUT_MS for h in hanging)
    assert len(hanging) <= 1
    # the coordinator aborts timed-out transactions every 10 s: when it left this one open well past its timeout
    # (the watch looks every half second), the watch said so before the abort came
    if timed_out["durationMs"] - HANG_TIMEOUT_MS >= 2500:
        assert hanging and written.index(hanging[0]) < written.index(timed_out)
    (snapshot,) = [w for w in written if w["event"] == "snapshot"][-1:]
    txns = snapshot["transactions"]
    assert [(o["transactionalId"], o["partitions"], o["hanging"]) for o in txns["open"]] == [
        ("watch-open", [f"{topic}-0"], False)]
    assert (txns["committed"], txns["aborted"], txns["fenced"]) == (1, 3, 2)
    # created after the watch started, the topic was read from its beginning: every record of it was read
    assert core.records["TransactionLog"] == sum(snapshot["positions"][TRANSACTION_TOPIC].values())
