"""--command-config: Java client properties read as Kafka's tools read them, and refused by line where the
watch's client cannot honour them."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_meta.errors import InputError
from kafka_meta.java_properties import read_properties
from kafka_meta.live.properties import client_settings, jaas_credentials


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "client.properties"
    path.write_text(text)
    return path


def test_java_properties_syntax():
    text = ("# a comment\n! another\n\nsecurity.protocol = SASL_SSL\nclient.id:watcher\n"
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
            "    username=\"alice\" \\\n    password=\"s3cr\\u00e9t\";\nkey\\ with\\ blanks value\n")
    entries = read_properties(text)
    assert [(e.key, e.line) for e in entries] == [("security.protocol", 4), ("client.id", 5),
                                                  ("sasl.jaas.config", 6), ("key with blanks", 9)]
    assert entries[1].value == "watcher"
    assert entries[2].value.endswith('username="alice" password="s3crét";')


def test_sasl_plain_over_tls(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    path = write(tmp_path, f"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                           f"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                           f"username=\"bob\" password=\"p;w\\\\\\\"x\";\n"
                           f"ssl.truststore.type=PEM\nssl.truststore.location={ca}\n"
                           f"ssl.endpoint.identification.algorithm=\n")
    assert client_settings(path) == {
        "security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512", "sasl_plain_username": "bob",
        "sasl_plain_password": 'p;w"x', "ssl_cafile": str(ca), "ssl_check_hostname": False}


def test_jaas_options_quoted_and_bare():
    module, options = jaas_credentials('a.b.C required username=u password="x y";')
    assert module == "a.b.C" and options == {"username": "u", "password": "x y"}


@pytest.mark.parametrize(("text", "line", "says"), [
    ("security.protocol=SSL\nssl.truststore.location=/etc/kafka/truststore.jks\n", 2, "JKS"),
    ("security.protocol=SSL\nssl.truststore.type=JKS\n", 2, "convert"),
    ("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\n", 2, "GSSAPI"),
    ("security.protocol=SASL_PLAINTEXT\n", 1, "GSSAPI"),  # Kafka's default mechanism
    ("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n", 2, "needs sasl.jaas.config"),
    ("security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain"
     ".PlainLoginModule required username=\"a\";\n", 3, "no password"),
    ("security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=PlainLoginModule username=a;\n", 3,
     "expected"),
    ("security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.scram"
     ".ScramLoginModule required username=\"a\" password=\"b\";\n", 3, "does not log in with PLAIN"),
    ("# comment\nsecurity.protocol=TLS\n", 2, "none of"),
    ("sasl.mechanism=PLAIN\n", 1, "not SASL"),
    ("\n\nbootstrap.servers=x:1\n", 3, "not supported"),
    ("request.timeout.ms=soon\n", 1, "milliseconds"),
])
def test_what_cannot_carry_over_is_refused_by_line(tmp_path, text, line, says):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as refused:
        client_settings(path)
    assert f"{path} line {line}: " in str(refused.value)
    assert says in str(refused.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(InputError, match=r"nothere\.properties"):
        client_settings(tmp_path / "nothere.properties")
