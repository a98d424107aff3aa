"""Log in once, over one plain socket, to learn whether a secured cluster lets the watch in and, if not, why.

kafka-python's bootstrap takes a refused SASL login, or a broker certificate it does not trust, for a
connection that failed: it retries until its timeout and then says only that it could not bootstrap, and
whether the broker's refusal reaches it at all depends on whether the answer or the closed connection is read
first. A watch must tell a wrong password or truststore (stop: retrying cannot help) from a cluster that does
not answer (keep trying), so before kafka-python connects it does what a Java client does first on a secured
listener, itself: the TLS handshake, then SaslHandshake and the mechanism's SaslAuthenticate exchange, each
answer read whole before the broker closes. The mechanisms' tokens are kafka-python's (the same ones its own
connections send); the requests and answers are the project's specs.

:class:`Login` is the exchange without IO (answers in, the next request out); :func:`refusal` is its socket.
"""

from __future__ import annotations

import socket
import ssl
import struct
from typing import Any

import kafka_meta as km
from kafka_meta.analysis import codes
from kafka_meta.errors import DecodeError, KafkaMetaError
from kafka_meta.live.wire_request import CodecRequest
from kafka_meta.protocol.apis import api_name, response_header_version
from kafka_meta.protocol.bodies import BODIES
from kafka_meta.protocol.headers import read_response_header
from kafka_meta.protocol.servers import bootstrap_servers

SASL_HANDSHAKE, SASL_AUTHENTICATE = 17, 36
HANDSHAKE_VERSION, AUTHENTICATE_VERSION = 1, 1  # v1: tokens in SaslAuthenticate; its v1 answers are not flexible
LARGEST_ANSWER = 1 << 20  # a login's answers are small; a bigger length means the peer is not a Kafka broker


class LoginRefused(KafkaMetaError):
    """The broker answered the login with no: the message says why, in the broker's words where it gave some."""


class NotKafka(KafkaMetaError):
    """The answer was not a Kafka answer to the request sent (another service on the port, or a cut frame)."""


class Login:
    """One SASL login as requests to send and answers to read; the mechanism is kafka-python's (tokens only)."""

    def __init__(self, bootstrap: str, mechanism_name: str, mechanism: Any, client_id: str = "kafka-meta") -> None:
        self.bootstrap, self.mechanism_name, self.mechanism = bootstrap, mechanism_name, mechanism
        self.client_id = client_id
        self.sent: tuple[int, int, int] | None = None  # api key, version, correlation id of the one in flight
        self.done = False

    def first(self) -> bytes:
        """The SaslHandshake naming the mechanism."""
        return self._request(SASL_HANDSHAKE, HANDSHAKE_VERSION, {"mechanism": self.mechanism_name})

    def answer(self, frame: bytes) -> bytes | None:
        """Read the answer to the request in flight: the next request's frame, or None once logged in; raises
        :class:`LoginRefused` when the broker says no, :class:`NotKafka` for an answer that is not one."""
        assert self.sent is not None, "answer() before first()"
        key, version, correlation = self.sent
        body = answer_body(frame, key, version, correlation)
        if key == SASL_HANDSHAKE:
            if body["errorCode"] == codes.UNSUPPORTED_SASL_MECHANISM:
                raise LoginRefused(f"{self.bootstrap} refused the login: its listener does not enable SASL mechanism "
                                   f"{self.mechanism_name} (it enables {', '.join(body['mechanisms']) or 'none'})")
            if body["errorCode"]:
                raise LoginRefused(f"{self.bootstrap} refused the login: SaslHandshake answered "
                                   f"{codes.NAMES.get(body['errorCode'], body['errorCode'])} (is it a SASL listener?)")
        else:
            if body["errorCode"]:
                why = body["errorMessage"] or codes.error_name(body["errorCode"])
                raise LoginRefused(f"{self.bootstrap} refused the login (SASL authentication failed): {why}")
            self.mechanism.receive(body["authBytes"])
        if self.mechanism.is_done():
            if not self.mechanism.is_authenticated():  # the broker's last token did not prove it knows the secret
                raise LoginRefused(f"{self.bootstrap} refused the login (SASL authentication failed): the broker's "
                                   f"final {self.mechanism_name} message did not verify")
            self.done = True
            return None
        return self._request(SASL_AUTHENTICATE, AUTHENTICATE_VERSION, {"auth_bytes": self.mechanism.auth_bytes()})

    def _request(self, key: int, version: int, body: dict[str, Any]) -> bytes:
        correlation = 0 if self.sent is None else self.sent[2] + 1
        self.sent = (key, version, correlation)
        return request_frame(key, version, body, correlation, self.client_id)


