"""``to_json_dict()`` is the JSON Kafka's generated converters write, at the message's version.

The plain tests pin the rule on hand-made messages (fields of the version only, tagged fields only away from
their default, no unknown tagged fields, nested messages at their own version, ``every_field`` for the whole dump).
The ``kafka`` tests run the ``json_converters`` conformance family against Kafka 4.4's own converters through the
peer, and show that it is not vacuous: with the production rule broken on purpose (Kafka's side untouched), it
reports an unexplained difference.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kafka_meta as km
from kafka_meta.models import base, json_form
from kafka_meta.testing.conformance import json_converters
from kafka_meta.testing.conformance.peer import Answer, Peer
from kafka_meta.testing.conformance.results import Result

SUB = "ConsumerProtocolSubscription"
V0 = "0000000000010003666f6f00000002cafe"  # v0: topics ["foo"], userData cafe
TYPES = {SUB, "HeartbeatRequest", "ApiVersionsResponse", "ConsumerGroupMemberMetadataValue", "OffsetCommitKey",
         "FeatureLevelRecord", "MetadataRecord"}
CASES = 60
SEED = 4404


def test_a_v0_subscription_has_only_the_fields_of_v0():
    message = km.decode(SUB, bytes.fromhex(V0))
    assert message.version == 0
    assert message.to_json_dict() == {"topics": ["foo"], "userData": "yv4="}
    # the model still holds every field of every version, at its default where v0 has none
    assert list(message.to_json_dict(every_field=True)) == [
        "topics", "userData", "ownedPartitions", "generationId", "rackId"]
    with_views = message.to_json_dict(views=True)
    assert list(with_views) == ["topics", "userData", "clientView"]
    assert with_views["clientView"]["generationId"] == -1
    # the same value at v3 has them all; a message without a version is written at the newest, as encode() does
    assert list(message.with_version(3).to_json_dict()) == [
        "topics", "userData", "ownedPartitions", "generationId", "rackId"]
    built = km.model(SUB)(topics=["foo"])
    assert built.version is None and list(built.to_json_dict()) == list(message.with_version(3).to_json_dict())


def test_tagged_fields_only_away_from_their_default_and_no_unknown_ones():
    cls = km.model("ApiVersionsResponse")
    message = km.decode("ApiVersionsResponse", km.encode(cls(), 3), version=3)  # protocol bodies: version outside
    assert message.to_json_dict() == {"errorCode": 0, "apiKeys": [], "throttleTimeMs": 0}
    message.finalized_features_epoch = 7
    message.unknown_tagged_fields = [{"tag": 99, "data": b"\x01"}]
    assert message.to_json_dict() == {"errorCode": 0, "apiKeys": [], "throttleTimeMs": 0, "finalizedFeaturesEpoch": 7}
    every = message.to_json_dict(every_field=True)
    assert every["supportedFeatures"] == [] and every["_unknownTaggedFields"] == [{"tag": 99, "data": "AQ=="}]
    # the JSON-only rule gives the same from the whole dump
    layout = km.get_format("ApiVersionsResponse").construct(3)
    assert json_form.converter_form(every, layout) == message.to_json_dict()
    assert json_form.version_fields(every, layout) == every  # v3 has every field; the unknown ones are kept


def test_a_nested_struct_with_unknown_tagged_fields_is_not_at_its_default():
    """Kafka's generated equals compares unknown tagged fields too, so such a tagged struct is written."""
    cls = km.model("ConsumerGroupMemberMetadataValue")
    message = cls(classicMemberMetadata={"sessionTimeoutMs": 0, "supportedProtocols": []})
    assert "classicMemberMetadata" not in message.to_json_dict()
    message.classic_member_metadata.unknown_tagged_fields = [{"tag": 5, "data": b""}]
    assert message.to_json_dict()["classicMemberMetadata"] == {"sessionTimeoutMs": 0, "supportedProtocols": []}


