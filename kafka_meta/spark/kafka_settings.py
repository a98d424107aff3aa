"""``--command-config`` for the Spark jobs: a Java client properties file as settings of Spark's Kafka source.

Spark's Kafka source hands every option ``kafka.<property>`` to Kafka's own Java consumer unchanged, so the
file's settings go over as they are: ``sasl.jaas.config`` as written, every SASL mechanism and store type
Kafka's client knows (nothing is mapped onto another client, as watch's kafka-python needs). Refused before
Spark starts, by file and line, are the settings the jobs decide themselves (where to connect, committed
records only, from the earliest offset, keys and values as bytes) and those of a consumer group, which a job
never joins: it reads the topic by assignment and commits nothing.

The settings travel with the Spark session: :func:`use_client_properties` puts them in its runtime
configuration under :data:`CONF_PREFIX` and :func:`client_properties` reads them back, so every reader of a
topic in that session takes them (the batch job's, the stream's, and the Admin client that asks the cluster
for the topic's partitions), however the job was started: ``spark-submit --conf
spark.kafka_meta.kafka.security.protocol=SASL_SSL ...`` sets one the same way.

So does how long the jobs' Kafka clients wait to reach the cluster (``--connect-timeout``, as ``watch``'s:
:data:`CONNECT_TIMEOUT_CONF`, default 30 s): it bounds the connection set-up of every client and the blocking
calls of the source's consumers (finding the offsets) and of the Admin client, whose one request (the topic's
partitions) is the first the cluster is asked. Without it, an address where no broker answers is retried for
over a minute and ends in a timeout named after the Admin client's internals. A setting the properties file
gives itself wins: it is the more particular of the two.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafka_meta.errors import InputError
from kafka_meta.java_properties import read_properties_file

CONF_PREFIX = "spark.kafka_meta.kafka."
SOURCE_OPTION_PREFIX = "kafka."  # how Spark's Kafka source takes a consumer setting
CONNECT_TIMEOUT_CONF = "spark.kafka_meta.connectTimeoutMs"
DEFAULT_CONNECT_TIMEOUT_S = 30.0  # as watch's
SETUP_TIMEOUT_MS = 10_000  # Kafka's default first wait for a TCP connection (later ones back off up to the max)

_NO_GROUP = "the topic is read by assignment, in no consumer group"
_NO_COMMITS = "reading commits nothing (no group, no offsets written)"
# settings a read-only reader of a topic cannot take, and why
REFUSED = {
    "bootstrap.servers": "the cluster is the one --bootstrap-server names",
    "group.id": _NO_GROUP,
    "group.instance.id": _NO_GROUP,
    "group.protocol": _NO_GROUP,
    "group.remote.assignor": _NO_GROUP,
    "partition.assignment.strategy": _NO_GROUP,
    "enable.auto.commit": _NO_COMMITS,
    "auto.commit.interval.ms": _NO_COMMITS,
    "auto.offset.reset": "the jobs read from the earliest offset (a restarted stream from its checkpoint)",
    "isolation.level": "the jobs read committed records only (read_committed)",
    "key.deserializer": "Spark's Kafka source reads keys and values as bytes",
    "value.deserializer": "Spark's Kafka source reads keys and values as bytes",
    "interceptor.classes": "Spark's Kafka source takes no consumer interceptors",
}


def read_client_properties(path: str | Path) -> dict[str, str]:
    """The Kafka client settings of a properties file (property -> value; of one given twice, the last, as
    Java's reader does); InputError naming the file and line of a setting a read-only reader cannot take."""
    settings: dict[str, str] = {}
    for entry in read_properties_file(path):
        if entry.key in REFUSED:
            raise InputError(f"{path} line {entry.line}: {entry.key}: not taken by the Spark jobs: "
                             f"{REFUSED[entry.key]}")
        settings[entry.key] = entry.value
    return settings


def use_client_properties(spark: Any, settings: dict[str, str]) -> None:
    """Make ``settings`` the Kafka client settings of every topic read in this session."""
    for key, value in settings.items():
        spark.conf.set(CONF_PREFIX + key, value)


def client_properties(spark: Any) -> dict[str, str]:
    """The Kafka client settings of this session (property -> value), as :func:`use_client_properties` or
    ``--conf`` set them."""
    return {key[len(CONF_PREFIX):]: value for key, value in spark.conf.getAll.items()
            if key.startswith(CONF_PREFIX)}


def source_options(settings: dict[str, str]) -> dict[str, str]:
    """The settings as options of Spark's Kafka source."""
    return {SOURCE_OPTION_PREFIX + key: value for key, value in settings.items()}


def use_connect_timeout(spark: Any, seconds: float) -> None:
    """Make ``seconds`` how long every Kafka client of this session waits to reach the cluster."""
    spark.conf.set(CONNECT_TIMEOUT_CONF, str(max(1, round(seconds * 1000))))


def connect_timeout_ms(spark: Any) -> int:
    """How long this session's Kafka clients wait to reach the cluster, in milliseconds."""
    return int(spark.conf.get(CONNECT_TIMEOUT_CONF, str(round(DEFAULT_CONNECT_TIMEOUT_S * 1000))))


def timeout_settings(timeout_ms: int, admin: bool = False) -> dict[str, str]:
    """The Kafka client settings that bound a wait for the cluster to ``timeout_ms``: the TCP connection's set-up
    and the blocking calls; for the Admin client (``admin``) its requests too, its one request being the first
    answer awaited (a consumer's fetches keep Kafka's own request timeout, which a long read needs)."""
    settings = {"socket.connection.setup.timeout.ms": str(min(timeout_ms, SETUP_TIMEOUT_MS)),
                "socket.connection.setup.timeout.max.ms": str(timeout_ms),
                "default.api.timeout.ms": str(timeout_ms)}
    if admin:
        settings["request.timeout.ms"] = str(timeout_ms)
    return settings