def request_frame(key: int, version: int, body: dict[str, Any], correlation: int, client_id: str) -> bytes:
    """One request as it goes on the wire: its size, its header and ``body`` encoded at ``version``."""
    request = CodecRequest(key, version, km.encode(body, version, type_name=_type(key, "Request")))
    request.with_header(correlation, client_id)
    return request.encode(header=True, framed=True)


def answer_body(frame: bytes, key: int, version: int, correlation: int) -> dict[str, Any]:
    """The body of the answer to the request ``(key, version, correlation)``; :class:`NotKafka` for a frame that
    is not that answer (another service on the port, another request's answer, bytes that do not read)."""
    try:
        header = read_response_header(frame, response_header_version(key, version))
        if header.correlation_id != correlation:
            raise NotKafka(f"the answer's correlation id {header.correlation_id} is not the request's {correlation}")
        return BODIES.decode(_type(key, "Response"), frame[header.body_offset:], version)
    except DecodeError as e:
        raise NotKafka(f"the answer to {_type(key, 'Request')} v{version} does not read: {e}") from None


def _type(key: int, kind: str) -> str:
    return api_name(key) + kind  # the message's type name: SaslHandshakeRequest, ApiVersionsResponse, ...


def tls_context(settings: dict[str, Any]) -> ssl.SSLContext:
    """The TLS settings of a watch (kafka-python's names, as :mod:`kafka_meta.live.properties` makes them) as
    kafka-python applies them: TLS 1.2 or newer, the truststore's authorities (else the system's), host names
    checked unless turned off, the client's own key when given."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.check_hostname = settings.get("ssl_check_hostname", True)
    if settings.get("ssl_cafile"):
        context.load_verify_locations(settings["ssl_cafile"])
    else:
        context.load_default_certs()
    if settings.get("ssl_certfile"):
        context.load_cert_chain(settings["ssl_certfile"], settings.get("ssl_keyfile"), settings.get("ssl_password"))
    return context


def refusal(bootstrap: str, settings: dict[str, Any], timeout_s: float) -> LoginRefused | ssl.SSLError | None:
    """Why the first of ``bootstrap``'s brokers refuses the watch's TLS handshake or SASL login; None when it
    lets it in, or when it cannot be told (no answer, a cut connection: the caller's retrying decides)."""
    protocol = settings.get("security_protocol", "PLAINTEXT")
    if protocol == "PLAINTEXT":
        return None
    try:
        host, port = bootstrap_servers(bootstrap)[0]
        with socket.create_connection((host, port), timeout=timeout_s) as raw:
            if protocol in ("SSL", "SASL_SSL"):
                with tls_context(settings).wrap_socket(raw, server_hostname=host) as wrapped:
                    if protocol == "SASL_SSL":
                        _log_in(wrapped, bootstrap, host, settings)
            else:
                _log_in(raw, bootstrap, host, settings)
            return None
    except LoginRefused as e:
        return e
    except ssl.SSLCertVerificationError as e:
        return e
    except ssl.SSLError as e:  # a handshake the broker cut short is not a verdict on the settings
        transient = (ssl.SSLEOFError, ssl.SSLZeroReturnError, ssl.SSLSyscallError)
        return None if isinstance(e, transient) else e
    except (OSError, NotKafka, ValueError):  # ValueError: InputError, a bootstrap that is no HOST:PORT too
        return None


def _log_in(sock: socket.socket, bootstrap: str, host: str, settings: dict[str, Any]) -> None:
    from kafka.net.sasl import get_sasl_mechanism  # the watch's own client: the tokens it would send

    name = settings.get("sasl_mechanism", "PLAIN")
    login = Login(bootstrap, name, get_sasl_mechanism(name)(host=host, **settings))
    request: bytes | None = login.first()
    while request is not None:
        sock.sendall(request)
        request = login.answer(read_frame(sock))


def read_frame(sock: socket.socket) -> bytes:
    """One whole answer off the socket, its size checked against the largest a broker sends."""
    (size,) = struct.unpack(">i", _exactly(sock, 4))
    if not 0 <= size <= LARGEST_ANSWER:
        raise NotKafka(f"an answer of {size} bytes")
    return _exactly(sock, size)


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 65536))
        if not chunk:
            raise NotKafka(f"the connection closed {left} bytes before the answer's end")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
