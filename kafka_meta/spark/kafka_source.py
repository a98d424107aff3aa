"""A cluster's ``__consumer_offsets`` through Spark's own Kafka source, as the rows every offsets reader gives.

One place says how the topic is read, for the batch job (``kafka-meta analyze --format kafka``) and the
streaming one (``kafka-meta stream``) alike:

* ``kafka.isolation.level`` is ``read_committed``: what an aborted transaction wrote and the transaction
  markers never come through, so every row is a committed record and none is a control record (the rows say
  ``control`` false, and carry no ``producerId``: nothing is left waiting for a marker);
* ``__consumer_offsets`` is an internal topic, and Spark's default way of reading a topic's offsets (through
  Kafka's Admin client) leaves internal topics out, so a subscription to it, or an assignment of its
  partitions, reads nothing at all. The consumer-based way (:data:`OFFSET_FETCHING`) sees them; it is set
  on the session before the topic is read (:func:`allow_internal_topics`);
* the partitions are *assigned*, not subscribed to: a subscribing consumer joins a consumer group of its own,
  whose GroupMetadata records would land in the very topic being read (and in the report, as a group of the
  cluster's). The partitions are asked of the cluster first (:func:`topic_partitions`), with the Admin
  client of the connector's own Kafka library in Spark's driver;
* the session's Kafka client settings (``--command-config``: :mod:`kafka_meta.spark.kafka_settings`) go to
  that Admin client and to the source alike, under the source's own options: what the file says about
  security applies, what it might say about how the topic is read does not. A cluster that refuses the login
  or does not answer is said in one line (:class:`KafkaUnavailable`) before any Spark job is started;
* how long the clients wait for the cluster is the session's connect timeout
  (:func:`kafka_meta.spark.kafka_settings.use_connect_timeout`, ``--connect-timeout``): the Admin client's
  request is the first the cluster is asked, and a cluster that has not answered it by then is said to be
  unreachable, naming the address and the timeout.

The Kafka source's columns (key, value, topic, partition, offset, timestamp, timestampType) are mapped onto
the log reader's (``kafka_meta.log.rows``): ``_file`` names the topic-partition, as the ``kafka-meta-log``
source's rows do, so a finding's evidence reads the same whether the records came from the cluster or from
its log directories.
"""

from __future__ import annotations

import json
from typing import Any

from kafka_meta.errors import KafkaMetaError
from kafka_meta.log.topics import OFFSETS_TOPIC
from kafka_meta.spark import kafka_settings

KAFKA_COLUMNS = ("topic", "partition", "offset", "timestamp", "timestampType")
OFFSET_FETCHING = "spark.sql.streaming.kafka.useDeprecatedOffsetFetching"
ANSWER_MARGIN_MS = 5_000  # waited for the Admin client's own timeout to end its call, beyond that timeout


class KafkaUnavailable(KafkaMetaError):
    """The cluster refused the login, or did not say what the topic's partitions are."""


def topic_partitions(spark: Any, bootstrap_servers: str, topic: str = OFFSETS_TOPIC) -> list[int]:
    """The partitions of ``topic``, as the cluster describes them (a topic it does not have is an error)."""
    from py4j.protocol import Py4JJavaError

    jvm = spark._jvm
    timeout_ms = kafka_settings.connect_timeout_ms(spark)
    properties = jvm.java.util.Properties()
    settings = {**kafka_settings.timeout_settings(timeout_ms, admin=True), **kafka_settings.client_properties(spark)}
    for key, value in settings.items():
        properties.put(key, value)
    properties.put("bootstrap.servers", bootstrap_servers)
    admin = jvm.org.apache.kafka.clients.admin.AdminClient.create(properties)
    try:
        described = admin.describeTopics(jvm.java.util.Collections.singletonList(topic)).allTopicNames().get(
            int(settings["default.api.timeout.ms"]) + ANSWER_MARGIN_MS, jvm.java.util.concurrent.TimeUnit.MILLISECONDS)
        return sorted(partition.partition() for partition in described.get(topic).partitions())
    except Py4JJavaError as error:
        raise _unavailable(error, bootstrap_servers, topic, timeout_ms) from None
    finally:
        admin.close(jvm.java.time.Duration.ofMillis(ANSWER_MARGIN_MS))