def test_a_metadata_record_in_its_frame_is_written_at_its_own_version():
    framed = km.decode("MetadataRecord", bytes.fromhex("010c00" + "116d657461646174612e76657273696f6e001500"))
    assert framed.to_json_dict()["record"] == framed.record.to_json_dict() == {
        "name": "metadata.version", "featureLevel": 21}
    assert framed.to_json_dict(views=True)["record"]["release"] == "3.9-IV0"


def test_every_case_lands_in_one_column():
    """The family's accounting, on made-up answers: identical, both refuse (for the same kind of reason), or one
    difference per case."""
    def case(**fields: object) -> json_converters.Case:
        return json_converters.Case(0, {}, "HeartbeatRequestData", None, **fields)  # type: ignore[arg-type]

    json = {"groupId": "g"}
    cases = [
        case(body=b"\x01", json=json, written=b"\x01"),  # identical
        case(body=b"\x01", json=json, written=b"\x01"),  # Kafka's converter writes other JSON
        case(body=b"\x01", json=json, written=b"\x01"),  # Kafka reads our JSON to other bytes
        case(refusal="we refuse to write it: string of 32768 bytes exceeds Kafka's limit of 32767"),
        case(refusal="we refuse to write it: string of 32768 bytes exceeds Kafka's limit of 32767"),
        case(refusal="we refuse to write it: string of 32768 bytes exceeds Kafka's limit of 32767"),
    ]
    wrote, other = Answer(True, {"hex": "01"}), Answer(True, {"hex": "02"})
    answers = [Answer(True, {"json": json}), wrote, Answer(True, {"json": {"groupId": "h"}}), wrote,
               Answer(True, {"json": json}), other,
               Answer(False, error="RuntimeException: 'groupId' field is too long to be serialized"),
               Answer(False, error="RuntimeException: something else"), wrote]
    result = Result("HeartbeatRequest (JsonConverter)")
    json_converters.check(cases, iter(answers), result)
    assert (result.cases, result.identical, result.both_refused, result.our_refusals) == (6, 1, 1, 3)
    assert {d.what: d.count for d in result.differences} == {
        "to_json_dict differs from Kafka's converter": 1, "Kafka writes other bytes from our JSON": 1,
        "both refuse to write, for different reasons": 1, "we refuse to write, Kafka writes": 1}
    assert result.unexplained == 4


@pytest.fixture(scope="module")
def peer(lab) -> Iterator[Peer]:
    with Peer() as running:
        yield running


def run(peer: Peer, types: set[str], cases: int = CASES) -> dict[str, Result]:
    return {r.type: r for r in json_converters.run(peer, cases, types, SEED)}


@pytest.mark.kafka
def test_the_family_finds_to_json_dict_is_what_kafkas_converters_write(peer):
    results = run(peer, TYPES)
    assert sorted(results) == sorted(t + json_converters.SUFFIX for t in TYPES)
    for result in results.values():
        assert result.cases == CASES and result.unexplained == 0, result.differences
        assert result.identical + result.both_refused == CASES and result.identical > CASES // 2


@pytest.mark.kafka
def test_a_json_rule_that_keeps_fields_the_version_lacks_is_reported(peer, monkeypatch):
    monkeypatch.setattr(base, "message_form", lambda message, json, views: json)  # every field, as before
    result = run(peer, {SUB})[SUB + json_converters.SUFFIX]
    assert result.unexplained > 0
    found = {d.what: d for d in result.differences}
    example = found["to_json_dict differs from Kafka's converter"].example
    assert example["version"] < 3 and "rackId" in example["ours"] and "rackId" not in example["kafka"]


@pytest.mark.kafka
def test_a_json_rule_that_writes_tagged_defaults_is_reported(peer, monkeypatch):
    monkeypatch.setattr(json_form, "_at_default", lambda json, member: False)
    result = run(peer, {"ApiVersionsResponse"})["ApiVersionsResponse" + json_converters.SUFFIX]
    assert result.unexplained > 0
    assert "to_json_dict differs from Kafka's converter" in {d.what for d in result.differences}
