"""The loader accepts every Kafka spec file unchanged and builds every valid version of each."""

from __future__ import annotations

import pytest
from conftest import SPEC_DIR, need_shared

from kafka_meta.codec.builder import SpecBuilder
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import Unframed
from kafka_meta.spec import load_spec, load_specs
from kafka_meta.spec.loader import iter_spec_files
from kafka_meta.wire.codegen import compile_decoder, compile_encoder

UPSTREAM = sorted(iter_spec_files(SPEC_DIR)) if SPEC_DIR.is_dir() else []


def test_upstream_specs_are_present():
    need_shared()
    assert len(UPSTREAM) >= 90  # Oct-2024 files plus newer/


@pytest.mark.parametrize("path", UPSTREAM, ids=lambda p: str(p.relative_to(SPEC_DIR)))
def test_every_upstream_spec_loads_and_builds_every_version(path):
    spec = load_spec(path)
    fmt = SpecFormat(spec, Unframed())
    fmt.model  # noqa: B018 - the typed models build
    for version in spec.valid_versions:
        con = SpecBuilder(spec).build(version)
        compile_decoder(con)
        compile_encoder(con)
        fmt.decoder(version, typed=True)
        fmt.encoder(version, typed=True)
        # the all-defaults message encodes and reads back at every version
        default = con.default_plain()
        data = fmt.encode(default, version)
        assert fmt.decode_plain(data, version)[0] == default


def test_records_tagged_and_nullable_structs_are_understood():
    need_shared()
    spec = load_spec(SPEC_DIR / "newer/group-coordinator/StreamsGroupMetadataValue.json")
    configs = spec.fields[3]
    assert configs.name == "LastAssignmentConfigs"
    assert str(configs.versions) == "0+", "a tagged field without 'versions' takes its taggedVersions"
    assert configs.default is None, "JSON null means no default"
    member = load_spec(SPEC_DIR / "group-coordinator/ConsumerGroupMemberMetadataValue.json")
    classic = next(f for f in member.fields if f.name == "ClassicMemberMetadata")
    assert classic.tag == 0 and classic.struct is not None and str(classic.nullable_versions) == "0+"


def test_comments_and_quoted_booleans():
    need_shared()
    spec = load_spec(SPEC_DIR / "streams/SubscriptionInfoData.json")
    assert str(spec.valid_versions) == "1-11"
    named = spec.structs["TaskOffsetSum"].field("namedTopology")
    assert named.ignorable is False  # written as the string "false" with a trailing // comment


def test_whole_directory():
    need_shared()
    specs = load_specs(SPEC_DIR / "clients")
    assert {"ConsumerProtocolSubscription", "JoinGroupRequest", "RequestHeader"} <= {s.name for s in specs}