def _unavailable(error: Any, bootstrap_servers: str, topic: str, timeout_ms: int) -> KafkaUnavailable:
    """Kafka's exception in one line, named by its innermost cause (an ExecutionException wraps the Admin
    client's own); a timeout in the form every verb that connects says it (the address, how long)."""
    cause = error.java_exception
    while cause.getCause() is not None:
        cause = cause.getCause()
    name, message = cause.getClass().getSimpleName(), cause.getMessage() or ""
    if "Authentication" in name:
        return KafkaUnavailable(f"{bootstrap_servers} refused the login ({name}): {message}")
    if name == "TimeoutException":
        return KafkaUnavailable(f"cannot reach the Kafka cluster at {bootstrap_servers} within {timeout_ms / 1000:g} s "
                                f"(no answer to the request for the partitions of {topic}: {message})")
    return KafkaUnavailable(f"could not ask {bootstrap_servers} for the partitions of {topic}: {name}: {message}")


def source_options(bootstrap_servers: str, topic: str, partitions: list[int],
                   client: dict[str, str] | None = None, timeout_ms: int | None = None) -> dict[str, str]:
    """The options of Spark's Kafka source for reading ``topic``'s partitions whole and committed, batch or
    streaming (a stream restarted from its checkpoint goes on from there), over the ``client`` settings, which
    are over the waits ``timeout_ms`` bounds (when given)."""
    waits = kafka_settings.timeout_settings(timeout_ms) if timeout_ms is not None else {}
    return {**kafka_settings.source_options({**waits, **(client or {})}),
            "kafka.bootstrap.servers": bootstrap_servers, "assign": json.dumps({topic: partitions}),
            "startingOffsets": "earliest", "kafka.isolation.level": "read_committed"}


def allow_internal_topics(spark: Any) -> None:
    """Let the Kafka source see the partitions of internal topics (see the module's docstring)."""
    spark.conf.set(OFFSET_FETCHING, "true")


def read_topic(spark: Any, bootstrap_servers: str, topic: str = OFFSETS_TOPIC) -> Any:
    """The topic from its earliest to its latest offset now, as offsets rows (:func:`offsets_rows`)."""
    allow_internal_topics(spark)
    options = source_options(bootstrap_servers, topic, topic_partitions(spark, bootstrap_servers, topic),
                             kafka_settings.client_properties(spark), kafka_settings.connect_timeout_ms(spark))
    df = (spark.read.format("kafka").options(**options)
          .option("endingOffsets", "latest").load())
    return offsets_rows(df)


def stream_topic(spark: Any, bootstrap_servers: str, topic: str = OFFSETS_TOPIC,
                 max_offsets_per_trigger: int | None = None) -> Any:
    """The topic as a stream of offsets rows, from its earliest offset on a first start (a restart goes on from
    its checkpoint). Records the cluster has already deleted (retention, compaction) are skipped, not a
    failure: ``__consumer_offsets`` is compacted, so a record may go before it is read."""
    allow_internal_topics(spark)
    options = source_options(bootstrap_servers, topic, topic_partitions(spark, bootstrap_servers, topic),
                             kafka_settings.client_properties(spark), kafka_settings.connect_timeout_ms(spark))
    reader = (spark.readStream.format("kafka").options(**options)
              .option("failOnDataLoss", "false"))
    if max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", str(max_offsets_per_trigger))
    return offsets_rows(reader.load())


def offsets_rows(df: Any) -> Any:
    """The Kafka source's rows as offsets rows: key, value, the record's place and time, ``control`` false (a
    read_committed reader never sees a marker) and ``_file``, the topic-partition."""
    from pyspark.sql import functions as F

    place = F.concat_ws("-", "topic", F.col("partition").cast("string"))
    return df.select("key", "value", *KAFKA_COLUMNS, F.lit(False).alias("control"), place.alias("_file"))
