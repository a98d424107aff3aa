"""Our specs and api table say what Kafka 4.4's own say: the message specs inside the lab's Kafka jars (read
where they lie, in the jars Maven fetched; never copied) are the newest Kafka whose traffic and logs the
lab records.

Our protocol specs keep the old versions Kafka 4 no longer accepts (KIP-896: old clients still send them),
so against 4.4 our oldest version may be older, and fields that only those versions had are left out of the
comparison; everything else (names, types, version ranges, nullability, tags, defaults) must be Kafka's.
"""

from __future__ import annotations

import zipfile
from functools import cache
from pathlib import Path

import pytest
from spec_support import fields_kept

from kafka_meta.codec.registry import schema_root
from kafka_meta.protocol import APIS
from kafka_meta.spec import jsonc, load_spec, load_spec_text
from kafka_meta.spec.compare import structural_differences
from kafka_meta.spec.loader import iter_spec_files
from kafka_meta.spec.model import MessageSpec
from kafka_meta.spec.versions import Versions

pytestmark = pytest.mark.kafka

JARS = ("kafka-clients", "kafka-group-coordinator", "kafka-metadata", "kafka-streams", "kafka-transaction-coordinator",
        "kafka-share-coordinator", "kafka-storage")
# schemas of ours that are no Kafka message spec: hand-written layouts of Java code (the assignors' user
# data), and the control record key, which Kafka reads with hand-written code (ControlRecordType)
NOT_KAFKA_SPECS = {"StickyAssignorUserData", "CooperativeStickyAssignorUserData", "ControlRecordKey"}


@cache
def kafka_spec_texts(lib: Path) -> dict[str, str]:
    """The text of every message spec in the lab's Kafka 4.4 jars, by file name."""
    out = {}
    for prefix in JARS:
        [jar] = sorted(lib.glob(f"{prefix}-4.*.jar"))
        with zipfile.ZipFile(jar) as z:
            for name in z.namelist():
                if name.startswith(("common/", "message/")) and name.endswith(".json"):  # kafka-storage's: message/
                    out[f"{jar.name}!{name}"] = z.read(name).decode()
    assert len(out) > 250
    return out


@pytest.fixture(scope="module")
def kafka_texts(lab) -> dict[str, str]:
    return kafka_spec_texts(lab.build.LAB / "kafka" / "target" / "lib")


@pytest.fixture(scope="module")
def kafka44(kafka_texts) -> dict[str, MessageSpec]:
    """Kafka 4.4's specs by message name, those kafka_meta's loader reads: not the apis with record batches
    in their bodies (Produce, Fetch...: the `records` type is not ours to read), nor the apis Kafka 4
    removed whole (validVersions "none")."""
    out = {}
    for source, text in kafka_texts.items():
        header = jsonc.loads(text)
        if header.get("validVersions") == "none" or '"records"' in text:
            continue
        spec = load_spec_text(text, source)
        out[spec.name] = spec
    return out


def from_version(spec: MessageSpec, low: int) -> MessageSpec:
    """The spec as a reader of versions `low` and later sees it: fields only older versions had left out."""
    return fields_kept(spec, lambda f: f.versions.high >= low)


OURS = [path for path in sorted(iter_spec_files(schema_root())) if "offsets-variants" not in path.parts]


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.stem)
def test_our_specs_are_kafka_44s(kafka44, path):
    ours = load_spec(path)
    if ours.name in NOT_KAFKA_SPECS:
        pytest.skip(f"{ours.name} is no Kafka message spec")
    theirs = kafka44.get(ours.name)
    assert theirs is not None, f"Kafka 4.4 has no spec named {ours.name}"
    assert ours.valid_versions.high == theirs.valid_versions.high
    assert ours.valid_versions.low <= theirs.valid_versions.low
    if path.parent.name != "protocol":  # records and member metadata: every version is still Kafka's
        assert ours.valid_versions == theirs.valid_versions
    assert structural_differences(from_version(ours, theirs.valid_versions.low), theirs,
                                  compare_versions=False) == []


def test_the_api_table_is_kafka_44s(kafka_texts):
    """Every api Kafka 4.4 defines (the header facts of its request specs: name, versions, flexible versions),
    those Kafka 4 removed whole (validVersions "none": ours keep the versions old brokers spoke) aside."""
    requests = {}
    for text in kafka_texts.values():
        header = jsonc.loads(text)
        if header.get("type") == "request":
            requests[header["apiKey"]] = header
    assert set(requests) == set(APIS)
    for key, theirs in requests.items():
        api = APIS[key]
        assert api.name + "Request" == theirs["name"]
        valid, flexible = Versions.parse(theirs["validVersions"]), Versions.parse(theirs.get("flexibleVersions"))
        if valid.empty:
            continue
        assert api.high == valid.high, api
        assert api.low <= valid.low, api
        for version in Versions(api.low, api.high):  # the header versions depend on it
            assert api.flexible(version) == (version in flexible), (api, version)
