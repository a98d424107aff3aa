"""``--command-config``: the Java client properties file Kafka's own tools take, read for the settings a watch's
client (kafka-python) can honour. Anything it cannot is refused by name and line before a connection is made,
rather than half-applied (a TLS setting silently dropped is a connection in the clear, or one that fails later
with a less helpful message).

The file is read by :mod:`kafka_meta.java_properties` (Java's syntax, which the Spark jobs' reader shares);
this module says what each setting becomes for kafka-python.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kafka_meta.errors import InputError
from kafka_meta.java_properties import Entry, read_properties_file

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
LOGIN_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}
# the settings that carry over, and what each becomes in kafka-python's configuration
SUPPORTED = ("security.protocol", "sasl.mechanism", "sasl.jaas.config", "ssl.truststore.location",
             "ssl.truststore.type", "ssl.keystore.location", "ssl.keystore.type", "ssl.key.password",
             "ssl.endpoint.identification.algorithm", "client.id", "request.timeout.ms")
JAAS_OPTION = re.compile(r'\s*([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;"]+))')


def jaas_credentials(value: str) -> tuple[str, dict[str, str]]:
    """The login module and options of one ``sasl.jaas.config`` entry (``Module required key="value" ...;``)."""
    text = value.strip()
    if text.endswith(";"):
        text = text[:-1]
    parts = text.split(None, 2)
    if len(parts) < 2 or parts[1] not in ("required", "requisite", "sufficient", "optional"):
        raise ValueError("expected 'LoginModuleClass required username=\"...\" password=\"...\";'")
    options: dict[str, str] = {}
    rest = parts[2] if len(parts) > 2 else ""
    while rest.strip():
        match = JAAS_OPTION.match(rest)
        if match is None:
            raise ValueError(f"cannot read the option at {rest.strip()[:30]!r}")
        raw = match.group(2) if match.group(2) is not None else match.group(3)
        options[match.group(1)] = re.sub(r"\\(.)", r"\1", raw)
        rest = rest[match.end():]
    return parts[0], options


def client_settings(path: str | Path) -> dict[str, Any]:
    """kafka-python's settings from a Java client properties file; InputError naming the file and line of the
    first thing that cannot carry over."""
    path = Path(path)
    entries = read_properties_file(path)

    def bad(entry: Entry, why: str) -> InputError:
        return InputError(f"{path} line {entry.line}: {entry.key}: {why}")

    given: dict[str, Entry] = {}
    for entry in entries:
        if entry.key not in SUPPORTED:
            raise bad(entry, "not supported by watch's Kafka client (kafka-python); supported: "
                      + ", ".join(SUPPORTED))
        given[entry.key] = entry
    settings: dict[str, Any] = {}
    protocol = given.get("security.protocol")
    if protocol is not None:
        if protocol.value.upper() not in PROTOCOLS:
            raise bad(protocol, f"{protocol.value!r} is none of {', '.join(PROTOCOLS)}")
        settings["security_protocol"] = protocol.value.upper()
    sasl = settings.get("security_protocol", "PLAINTEXT").startswith("SASL_")
    _sasl(given, settings, sasl, bad)
    _ssl(given, settings, bad)
    if "client.id" in given:
        settings["client_id"] = given["client.id"].value
    if "request.timeout.ms" in given:
        entry = given["request.timeout.ms"]
        if not entry.value.isdigit() or int(entry.value) <= 0:
            raise bad(entry, f"{entry.value!r} is not a positive number of milliseconds")
        settings["request_timeout_ms"] = int(entry.value)
    return settings


def _sasl(given: dict[str, Entry], settings: dict[str, Any], sasl: bool, bad: Any) -> None:
    mechanism, jaas = given.get("sasl.mechanism"), given.get("sasl.jaas.config")
    if not sasl:
        for entry in (mechanism, jaas):
            if entry is not None:
                raise bad(entry, "set, but security.protocol is not SASL_PLAINTEXT or SASL_SSL")
        return
    name = mechanism.value.upper() if mechanism is not None else "GSSAPI"  # Kafka's default mechanism
    if name not in MECHANISMS:
        where = mechanism if mechanism is not None else given["security.protocol"]
        raise bad(where, f"SASL mechanism {name} is not supported by watch's Kafka client here; use one of "
                  + ", ".join(MECHANISMS))
    if jaas is None:
        raise bad(mechanism or given["security.protocol"],
                  f"SASL {name} needs sasl.jaas.config with username and password")
    try:
        module, options = jaas_credentials(jaas.value)
    except ValueError as e:
        raise bad(jaas, str(e)) from None
    if module != LOGIN_MODULES[name]:
        raise bad(jaas, f"{module} does not log in with {name} (expected {LOGIN_MODULES[name]})")
    missing = [o for o in ("username", "password") if o not in options]
    if missing:
        raise bad(jaas, "no " + " and no ".join(missing))
    settings.update(sasl_mechanism=name, sasl_plain_username=options["username"],
                    sasl_plain_password=options["password"])


def _ssl(given: dict[str, Entry], settings: dict[str, Any], bad: Any) -> None:
    for store, target in (("truststore", ("ssl_cafile",)), ("keystore", ("ssl_certfile", "ssl_keyfile"))):
        kind, location = given.get(f"ssl.{store}.type"), given.get(f"ssl.{store}.location")
        if kind is not None and kind.value.upper() != "PEM":
            raise bad(kind, f"{kind.value} stores cannot be read by watch's Kafka client: convert the {store} to "
                      f"PEM (keytool -exportcert -rfc, or openssl pkcs12) and set ssl.{store}.type=PEM")
        if location is not None:
            if kind is None:
                raise bad(location, f"Kafka reads this as a JKS {store}, which watch's client cannot: convert it "
                          f"to PEM and set ssl.{store}.type=PEM")
            if not Path(location.value).is_file():
                raise bad(location, f"no such file: {location.value}")
            settings.update(dict.fromkeys(target, location.value))
    if "ssl.key.password" in given:
        settings["ssl_password"] = given["ssl.key.password"].value
    algorithm = given.get("ssl.endpoint.identification.algorithm")
    if algorithm is not None:
        if algorithm.value not in ("", "https", "HTTPS"):
            raise bad(algorithm, f"{algorithm.value!r} is neither https nor empty")
        settings["ssl_check_hostname"] = bool(algorithm.value)
