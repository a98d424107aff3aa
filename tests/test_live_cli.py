"""``kafka-meta watch`` on bad input: one line naming what is wrong and where, never a traceback."""

from __future__ import annotations

import socket
import time

from kafka_meta.cli.main import main


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_cluster_is_named_after_a_bounded_wait(capsys):
    address = f"127.0.0.1:{closed_port()}"
    started = time.monotonic()
    code = main(["watch", "--bootstrap-server", address, "--connect-timeout", "3", "--format", "json"])
    waited = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 1 and 2.5 < waited < 30
    assert err.count("\n") == 1 and f"cannot reach the Kafka cluster at {address} within 3 s" in err
    assert "Traceback" not in err


def test_a_bad_properties_file_is_refused_by_line_before_connecting(tmp_path, capsys):
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nssl.truststore.location=/x.jks\n")
    code = main(["watch", "--bootstrap-server", "127.0.0.1:1", "--command-config", str(config)])
    err = capsys.readouterr().err
    assert code == 2 and f"{config} line 2: sasl.mechanism" in err and "sasl.jaas.config" in err


def test_a_bootstrap_server_without_a_port(capsys):
    assert main(["watch", "--bootstrap-server", "localhost"]) == 2
    assert "expected HOST:PORT" in capsys.readouterr().err
