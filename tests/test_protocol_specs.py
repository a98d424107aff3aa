"""Our request/response specs (schemas/protocol) say what Kafka's say, field by field, and agree with the
api table.

Upstream files: the two snapshots in ../shared/kafka-spec where they hold the message, and otherwise the
copies of Kafka 4.3's files that kafka-python 3 ships. Kafka 4 dropped some old versions (KIP-896); our
specs keep them readable, so our oldest may be older; our newest is Kafka 4.4's (checked against the lab's
Kafka 4.4 jars in tests/test_lab_specs.py), so it may be newer than 4.3's, and where 4.4 changed a message
that 4.3 had, the differences are listed (CHANGED_SINCE_43).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from conftest import SPEC_DIR, need_shared
from spec_support import fields_kept

import kafka_meta as km
from kafka_meta.codec.registry import schema_root
from kafka_meta.protocol import APIS
from kafka_meta.spec import jsonc, load_spec
from kafka_meta.spec.compare import structural_differences
from kafka_meta.spec.loader import iter_spec_files
from kafka_meta.spec.model import MessageSpec
from kafka_meta.spec.versions import Versions

OURS = sorted(iter_spec_files(schema_root() / "protocol"))
SNAPSHOTS = ("clients", "newer/clients")
# messages neither the snapshots nor kafka-python hold; checked against apache/kafka by hand when written, and
# against the lab's Kafka 4.4 jars by tests/test_lab_specs.py (marked kafka)
NO_LOCAL_UPSTREAM = {"ConsumerGroupDescribeRequest", "ConsumerGroupDescribeResponse", "ShareGroupHeartbeatRequest",
                     "ShareGroupHeartbeatResponse", "ShareGroupDescribeRequest", "ShareGroupDescribeResponse",
                     "StreamsGroupDescribeRequest", "StreamsGroupDescribeResponse"}
# what Kafka 4.4 changed in messages whose Kafka 4.3 files kafka-python ships, read up to 4.3's newest version:
# TxnOffsetCommit v6 names topics by id (KIP-1319), so the name stops at v5 and becomes ignorable, and the
# generation is renamed as it also carries a KIP-848 member epoch (the wire is unchanged). Ours are 4.4's,
# held to the 4.4 jars by tests/test_lab_specs.py; any other difference from 4.3 fails.
CHANGED_SINCE_43 = {
    "TxnOffsetCommitRequest": [
        "TxnOffsetCommitRequest: fields ['TransactionalId', 'GroupId', 'ProducerId', 'ProducerEpoch', "
        "'GenerationIdOrMemberEpoch', 'MemberId', 'GroupInstanceId', 'Topics'] != ['TransactionalId', 'GroupId', "
        "'ProducerId', 'ProducerEpoch', 'GenerationId', 'MemberId', 'GroupInstanceId', 'Topics']",
        "TxnOffsetCommitRequest.Topics.Name: versions '0-5' != '0+'",
        "TxnOffsetCommitRequest.Topics.Name: ignorable True != False",
    ],
    "TxnOffsetCommitResponse": [
        "TxnOffsetCommitResponse.Topics.Name: versions '0-5' != '0+'",
        "TxnOffsetCommitResponse.Topics.Name: ignorable True != False",
    ],
}
REQUIRED_APIS = ["ApiVersions", "FindCoordinator", "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup",
                 "OffsetCommit", "OffsetFetch", "DescribeGroups", "ConsumerGroupHeartbeat", "ConsumerGroupDescribe",
                 "StreamsGroupHeartbeat", "ShareGroupDescribe", "StreamsGroupDescribe"]


def kafka_python_specs() -> Path | None:
    """Where kafka-python keeps Kafka's files (found without importing it: its import loads them all)."""
    found = importlib.util.find_spec("kafka")
    if found is None or not found.submodule_search_locations:
        return None
    path = Path(next(iter(found.submodule_search_locations))) / "protocol" / "schemas" / "resources"
    return path if path.is_dir() else None


def up_to(spec: MessageSpec, high: int) -> MessageSpec:
    """The spec as a reader of versions up to `high` sees it: the fields of newer versions left out."""
    return fields_kept(spec, lambda f: f.versions.low <= high)


