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


def test_a_refused_login_kafka_python_only_logs_is_said_as_such():
    """kafka-python's bootstrap retries a refused login until its timeout and then says only that it could not
    bootstrap; the refusal it logged on the way is what the watch reports, as a login refused (no retrying)."""
    import logging

    import kafka.errors

    from kafka_meta.live.client import Refused, _problem, refused_logins

    refusal = kafka.errors.SaslAuthenticationFailedError("Authentication failed: Invalid username or password")
    with refused_logins() as refusals:
        logging.getLogger("kafka.net.manager").warning("Bootstrap connection to %s failed: %s (backoff %.2f secs)",
                                                       "bootstrap-0", refusal, 0.05)
    assert refusals.first is refusal
    said = _problem(refusals.first or kafka.errors.KafkaTimeoutError("Unable to bootstrap"), "h:9093")
    assert isinstance(said, Refused)
    assert str(said) == "h:9093 refused the login (SASL authentication failed): Authentication failed: Invalid " \
                        "username or password"


def test_an_untrusted_certificate_kafka_python_only_logs_is_said_as_such(tmp_path):
    """A broker certificate the truststore does not vouch for: kafka-python logs the handshake's failure wrapped
    in a connection error and retries; the watch finds the verification error under it and says it once. The
    error is a real one: a TLS handshake over a socket pair, the client trusting another authority."""
    import logging
    import socket
    import ssl
    import threading

    import kafka.errors
    import pytest

    pytest.importorskip("cryptography")
    from tls_support import make_tls_files

    from kafka_meta.live.client import Refused, _problem, refused_logins

    files = make_tls_files(tmp_path)
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(files.keystore)
    client_side = ssl.create_default_context(cafile=str(files.other_ca))
    ours, theirs = socket.socketpair()
    broker = threading.Thread(target=lambda: _refuse_quietly(server_side, theirs), daemon=True)
    broker.start()
    try:
        with pytest.raises(ssl.SSLCertVerificationError) as verdict:
            client_side.wrap_socket(ours, server_hostname="127.0.0.1")
    finally:
        ours.close()
        broker.join(10)
    try:
        raise kafka.errors.KafkaConnectionError(f"Handshake failed: {verdict.value}") from verdict.value
    except kafka.errors.KafkaConnectionError as wrapped:
        with refused_logins() as refusals:
            logging.getLogger("kafka.net.manager").warning("Bootstrap connection to %s failed: %s", "bootstrap-0",
                                                           wrapped)
    assert refusals.first is verdict.value
    said = _problem(refusals.first, "h:9093")
    assert isinstance(said, Refused)
    assert str(said).startswith("the TLS certificate of h:9093 was not accepted: certificate verify failed: ")


def _refuse_quietly(context, sock) -> None:
    import ssl

    try:
        context.wrap_socket(sock, server_side=True).close()
    except (ssl.SSLError, OSError):
        pass  # the client hung up on the certificate: what the test wants
    finally:
        sock.close()
