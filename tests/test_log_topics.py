"""The broker's topic table (kafka_meta.log.topics) is the one naming of Kafka's internal topics: the layers that
may import it take their names from it, and the readers below it that may not (the metadata log's, the other
internal topics', the offsets catalogue's) name each topic as it does."""

from __future__ import annotations

from kafka_meta.formats.offsets import LOG as OFFSETS_LOG
from kafka_meta.internal_topics import DECODERS
from kafka_meta.log import topics
from kafka_meta.metadata_log import reader
from kafka_meta.spark import job, kafka_source, stream


def test_each_reader_below_the_table_names_its_topic_as_the_table_does():
    assert reader.METADATA_TOPIC == topics.METADATA_TOPIC
    assert OFFSETS_LOG.topic == topics.OFFSETS_TOPIC
    roles = {topic: topics.role_of(topic) for topic in DECODERS}
    assert roles == {topics.TRANSACTION_TOPIC: "transactions", topics.SHARE_STATE_TOPIC: "share-state",
                     topics.REMOTE_LOG_METADATA_TOPIC: "remote-log-metadata"}


def test_the_spark_jobs_take_the_offsets_topic_from_the_table():
    assert job.OFFSETS_TOPIC is kafka_source.OFFSETS_TOPIC is topics.OFFSETS_TOPIC
    assert stream.StreamSettings.__dataclass_fields__["topic"].default is topics.OFFSETS_TOPIC
