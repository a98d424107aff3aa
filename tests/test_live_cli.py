"""``kafka-meta watch`` on bad input: one line naming what is wrong and where, never a traceback."""

from __future__ import annotations

import socket
import time

import pytest

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


def _answer(correlation: int, type_name: str, body: dict, version: int = 1) -> bytes:
    """A broker's answer frame (without its length) to a non-flexible request: correlation id, then the body."""
    import struct

    import kafka_meta as km

    return struct.pack(">i", correlation) + km.encode(body, version, type_name=type_name)


def _plain_login():
    from kafka.net.sasl import get_sasl_mechanism

    from kafka_meta.live.login_probe import Login

    mechanism = get_sasl_mechanism("PLAIN")(host="h", sasl_mechanism="PLAIN", sasl_plain_username="alice",
                                            sasl_plain_password="wrong")
    return Login("h:9093", "PLAIN", mechanism)


def test_a_refused_login_is_said_in_the_brokers_words():
    """The login exchange without a socket: SaslHandshake, then PLAIN's one token, which the broker refuses."""
    import kafka_meta as km
    from kafka_meta.live.client import Refused, _problem
    from kafka_meta.live.login_probe import LoginRefused
    from kafka_meta.protocol.bodies import BODIES

    login = _plain_login()
    handshake = login.first()
    assert handshake[4:8] == b"\x00\x11\x00\x01"  # SaslHandshake v1
    assert handshake.endswith(km.encode({"mechanism": "PLAIN"}, 1, type_name="SaslHandshakeRequest"))
    token = login.answer(_answer(0, "SaslHandshakeResponse", {"error_code": 0, "mechanisms": ["PLAIN"]}))
    assert token is not None and token[4:8] == b"\x00\x24\x00\x01"  # SaslAuthenticate v1
    body = token[4 + 8 + 2 + len("kafka-meta"):]
    token_sent = BODIES.decode("SaslAuthenticateRequest", body, 1)["authBytes"]
    assert token_sent == b"alice\x00alice\x00wrong"  # kafka-python names the user as the authzid too
    with pytest.raises(LoginRefused) as refused:
        login.answer(_answer(1, "SaslAuthenticateResponse", {
            "error_code": 58, "error_message": "Authentication failed: Invalid username or password",
            "auth_bytes": b"", "session_lifetime_ms": 0}))
    said = _problem(refused.value, "h:9093")
    assert isinstance(said, Refused)
    assert str(said) == "h:9093 refused the login (SASL authentication failed): Authentication failed: Invalid " \
                        "username or password"


def test_a_mechanism_the_listener_does_not_enable_is_named_with_the_ones_it_does():
    from kafka_meta.live.login_probe import LoginRefused

    login = _plain_login()
    login.first()
    with pytest.raises(LoginRefused, match=r"does not enable SASL mechanism PLAIN \(it enables SCRAM-SHA-512\)"):
        login.answer(_answer(0, "SaslHandshakeResponse", {"error_code": 33, "mechanisms": ["SCRAM-SHA-512"]}))


def test_an_answer_that_is_not_kafkas_cannot_tell_a_refusal():
    from kafka_meta.live.login_probe import NotKafka

    login = _plain_login()
    login.first()
    with pytest.raises(NotKafka, match="correlation id 7"):
        login.answer(_answer(7, "SaslHandshakeResponse", {"error_code": 0, "mechanisms": ["PLAIN"]}))
    login = _plain_login()
    login.first()
    with pytest.raises(NotKafka, match="does not read"):
        login.answer(b"\x00\x00\x00\x00\x00")


def test_an_untrusted_certificate_is_said_as_such(tmp_path):
    """A broker certificate the truststore does not vouch for, found by the probe's own TLS handshake with a
    real TLS server (its certificate from one throwaway authority, the client trusting another)."""
    import socket
    import ssl
    import threading

    pytest.importorskip("cryptography")
    from tls_support import make_tls_files

    from kafka_meta.live.client import Refused, _problem
    from kafka_meta.live.login_probe import refusal

    files = make_tls_files(tmp_path)
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(files.keystore)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def broker() -> None:
        sock, _ = listener.accept()
        _refuse_quietly(server_side, sock)

    thread = threading.Thread(target=broker, daemon=True)
    thread.start()
    try:
        verdict = refusal(f"127.0.0.1:{port}", {"security_protocol": "SSL", "ssl_cafile": str(files.other_ca)}, 10)
    finally:
        thread.join(10)
        listener.close()
    assert isinstance(verdict, ssl.SSLCertVerificationError)
    said = _problem(verdict, "h:9093")
    assert isinstance(said, Refused)
    assert str(said).startswith("the TLS certificate of h:9093 was not accepted: certificate verify failed: ")


def test_what_stops_the_watch_and_what_it_waits_out():
    """Refusals (a login, a certificate, a TLS handshake) stop the watch; kafka-python's other failures are
    waited out, whatever words they use."""
    import ssl

    from kafka.errors import KafkaConnectionError, KafkaTimeoutError, SaslAuthenticationFailedError

    from kafka_meta.live.client import Refused, Unreachable, _problem

    certificate = ssl.SSLCertVerificationError(1, "certificate verify failed")
    certificate.verify_message, certificate.reason = "self-signed certificate in certificate chain", None
    said = {name: _problem(error, "h:9093") for name, error in {
        "login": SaslAuthenticationFailedError("bad password"),  # said "[Error 58] SaslAuth...: bad password"
        "certificate": certificate,
        "handshake": ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number"),
        "no brokers": KafkaTimeoutError("Failed to update metadata after 60.0 secs."),
        "connection": KafkaConnectionError("socket disconnected while reading the certificate"),
    }.items()}
    assert {name: type(verdict) for name, verdict in said.items()} == {
        "login": Refused, "certificate": Refused, "handshake": Refused, "no brokers": Unreachable,
        "connection": Unreachable}
    assert str(said["login"]) == "h:9093 refused the login (SASL authentication failed): bad password"
    assert "self-signed certificate in certificate chain" in str(said["certificate"])
    assert str(said["connection"]) == ("h:9093: the connection to the broker failed: socket disconnected while "
                                       "reading the certificate")


def test_no_answer_is_not_a_refusal():
    """Nothing listening: the probe cannot tell, and leaves the retrying to the watch."""
    import socket

    from kafka_meta.live.login_probe import refusal

    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    settings = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN", "sasl_plain_username": "a",
                "sasl_plain_password": "b"}
    assert refusal(f"127.0.0.1:{port}", settings, 5) is None


def _refuse_quietly(context, sock) -> None:
    import ssl

    try:
        context.wrap_socket(sock, server_side=True).close()
    except (ssl.SSLError, OSError):
        pass  # the client hung up on the certificate: what the test wants
    finally:
        sock.close()
