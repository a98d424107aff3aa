"""Spark's Kafka connector and source as kafka_meta sets them up, without a cluster: which connector, where it
comes from and is kept, what a Kafka input names, the rows the source's columns become, and the refusals said
before any JVM starts. (Reading a real cluster: tests/test_lab_spark_stream.py.)"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path

import pytest

from kafka_meta.errors import InputError
from kafka_meta.spark import connector
from kafka_meta.spark.inputs import kafka_address

pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")


@pytest.mark.parametrize(("spark_version", "expected"), [
    ("4.1.1", "4.1.1"), ("4.2.0", "4.2.0"), ("4.2.0.dev0", "4.2.0"), ("4.3.0", connector.NEWEST_PUBLISHED),
    ("5.0.0", connector.NEWEST_PUBLISHED)])
def test_the_connector_is_sparks_own_release_or_the_newest_published(spark_version, expected):
    assert connector.connector_version(spark_version) == expected


def test_the_coordinate_follows_the_installed_spark_unless_named(monkeypatch):
    import pyspark

    monkeypatch.delenv(connector.PACKAGE_VARIABLE, raising=False)
    assert connector.coordinate() == f"{connector.PACKAGE}:{connector.connector_version(pyspark.__version__)}"
    monkeypatch.setenv(connector.PACKAGE_VARIABLE, "org.apache.spark:spark-sql-kafka-0-10_2.13:9.9.9")
    assert connector.coordinate() == "org.apache.spark:spark-sql-kafka-0-10_2.13:9.9.9"


def test_ivy_keeps_the_connector_in_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv(connector.IVY_VARIABLE, raising=False)
    monkeypatch.delenv(connector.PACKAGE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert connector.ivy_cache() == tmp_path / "kafka-meta" / "ivy"
    monkeypatch.setenv(connector.IVY_VARIABLE, str(tmp_path / "elsewhere"))
    conf = connector.connector_conf("4.2.0")
    assert conf["spark.jars.ivy"] == str(tmp_path / "elsewhere")
    assert conf["spark.jars.packages"] == f"{connector.PACKAGE}:4.2.0"
    assert Path(conf["spark.jars.ivySettings"]).is_file()
    assert "org.apache.hadoop:hadoop-client-runtime" in conf["spark.jars.excludes"].split(",")


def test_what_is_left_out_of_the_download_is_what_spark_ships():
    import pyspark

    shipped = {jar.name for jar in (Path(pyspark.__file__).parent / "jars").glob("*.jar")}
    for module in connector.SHIPPED_WITH_SPARK:
        artifact = module.split(":")[1]
        assert any(name.startswith(f"{artifact}-") for name in shipped), f"{artifact} is not among Spark's jars"


def test_ivy_resolves_from_maven_central_alone():
    """Not the local Maven repository, whose poms without jars break Spark's default chain."""
    root = ET.parse(connector.IVY_SETTINGS).getroot()
    resolvers = list(root.find("resolvers"))
    assert [(r.tag, r.get("m2compatible"), r.get("root")) for r in resolvers] == [("ibiblio", "true", None)]
    assert root.find("settings").get("defaultResolver") == resolvers[0].get("name")


def test_the_ivy_settings_ship_with_the_package():
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert '"spark/ivysettings.xml"' in pyproject


@pytest.mark.parametrize(("name", "servers", "expected"), [
    ("kafka://h:9092", None, ("h:9092", "__consumer_offsets")),
    ("kafka://h:9092/other", None, ("h:9092", "other")),
    ("h:9092,g:9092", None, ("h:9092,g:9092", "__consumer_offsets")),
    ("__consumer_offsets", "b:9092", ("b:9092", "__consumer_offsets")),
    ("kafka://h:9092", "b:9092", ("b:9092", "__consumer_offsets")),
])
def test_a_kafka_input_names_servers_and_a_topic(name, servers, expected):
    assert kafka_address(name, servers) == expected


def test_a_topic_without_a_server_is_refused():
    with pytest.raises(InputError, match="--bootstrap-server"):
        kafka_address("__consumer_offsets")


def test_the_kafka_sources_rows_become_offsets_rows(spark):
    from kafka_meta.spark.kafka_source import offsets_rows
    from kafka_meta.spark.offsets import decode_offsets

    when = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    source = spark.createDataFrame(
        [(b"\x00\x02\x00\x01g", None, "__consumer_offsets", 7, 42, when, 0)],
        "key binary, value binary, topic string, partition int, offset long, timestamp timestamp, "
        "timestampType int")
    rows = offsets_rows(source)
    assert rows.columns == ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "control",
                            "_file"]
    decoded = decode_offsets(rows, control="control").collect()[0]
    assert (decoded._file, decoded.control, decoded.recordName, decoded.groupId, decoded.tombstone) == (
        "__consumer_offsets-7", False, "GroupMetadata", "g", True)


def kafka_meta(*args: str) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("kafka-meta")
    return subprocess.run([str(script), *args], capture_output=True, text=True, timeout=120)


