"""One naming of Kafka's internal topics, the broker's topic table (kafka_meta.log.topics), and one of its
transaction markers, the control types' table (kafka_meta.kraft.control): the layers that may import a table take
their names from it, and the readers standing below it, which may not (the metadata log's, the other internal
topics', the offsets catalogue's, the log readers' markers), name each thing as it does."""

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


def test_the_log_readers_marker_numbers_are_the_control_types_table():
    from kafka_meta.kraft import control
    from kafka_meta.log import summary, transactions

    assert {transactions.ABORT_MARKER: "ABORT", transactions.COMMIT_MARKER: "COMMIT"} == control.MARKERS
    assert {n: name.upper() for n, name in summary.MARKERS.items()} == control.MARKERS
    assert [control.marker_name(n) for n in (0, 1, 2, 7, -1)] == ["ABORT", "COMMIT", "type 2", "type 7", "type -1"]
