"""``--command-config`` against brokers that ask for a login or speak TLS: two of the lab's brokers started for
this module on their own, one with a SASL_PLAINTEXT listener (PLAIN and SCRAM-SHA-256, one user), one with SSL
and SASL_SSL listeners, its certificate signed by an authority made for the test run (:mod:`tls_support`).

A group commits offsets over the PLAINTEXT listener (kafka-python, as any client would); then, over the secured
listeners only: ``kafka-meta watch`` logs in with each mechanism, and over SSL and SASL_SSL trusting that
authority through a PEM truststore (``ssl.truststore.type=PEM``), reads the commit from ``__consumer_offsets``
and describes the group; ``kafka-meta analyze --format kafka`` reads the commit through Spark's Kafka source
with the same kind of file over SASL_SSL (one Spark run for the login and TLS both). With a wrong password, or a
truststore of another authority, each ends with one line saying what was refused, soon, not after its
connection timeout and not with a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from console_support import run_console

pytestmark = pytest.mark.kafka

USER, PASSWORD = "alice", "alice-secret"
GROUP, TOPIC = "lab-secured", "lab-secured-orders"
LOGIN_MODULES = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
                 "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule"}
# a watch logs in once itself before kafka-python connects (kafka_meta.live.login_probe), so a refusal is said at
# once, not at the end of kafka-python's retrying (--connect-timeout); the bound leaves room for a loaded machine
CONNECT_TIMEOUT_S = 60
REFUSAL_WITHIN_S = 20


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    """A throwaway authority and the broker's key and certificate it signed, as PEM files of this run only."""
    from tls_support import make_tls_files

    return make_tls_files(tmp_path_factory.mktemp("tls"))


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


@pytest.fixture(scope="module")
def tls_broker(lab, tmp_path_factory, tls_files):
    """A second broker of this module's own, with SSL and SASL_SSL listeners (PEM keystore), and GROUP's
    commit."""
    directory = tmp_path_factory.mktemp("tls-broker")
    broker = lab.broker.start(directory, owner_pid=os.getpid(), sasl_users={USER: PASSWORD},
                              ssl_keystore=tls_files.keystore)
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
    return run_console(*args, timeout=timeout)


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
                              str(config), "--format", "json", "--duration", "30", "--connect-timeout",
                              str(CONNECT_TIMEOUT_S), timeout=90)
    assert_login_refused(result, took, secured_broker.sasl_bootstrap)
    assert "Invalid username or password" in result.stderr and result.stdout == ""


def test_watch_with_a_mechanism_the_listener_does_not_enable_names_the_ones_it_does(secured_broker, tmp_path):
    config = client_properties(tmp_path, "SCRAM-SHA-256", PASSWORD)
    config.write_text(config.read_text().replace("sasl.mechanism=SCRAM-SHA-256", "sasl.mechanism=SCRAM-SHA-512"))
    result, took = kafka_meta("watch", "--bootstrap-server", secured_broker.sasl_bootstrap, "--command-config",
                              str(config), "--format", "json", "--duration", "30", "--connect-timeout",
                              str(CONNECT_TIMEOUT_S), timeout=90)
    assert result.returncode == 1 and result.stdout == "" and "Traceback" not in result.stderr, result.stderr
    said = result.stderr.strip().splitlines()
    assert len(said) == 1 and f"{secured_broker.sasl_bootstrap} refused the login" in said[0], result.stderr
    assert "does not enable SASL mechanism SCRAM-SHA-512 (it enables " in said[0] and "PLAIN" in said[0], said[0]
    assert took < REFUSAL_WITHIN_S, f"the refusal took {took:.0f} s"


def test_analyze_with_a_wrong_password_says_the_login_was_refused(secured_broker, tmp_path):
    config = client_properties(tmp_path, "PLAIN", "not-" + PASSWORD)
    result, _ = kafka_meta("analyze", "--format", "kafka", "--bootstrap-server", secured_broker.sasl_bootstrap,
                           "--command-config", str(config), "--output", str(tmp_path / "out"), timeout=300)
    assert result.returncode == 1, result.stderr[-3000:]
    said = result.stderr.strip().splitlines()[-1]
    assert said.startswith("kafka-meta analyze: ") and "refused the login" in said, result.stderr[-3000:]
    assert "Traceback" not in result.stderr


# --- over TLS ---------------------------------------------------------------------------------------------------