def test_analyze_refuses_a_kafka_topic_without_a_server_before_spark_starts(tmp_path):
    result = kafka_meta("analyze", "--format", "kafka", "__consumer_offsets", "--output", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "--bootstrap-server" in result.stderr and "Ivy" not in result.stderr  # no JVM, no download


def test_analyze_of_a_cluster_reads_its_consumer_offsets_unless_told_otherwise(tmp_path):
    result = kafka_meta("analyze", "--format", "kafka", "--output", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "input __consumer_offsets" in result.stderr and "--bootstrap-server" in result.stderr


def test_analyze_without_an_input_says_what_it_takes(tmp_path):
    result = kafka_meta("analyze", "--output", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "no input given" in result.stderr


def test_stream_needs_a_server_an_output_and_a_checkpoint():
    result = kafka_meta("stream", "--output", "out")
    assert result.returncode == 2
    assert "--bootstrap-server" in result.stderr and "--checkpoint" in result.stderr


# --- --command-config: a Java client properties file as the Kafka source's kafka.<property> options ----------

SASL_PROPERTIES = ("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                   "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
                   "    username=\"alice\" password=\"s3cr=t\";\nssl.truststore.type=JKS\n"
                   "ssl.truststore.location=/etc/kafka/truststore.jks\n")


def test_client_properties_pass_to_the_kafka_source_as_written(tmp_path):
    from kafka_meta.spark import kafka_settings
    from kafka_meta.spark.kafka_source import source_options

    path = tmp_path / "client.properties"
    path.write_text(SASL_PROPERTIES)
    settings = kafka_settings.read_client_properties(path)
    options = source_options("h:9093", "__consumer_offsets", [0, 1], settings)
    assert options["kafka.security.protocol"] == "SASL_SSL"
    assert options["kafka.sasl.mechanism"] == "SCRAM-SHA-512"  # whatever Kafka's own client takes: no mapping
    assert options["kafka.sasl.jaas.config"] == ('org.apache.kafka.common.security.scram.ScramLoginModule required '
                                                 'username="alice" password="s3cr=t";')
    assert options["kafka.ssl.truststore.type"] == "JKS"
    assert options["kafka.bootstrap.servers"] == "h:9093" and options["kafka.isolation.level"] == "read_committed"


def test_the_jobs_own_settings_stay_theirs_whatever_the_session_says():
    from kafka_meta.spark.kafka_source import source_options

    options = source_options("h:9093", "t", [0], {"isolation.level": "read_uncommitted", "bootstrap.servers": "x:1"})
    assert options["kafka.isolation.level"] == "read_committed" and options["kafka.bootstrap.servers"] == "h:9093"


@pytest.mark.parametrize(("line", "why"), [
    ("group.id=mine", "no consumer group"), ("enable.auto.commit=true", "commits nothing"),
    ("auto.offset.reset=latest", "earliest offset"), ("isolation.level=read_uncommitted", "committed records"),
    ("bootstrap.servers=h:1", "--bootstrap-server"), ("key.deserializer=x.Y", "as bytes")])
def test_settings_a_read_only_reader_cannot_take_are_refused_by_line(tmp_path, line, why):
    from kafka_meta.spark.kafka_settings import read_client_properties

    path = tmp_path / "client.properties"
    path.write_text(f"# a client\nsecurity.protocol=SASL_PLAINTEXT\n{line}\n")
    with pytest.raises(InputError) as refused:
        read_client_properties(path)
    key = line.split("=")[0]
    assert f"line 3: {key}: not taken by the Spark jobs" in str(refused.value) and why in str(refused.value)


def test_the_settings_travel_with_the_session(spark):
    from kafka_meta.spark import kafka_settings

    kafka_settings.use_client_properties(spark, {"security.protocol": "SASL_PLAINTEXT", "client.id": "reader"})
    try:
        assert kafka_settings.client_properties(spark) == {"security.protocol": "SASL_PLAINTEXT",
                                                           "client.id": "reader"}
    finally:
        for key in ("security.protocol", "client.id"):
            spark.conf.unset(kafka_settings.CONF_PREFIX + key)
    assert kafka_settings.client_properties(spark) == {}


def test_analyze_and_stream_refuse_a_group_id_before_spark_starts(tmp_path):
    config = tmp_path / "client.properties"
    config.write_text("group.id=mine\n")
    for args in (("analyze", "--format", "kafka", "--bootstrap-server", "h:1", "--output", str(tmp_path / "a")),
                 ("stream", "--bootstrap-server", "h:1", "--output", str(tmp_path / "s"), "--checkpoint",
                  str(tmp_path / "c"))):
        result = kafka_meta(*args, "--command-config", str(config))
        assert result.returncode == 2, result.stderr
        assert "line 1: group.id: not taken by the Spark jobs" in result.stderr and "Ivy" not in result.stderr


def test_command_config_is_for_kafka_inputs_only(tmp_path):
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SASL_PLAINTEXT\n")
    result = kafka_meta("analyze", str(tmp_path), "--command-config", str(config), "--output", str(tmp_path / "o"))
    assert result.returncode == 2 and "--command-config is for Kafka inputs" in result.stderr
