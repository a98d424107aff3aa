"""Whether a Kafka cluster answers at an address, asked the way every Kafka client first asks a broker: an
ApiVersions request, and an answer that reads as ApiVersions' answer, within a deadline.

The verbs that hand a cluster to another client (``analyze`` and ``stream`` give it to Spark's Kafka source)
ask this first, before a JVM starts: a Java client given an address where nothing listens, or where something
other than Kafka does, retries until its own timeouts run out (over a minute) and then names a timeout deep
in the Admin client. Asked here, an address that does not answer ends the verb in one line naming the address
and how long it was tried, as ``watch`` does (:mod:`kafka_meta.live.session`).

Like ``watch``'s first connection, the question is asked again until the deadline passes (a broker still
starting refuses connections for a while). On a TLS listener (``security.protocol`` SSL or SASL_SSL) only the
connection is tried: the handshake needs the client's own stores (Java keystores, which only the Java client
reads), and ApiVersions would travel inside it. On a plain listener ApiVersions goes before any SASL login, as
Kafka's clients send it, so no secret is needed to ask.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from kafka_meta.errors import KafkaMetaError
from kafka_meta.live.login_probe import NotKafka, answer_body, read_frame, request_frame
from kafka_meta.protocol.apis import API_VERSIONS
from kafka_meta.protocol.servers import bootstrap_servers

PROBE_VERSION = 0  # every broker answers v0 (a newer client's first request falls back to it)
RETRY_S = 1.0  # between attempts, while the deadline allows
TLS_PROTOCOLS = ("SSL", "SASL_SSL")


class UnreachableAtStart(KafkaMetaError):
    """The cluster never answered within the first connection's deadline."""


def unreachable(bootstrap: str, timeout_s: float, why: str) -> UnreachableAtStart:
    """The one line every verb that connects ends with when the cluster did not answer in time."""
    return UnreachableAtStart(f"cannot reach the Kafka cluster at {bootstrap} within {timeout_s:g} s ({why})")


def check_reachable(bootstrap: str, timeout_s: float, security_protocol: str = "PLAINTEXT",
                    ask: Callable[[str, int, float, bool], None] | None = None) -> None:
    """Return once one of ``bootstrap``'s servers answers as a Kafka broker; raise :class:`UnreachableAtStart`
    when none has by ``timeout_s`` (each attempt's wait is what is left of it)."""
    ask = ask or ask_api_versions
    addresses = bootstrap_servers(bootstrap)
    plain = security_protocol.upper() not in TLS_PROTOCOLS
    deadline = time.monotonic() + timeout_s
    why = "no attempt finished"
    while True:
        for host, port in addresses:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                ask(host, port, left, plain)
                return
            except (OSError, NotKafka) as e:
                why = f"{_address(host, port)}: {_reason(e)}"
        left = deadline - time.monotonic()
        if left <= 0:
            raise unreachable(bootstrap, timeout_s, why)
        time.sleep(min(RETRY_S, left))


def ask_api_versions(host: str, port: int, timeout_s: float, plain: bool = True) -> None:
    """One attempt: connect, and on a plain listener send ApiVersions and read its answer; raises OSError
    (no connection, no answer in time) or NotKafka (an answer, but not Kafka's)."""
    with socket.create_connection((host, port), timeout=timeout_s) as sock:
        if not plain:
            return
        sock.sendall(request_frame(API_VERSIONS, PROBE_VERSION, {}, 0, "kafka-meta"))
        answer_body(read_frame(sock), API_VERSIONS, PROBE_VERSION, 0)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _reason(error: BaseException) -> str:
    if isinstance(error, NotKafka):
        return f"it answered, but not as a Kafka broker: {error}"
    if isinstance(error, TimeoutError):
        return "no answer in time"
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)
