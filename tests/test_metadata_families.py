"""Each family of metadata-framed records keeps its own record types: the metadata log's frame takes the
``metadata`` family's bodies (and specs loaded with ``load_specs``), ``__remote_log_metadata``'s frame its own four,
even in a registry that holds both (their apiKeys 0-3 are the same numbers)."""

from __future__ import annotations

import json

import kafka_meta
from kafka_meta.api import model
from kafka_meta.codec.registry import REGISTRY, USER_FAMILY, Registry, register_spec
from kafka_meta.internal_topics import remote_log_metadata
from kafka_meta.kraft.records import METADATA_FAMILY, metadata_record_formats
from kafka_meta.spec.loader import load_spec

REMOTE = {0: "RemoteLogSegmentMetadataRecord", 1: "RemoteLogSegmentMetadataUpdateRecord",
          2: "RemotePartitionDeleteMetadataRecord", 3: "RemoteLogSegmentMetadataSnapshotRecord"}


def names(table: dict) -> dict[int, str]:
    return {api_key: fmt.name for api_key, fmt in table.items()}


def test_the_public_registry_lists_no_remote_log_type_and_its_frame_takes_none():
    assert not {name for name in kafka_meta.types() if name in REMOTE.values()}
    metadata = model("MetadataRecord").record_formats()
    families = {fmt.family for fmt in metadata.values()}  # a user's specs, loaded by another test, may join
    remote = {remote_log_metadata.REGISTRY.get(n).family for n in remote_log_metadata.REGISTRY.names()}
    assert METADATA_FAMILY in families and not families & (remote - {METADATA_FAMILY})
    assert names(metadata)[0] == "RegisterBrokerRecord" and not set(names(metadata).values()) & set(REMOTE.values())


def test_the_remote_log_frame_takes_its_own_four_types_only():
    assert sorted(remote_log_metadata.REGISTRY.names()) == sorted(REMOTE.values())
    table = remote_log_metadata.frame_format().models.root.record_formats()
    assert names(table) == REMOTE


def test_a_registry_holding_both_families_gives_each_frame_its_own(tmp_path):
    both = Registry()
    for fmt in REGISTRY.formats():
        if fmt.family == METADATA_FAMILY:
            both.register(fmt)
    for fmt in remote_log_metadata.REGISTRY.formats():
        both.register(fmt)
    spec = {"apiKey": 200, "type": "metadata", "name": "LoadedTestRecord", "validVersions": "0",
            "flexibleVersions": "0+", "fields": [{"name": "Level", "type": "int32", "versions": "0+"}]}
    (tmp_path / "LoadedTestRecord.json").write_text(json.dumps(spec))
    register_spec(both, load_spec(tmp_path / "LoadedTestRecord.json"))
    metadata = names(metadata_record_formats(both)())
    remote = names(metadata_record_formats(both, remote_log_metadata.FAMILY)())
    assert remote == REMOTE  # not RegisterBrokerRecord for apiKey 0, nor the loaded spec
    assert metadata[0] == "RegisterBrokerRecord" and metadata[200] == "LoadedTestRecord"
    assert not set(metadata.values()) & set(REMOTE.values())
    assert both.get("LoadedTestRecord").family == USER_FAMILY