def tls_properties(tmp_path: Path, truststore: Path, sasl: bool = False) -> Path:
    """A client properties file trusting the authority of ``truststore`` (host names checked: Kafka's default)."""
    path = tmp_path / f"client-tls-{truststore.stem}-{'sasl' if sasl else 'ssl'}.properties"
    lines = [f"security.protocol={'SASL_SSL' if sasl else 'SSL'}", "ssl.truststore.type=PEM",
             f"ssl.truststore.location={truststore}"]
    if sasl:
        lines += ["sasl.mechanism=SCRAM-SHA-256",
                  f'sasl.jaas.config={LOGIN_MODULES["SCRAM-SHA-256"]} required username="{USER}" '
                  f'password="{PASSWORD}";']
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("sasl", [False, True], ids=["SSL", "SASL_SSL"])
def test_watch_over_tls_reads_the_commit(tls_broker, tls_files, tmp_path, sasl):
    bootstrap = tls_broker.sasl_ssl_bootstrap if sasl else tls_broker.ssl_bootstrap
    config = tls_properties(tmp_path, tls_files.ca, sasl)
    result, took = kafka_meta("watch", "--bootstrap-server", bootstrap, "--command-config", str(config),
                              "--format", "json", "--from-beginning", "--duration", "4", "--connect-timeout", "30",
                              timeout=90)
    print(f"\nwatch over {'SASL_SSL' if sasl else 'SSL'}: {took:.0f} s", file=sys.stderr)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["event"] == "connected" and events[0]["bootstrap"] == bootstrap
    described = [e for e in events if e["event"] == "state" and e["group"] == GROUP]
    assert described and described[0]["state"] == "Empty"
    last = [e for e in events if e["event"] == "snapshot"][-1]
    assert last["records"] == {"OffsetCommit": 1}
    assert [(g["group"], g["commits"]) for g in last["groups"]] == [(GROUP, 1)]


def test_watch_trusting_another_authority_says_the_certificate_is_not_trusted(tls_broker, tls_files, tmp_path):
    config = tls_properties(tmp_path, tls_files.other_ca)
    result, took = kafka_meta("watch", "--bootstrap-server", tls_broker.ssl_bootstrap, "--command-config",
                              str(config), "--format", "json", "--duration", "30", "--connect-timeout", "60",
                              timeout=90)
    print(f"\nwatch refused over SSL: {took:.0f} s", file=sys.stderr)
    assert result.returncode == 1, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    said = result.stderr.strip().splitlines()
    assert len(said) == 1, result.stderr
    assert tls_broker.ssl_bootstrap in said[0] and "certificate verify failed" in said[0], result.stderr
    assert took < REFUSAL_WITHIN_S, f"the refusal took {took:.0f} s"


def test_analyze_over_sasl_ssl_reads_the_commit_through_sparks_kafka_source(tls_broker, tls_files, tmp_path):
    """One Spark run (each starts a JVM with the connector) for both: SCRAM-SHA-256 over TLS."""
    config = tls_properties(tmp_path, tls_files.ca, sasl=True)
    output = tmp_path / "out"
    result, took = kafka_meta("analyze", "--format", "kafka", "--bootstrap-server", tls_broker.sasl_ssl_bootstrap,
                              "--command-config", str(config), "--output", str(output), timeout=600)
    print(f"\nanalyze --format kafka over SASL_SSL: {took:.0f} s", file=sys.stderr)
    assert result.returncode == 0, result.stderr[-3000:]
    assert GROUP in (output / "report.json").read_text()
    assert "__consumer_offsets records: 1" in result.stdout and "OffsetCommit 1" in result.stdout


def test_stream_over_sasl_ssl_for_a_set_time_writes_the_commit(tls_broker, tls_files, tmp_path):
    """The streaming job with the same properties file (SCRAM-SHA-256 over TLS), stopped by --duration: it reads
    the one commit in its first micro-batch, stops between batches and writes it as a decoded row."""
    import pyarrow.parquet as pq

    config = tls_properties(tmp_path, tls_files.ca, sasl=True)
    output, checkpoint = tmp_path / "stream-out", tmp_path / "checkpoint"
    result, took = kafka_meta("stream", "--bootstrap-server", tls_broker.sasl_ssl_bootstrap, "--command-config",
                              str(config), "--output", str(output), "--checkpoint", str(checkpoint),
                              "--trigger-seconds", "2", "--duration", "30", timeout=600)
    print(f"\nstream --duration 30 over SASL_SSL: {took:.0f} s", file=sys.stderr)
    assert result.returncode == 0, result.stderr[-3000:]
    said = result.stdout.strip().splitlines()[-1]
    assert said.startswith("kafka-meta stream: 1 record(s) read and written in 1 micro-batch(es)"), result.stdout
    written = pq.read_table(str(output), columns=["groupId", "recordName", "_error"]).to_pylist()
    assert written == [{"groupId": GROUP, "recordName": "OffsetCommit", "_error": None}]