def snapshot_files(name: str) -> list[Path]:
    return [SPEC_DIR / d / f"{name}.json" for d in SNAPSHOTS if (SPEC_DIR / d / f"{name}.json").exists()]


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.stem)
def test_matches_kafka(path):
    need_shared()
    ours = load_spec(path)
    checked = 0
    for theirs_path in snapshot_files(ours.name):
        theirs = load_spec(theirs_path)
        assert structural_differences(ours, theirs, compare_versions=False) == [], theirs_path
        assert ours.valid_versions.low <= theirs.valid_versions.low
        checked += 1
    kp = kafka_python_specs()
    if kp is not None and (kp / path.name).exists():
        theirs = load_spec(kp / path.name)
        differences = structural_differences(up_to(ours, theirs.valid_versions.high), theirs, compare_versions=False)
        assert differences == CHANGED_SINCE_43.get(ours.name, [])
        assert ours.valid_versions.high >= theirs.valid_versions.high  # Kafka 4.3's newest, or 4.4's
        assert ours.valid_versions.low <= theirs.valid_versions.low
        checked += 1
    if not checked and kp is None:
        pytest.skip("kafka-python (the test extra) is not installed; it holds Kafka 4.3's specs")
    if not checked:
        assert ours.name in NO_LOCAL_UPSTREAM, f"{ours.name} has no upstream spec to compare with"
        pytest.skip(f"{ours.name}: no copy of Kafka's spec on this machine")


def test_the_comparison_would_notice_a_change():
    need_shared()
    ours = load_spec(schema_root() / "protocol" / "SyncGroupRequest.json")
    theirs = load_spec(SPEC_DIR / "newer/clients/SyncGroupRequest.json")
    theirs.fields[4].nullable_versions = theirs.fields[0].nullable_versions
    assert any("ProtocolType: nullableVersions" in d for d in structural_differences(ours, theirs))


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.stem)
def test_agrees_with_the_api_table(path):
    spec = load_spec(path)
    api = APIS[spec.api_key]
    assert spec.name == api.name + spec.type.capitalize()
    assert spec.valid_versions.high == api.high
    assert spec.valid_versions.low == api.low
    for version in range(api.low, api.high + 1):  # the header versions depend on this
        assert spec.flexible(version) == api.flexible(version)


def test_every_required_api_has_both_specs_registered():
    types = set(km.types())
    ours = {path.stem for path in OURS}
    for name in REQUIRED_APIS:
        assert {name + "Request", name + "Response"} <= types & ours


def test_our_specs_are_not_copies():
    for path in OURS:
        text = path.read_text()
        assert "Licensed to the Apache Software Foundation" not in text
        assert text.startswith("// kafka_meta schema:")


def test_the_api_table_agrees_with_every_kafka_spec_here():
    """Names, newest versions and first flexible versions of the api table, against every request spec of
    Kafka's that this machine holds (the snapshots and Kafka 4.3's, as kafka-python ships them)."""
    need_shared()
    files = [p for d in SNAPSHOTS for p in (SPEC_DIR / d).glob("*Request.json")]
    kp = kafka_python_specs()
    files += sorted(kp.glob("*Request.json")) if kp is not None else []
    assert len(files) >= 3
    for path in files:
        theirs = jsonc.loads(path.read_text())  # the header facts only (Produce's records are not ours to read)
        api = APIS[theirs["apiKey"]]
        valid, flexible = Versions.parse(theirs["validVersions"]), Versions.parse(theirs["flexibleVersions"])
        assert api.name + "Request" == theirs["name"], path
        assert api.low <= valid.low and valid.high <= api.high, path
        for version in range(valid.low, valid.high + 1):
            assert api.flexible(version) == (version in flexible), (path, version)


def test_consumer_group_describe_v1_adds_the_member_type_after_the_target_assignment():
    """KIP-1099 (Kafka 4.0): a v1 answer is a v0 answer with one int8 per member, MemberType, written after
    the member's target assignment; -1 when not known."""
    import kafka_meta as km

    model = km.model("ConsumerGroupDescribeResponse")
    member = {"member_id": "m-1", "member_epoch": 3, "client_id": "c", "client_host": "/127.0.0.1",
              "subscribed_topic_names": ["orders"], "member_type": 1}
    group = {"group_id": "g", "group_state": "Stable", "group_epoch": 3, "assignment_epoch": 3,
             "assignor_name": "uniform", "members": [member]}
    message = model.model_validate({"throttle_time_ms": 0, "groups": [group]})
    v0, v1 = km.encode(message, 0), km.encode(message, 1)
    assert len(v1) == len(v0) + 1
    split = len(v0) - 1 - 1 - 4 - 1  # the group's tagged fields, AuthorizedOperations, the member's tags
    assert v1[:split] == v0[:split] and v1[split] == 1 and v1[split + 1:] == v0[split:]
    assert km.decode("ConsumerGroupDescribeResponse", v1, version=1).groups[0].members[0].member_type == 1
    assert km.decode("ConsumerGroupDescribeResponse", v0, version=0).groups[0].members[0].member_type == -1
