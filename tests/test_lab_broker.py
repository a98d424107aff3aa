"""The lab's broker: started from the project's own files, answering on loopback, never left running."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.conftest import LAB

pytestmark = pytest.mark.kafka


def test_the_session_broker_answers_and_keeps_its_metadata_log(lab, kafka_broker):
    assert lab.broker.api_versions_answered(kafka_broker.port)
    assert kafka_broker.bootstrap == f"127.0.0.1:{kafka_broker.port}"
    assert (kafka_broker.log_dir / "__cluster_metadata-0").is_dir()
    assert "Kafka Server started" in kafka_broker.log_file.read_text()


def test_lab_broker_start_prints_the_bootstrap_address_and_stop_ends_the_jvm(lab, tmp_path):
    port = lab.broker.free_port()
    started = subprocess.run([sys.executable, str(LAB / "broker"), "start", str(tmp_path), "--port", str(port)],
                             capture_output=True, text=True, timeout=180)
    state = lab.broker.read_state(tmp_path)
    try:
        assert started.returncode == 0, started.stderr
        assert started.stdout.strip() == f"127.0.0.1:{port}"
        assert lab.broker.alive(state.pid)
        assert lab.broker.api_versions_answered(port)
        again = subprocess.run([sys.executable, str(LAB / "broker"), "start", str(tmp_path)],
                               capture_output=True, text=True, timeout=60)
        assert again.returncode == 1 and "already running" in again.stderr
    finally:
        stopped = subprocess.run([sys.executable, str(LAB / "broker"), "stop", str(tmp_path)],
                                 capture_output=True, text=True, timeout=120)
    assert stopped.returncode == 0, stopped.stderr
    assert not lab.broker.alive(state.pid)
    assert "shut down completed" in (tmp_path / "broker.log").read_text()


def test_a_broker_whose_owner_dies_is_stopped_by_its_watchdog(lab, tmp_path):
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    broker = lab.broker.start(tmp_path, owner_pid=owner.pid)
    try:
        assert lab.broker.alive(broker.pid)
        owner.kill()
        owner.wait()
        deadline = time.monotonic() + 60
        while lab.broker.alive(broker.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not lab.broker.alive(broker.pid), "the watchdog left the broker running"
    finally:
        lab.broker.stop(tmp_path)
