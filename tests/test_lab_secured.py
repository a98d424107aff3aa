"""``--command-config`` against a broker that asks for a login: the lab's broker with its SASL_PLAINTEXT listener
(PLAIN and SCRAM-SHA-256, one user), started for this module on its own.

A group commits offsets over the broker's PLAINTEXT listener (kafka-python, as any client would); then, over the
SASL listener only: ``kafka-meta watch`` logs in with each mechanism, reads the commit from
``__consumer_offsets`` and describes the group; ``kafka-meta analyze --format kafka`` reads the commit through
Spark's Kafka source with the same file; and with a wrong password both end with one line saying the broker
refused the login, soon, not after their connection timeouts and not with a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.kafka

USER, PASSWORD = "alice", "alice-secret"
GROUP, TOPIC = "lab-secured", "lab-secured-orders"
LOGIN_MODULES = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
                 "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule"}
REFUSAL_WITHIN_S = 30  # a watch gives up on a refused login after its first attempt (10 s)


@pytest.fixture(scope="module")
def secured_broker(lab, tmp_path_factory):
    """A broker of this module's own with a SASL listener, and a group's commit in its __consumer_offsets."""
    directory = tmp_path_factory.mktemp("secured-broker")
    broker = lab.broker.start(directory, owner_pid=os.getpid(), sasl_users={USER: PASSWORD})
    try:
        commit_offsets(broker.bootstrap)
        yield broker
    finally:
        lab.broker.stop(directory)


def commit_offsets(bootstrap: str) -> None:
    """A topic, and one commit of GROUP's for its partition (the group then exists on the coordinator)."""
    import kafka
    from kafka.admin import NewTopic
    from kafka.structs import OffsetAndMetadata, TopicPartition

    admin = kafka.KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(TOPIC, 1, 1)])
    finally:
        admin.close()
    consumer = kafka.KafkaConsumer(bootstrap_servers=bootstrap, group_id=GROUP, enable_auto_commit=False)
    try:
        consumer.commit({TopicPartition(TOPIC, 0): OffsetAndMetadata(0, "lab", -1)})
    finally:
        consumer.close()


def client_properties(tmp_path: Path, mechanism: str, password: str) -> Path:
    path = tmp_path / f"client-{mechanism}-{password}.properties"
    path.write_text("security.protocol=SASL_PLAINTEXT\n"
                    f"sasl.mechanism={mechanism}\n"
                    f"sasl.jaas.config={LOGIN_MODULES[mechanism]} required \\\n"
                    f"    username=\"{USER}\" password=\"{password}\";\n")
    return path


def kafka_meta(*args: str, timeout: float) -> tuple[subprocess.CompletedProcess, float]:
    """The console script as a user runs it, and how long it took; a timeout kills its process group (its JVM
    with it) and fails the test."""
    script = Path(sys.executable).with_name("kafka-meta")
    started = time.monotonic()
    process = subprocess.Popen([str(script), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"kafka-meta {args[0]} did not end in {timeout:.0f} s: {err[-2000:]}")
    return subprocess.CompletedProcess(process.args, process.returncode, out, err), time.monotonic() - started


def assert_login_refused(result: subprocess.CompletedProcess, took: float, bootstrap: str) -> None:
    assert result.returncode == 1, result.stderr
    said = result.stderr.strip().splitlines()[-1]
    assert f"{bootstrap} refused the login" in said and "Authentication failed" in said, result.stderr
    assert "Traceback" not in result.stderr
    assert took < REFUSAL_WITHIN_S, f"the refusal took {took:.0f} s"


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_watch_logs_in_reads_the_commit_and_describes_the_group(secured_broker, tmp_path, mechanism):
    config = client_properties(tmp_path, mechanism, PASSWORD)
    result, _ = kafka_meta("watch", "--bootstrap-server", secured_broker.sasl_bootstrap, "--command-config",
                           str(config), "--format", "json", "--from-beginning", "--duration", "4",
                           "--connect-timeout", "30", timeout=90)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["event"] == "connected" and events[0]["bootstrap"] == secured_broker.sasl_bootstrap
    described = [e for e in events if e["event"] == "state" and e["group"] == GROUP]
    assert described and described[0]["kind"] == "classic" and described[0]["state"] == "Empty"
    last = [e for e in events if e["event"] == "snapshot"][-1]
    assert last["records"] == {"OffsetCommit": 1}
    assert [(g["group"], g["commits"]) for g in last["groups"]] == [(GROUP, 1)]


def test_watch_with_a_wrong_password_says_the_login_was_refused(secured_broker, tmp_path):
    config = client_properties(tmp_path, "PLAIN", "not-" + PASSWORD)
    result, took = kafka_meta("watch", "--bootstrap-server", secured_broker.sasl_bootstrap, "--command-config",
                              str(config), "--format", "json", "--duration", "30", "--connect-timeout", "60",
                              timeout=90)
    assert_login_refused(result, took, secured_broker.sasl_bootstrap)
    assert "Invalid username or password" in result.stderr and result.stdout == ""


def test_analyze_reads_the_cluster_through_sparks_kafka_source_with_the_same_file(secured_broker, tmp_path):
    config = client_properties(tmp_path, "SCRAM-SHA-256", PASSWORD)
    output = tmp_path / "out"
    result, took = kafka_meta("analyze", "--format", "kafka", "--bootstrap-server", secured_broker.sasl_bootstrap,
                              "--command-config", str(config), "--output", str(output), timeout=600)
    print(f"\nanalyze --format kafka over SASL: {took:.0f} s", file=sys.stderr)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads((output / "report.json").read_text())
    assert GROUP in json.dumps(report)
    assert "__consumer_offsets records: 1" in result.stdout and "OffsetCommit 1" in result.stdout


def test_analyze_with_a_wrong_password_says_the_login_was_refused(secured_broker, tmp_path):
    config = client_properties(tmp_path, "PLAIN", "not-" + PASSWORD)
    result, _ = kafka_meta("analyze", "--format", "kafka", "--bootstrap-server", secured_broker.sasl_bootstrap,
                           "--command-config", str(config), "--output", str(tmp_path / "out"), timeout=300)
    assert result.returncode == 1, result.stderr[-3000:]
    said = result.stderr.strip().splitlines()[-1]
    assert said.startswith("kafka-meta analyze: ") and "refused the login" in said, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
