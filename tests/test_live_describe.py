"""The describe requests a watch sends and what it reads of their answers: bodies Kafka's own Admin client and
broker exchanged in the lab's recordings (decoded from fixtures/lab/*/capture.pcapng; for share and streams
groups held to what the Admin client itself read from them, in the recording's truth.jsonl), and the frames
that carry the project's bodies over a client connection."""

from __future__ import annotations

import struct

import pytest
from conftest import ROOT
from lab_truth import admin_described, watched

from kafka_meta.inputs import read
from kafka_meta.live import describe
from kafka_meta.live.client import KafkaSource
from kafka_meta.live.core import LiveTimeline
from kafka_meta.live.events import STATE
from kafka_meta.live.wire_request import CodecRequest
from kafka_meta.protocol.bodies import BODIES
from kafka_meta.protocol.headers import read_request_header

LAB = ROOT / "fixtures" / "lab"


def exchanges(scenario: str, api: str) -> list[dict]:
    path = LAB / scenario / "capture.pcapng"
    if not path.exists():
        pytest.skip(f"no lab capture {scenario}")
    return [e for e in read([str(path)]).exchanges if e.get("apiName") == api and not e.get("_error")]


def test_classic_members_and_their_assignments_from_describe_groups():
    """Stable groups of three as Kafka's Admin saw them: members with client ids and the partitions their
    decoded assignment bytes give, the protocol the group chose."""
    stable = [e["response"] for e in exchanges("classic", "DescribeGroups")
              if e["response"]["groups"][0]["groupState"] == "Stable"
              and len(e["response"]["groups"][0]["members"]) == 3]
    assert stable
    [group] = describe.described_classic(stable[0])
    assert group.kind == "classic" and group.state == "Stable" and group.protocol in ("range", "cooperative-sticky")
    assert len(group.members) == 3 and all(m.client_id.startswith(group.group) for m in group.members)
    owned = [tp for m in group.members for tp in m.assigned]
    assert len(owned) == len(set(owned)) == 6  # six partitions, each assigned once


def test_consumer_groups_epochs_and_assignments_from_consumer_group_describe():
    answers = [e["response"] for e in exchanges("consumer", "ConsumerGroupDescribe")
               if e["response"]["groups"][0]["members"]]
    assert answers
    [group] = describe.described_consumer(answers[-1])
    assert group.kind == "consumer" and group.epoch is not None and group.epoch > 0
    assert group.protocol in ("range", "uniform")
    assert all(m.epoch is not None and m.epoch <= group.epoch for m in group.members)
    assert all(tp.rsplit("-", 1)[0].startswith("lab-consumer") for m in group.members for tp in m.assigned)


def test_a_classic_group_asked_as_a_consumer_group_is_an_error_not_a_crash():
    """Kafka's Admin asks ConsumerGroupDescribe first; for a classic group the broker answers with an error."""
    refused = [e["response"] for e in exchanges("classic", "ConsumerGroupDescribe")
               if e["response"]["groups"][0]["errorCode"]]
    [group] = describe.described_consumer(refused[0])
    assert group.error and group.members is None


def test_the_requests_read_back_as_the_bodies_kafkas_admin_sends():
    """Our requests decode (with the same reader the captures go through) to what Kafka's Admin sent."""
    sent = exchanges("consumer", "ConsumerGroupDescribe")[0]
    body = describe.request(describe.CONSUMER_GROUP_DESCRIBE, sent["apiVersion"], sent["request"]["groupIds"])
    assert BODIES.decode("ConsumerGroupDescribeRequest", body, sent["apiVersion"]) == sent["request"]
    found = exchanges("classic", "FindCoordinator")[0]
    body = describe.request(describe.FIND_COORDINATOR, found["apiVersion"], found["request"]["coordinatorKeys"])
    assert BODIES.decode("FindCoordinatorRequest", body, found["apiVersion"])["coordinatorKeys"] == \
        found["request"]["coordinatorKeys"]


@pytest.mark.parametrize(("broker", "chosen"), [((0, 6), 6), ((0, 9), 6), ((0, 3), None), (None, None)])
def test_the_version_both_sides_speak(broker, chosen):
    assert describe.version(describe.FIND_COORDINATOR, broker) == chosen


def test_a_request_frame_has_the_header_its_api_and_version_call_for():
    """Flexible versions take request header v2 (tagged fields after the client id), older ones v1."""
    for api, version in ((describe.DESCRIBE_GROUPS, 5), (describe.DESCRIBE_GROUPS, 4), (describe.LIST_GROUPS, 2)):
        body = describe.request(api, version, ["g"])
        request = CodecRequest(api.key, version, body)
        request.with_header(correlation_id=41, client_id="kafka-meta-watch")
        frame = request.encode(framed=True, header=True)
        assert struct.unpack(">i", frame[:4])[0] == len(frame) - 4
        header = read_request_header(frame[4:])
        assert (header.api_key, header.api_version, header.correlation_id, header.client_id) == \
            (api.key, version, 41, "kafka-meta-watch")
        assert header.header_version == (2 if version >= {15: 5, 16: 3}[api.key] else 1)
        assert frame[4 + header.body_offset:] == body


def test_an_answer_frame_gives_back_its_body():
    import io

    body = bytes.fromhex("00000000000100")
    for header_version, head in ((1, struct.pack(">i", 7) + b"\x00"), (0, struct.pack(">i", 7))):
        request = CodecRequest(16, 3 if header_version else 2, b"")
        request.with_header(correlation_id=7)
        answer = request.header.get_response_class()
        got = answer.parse_header(io.BytesIO(head + body))
        assert got.correlation_id == 7 and answer.decode(None).body == body


def test_a_description_is_an_event_only_when_it_changes():
    described = [describe.described_classic(e["response"])[0] for e in exchanges("classic", "DescribeGroups")]
    core = LiveTimeline()
    events = [e for d in described for e in core.on_description(d, 0.0)]
    changes = sum(1 for i, d in enumerate(described) if i == 0 or not d.same_as(
        next((x for x in reversed(described[:i]) if x.group == d.group), None)))
    assert len([e for e in events if e.kind == STATE]) == changes < len(described)


def test_share_groups_members_epochs_and_partitions_from_share_group_describe():
    """Every answer the lab's share scenario got, read by us, says what Kafka's Admin client read from the same
    bytes (truth.jsonl's describe events): the members, their epochs and partitions."""
    answers = [e["response"] for e in exchanges("share", "ShareGroupDescribe")]
    described = [d for body in answers for d in describe.described_share(body)]
    ok = [d for d in described if d.error is None]
    assert ok and all(d.kind == "share" and d.protocol == "simple" and d.epoch > 0 for d in ok)
    assert all(m.epoch <= d.epoch for d in ok for m in d.members)
    assert {tp.rsplit("-", 1)[0] for d in ok for m in d.members for tp in m.assigned} == {"lab-share-topic"}
    # asked before the group was loaded (the broker's own text), or before it existed
    errors = [d.error for d in described if d.error]
    assert errors and set(errors) <= {"The coordinator is loading and hence can't process requests.",
                                      "Group lab-share not found."}
    truth = admin_described(LAB / "share", "lab-share")
    seen = [watched(d.to_json()) for d in ok]
    assert any(len(t) == 2 for t in truth) and all(t in seen for t in truth)


def test_streams_groups_members_epochs_and_tasks_from_streams_group_describe():
    """The same for the streams scenario: each member's epoch and its active, standby and warm-up tasks per
    subtopology are what the Admin client read (truth.jsonl's streams_describe events); the group's topology
    epoch and assignor too."""
    answers = [e["response"] for e in exchanges("streams-group", "StreamsGroupDescribe")]
    described = [d for body in answers for d in describe.described_streams(body)]
    ok = [d for d in described if d.error is None]
    assert ok and all(d.kind == "streams" and d.topology_epoch == 0 and d.protocol == "sticky" for d in ok)
    assert all(m.tasks is not None and m.topology_epoch == 0 and m.process_id and not m.assigned
               for d in ok for m in d.members)
    # asked before the group was loaded (no text given: the error's name), then before it existed
    assert {d.error for d in described if d.error} == {"COORDINATOR_LOAD_IN_PROGRESS",
                                                       "Group lab-wordcount-streams not found."}
    truth = admin_described(LAB / "streams-group", "lab-wordcount-streams")
    seen = [watched(d.to_json()) for d in ok]
    assert any(m["standby"] for t in truth for m in t.values())  # the scenario runs with one standby replica
    assert all(t in seen for t in truth)

@pytest.mark.parametrize("api", [describe.SHARE_GROUP_DESCRIBE, describe.STREAMS_GROUP_DESCRIBE],
                         ids=lambda a: a.name)
def test_share_and_streams_requests_read_back_as_written(api):
    """Each version our spec reads: the request decodes to the groups asked about, nothing else asked for;
    at the version the lab's Admin used, the group ids are the ones it sent."""
    for version in range(api.oldest, api.newest + 1):
        body = describe.request(api, version, ["g1", "g2"])
        expected = {"groupIds": ["g1", "g2"], "includeAuthorizedOperations": False}
        if api is describe.STREAMS_GROUP_DESCRIBE and version >= 1:
            expected["includeTopologyDescription"] = False
        assert BODIES.decode(f"{api.name}Request", body, version) == expected
    scenario = "share" if api is describe.SHARE_GROUP_DESCRIBE else "streams-group"
    sent = exchanges(scenario, api.name)[0]
    ours = BODIES.decode(f"{api.name}Request", describe.request(api, sent["apiVersion"], sent["request"]["groupIds"]),
                         sent["apiVersion"])
    assert ours == {**sent["request"], **{k: False for k in sent["request"] if k.startswith("include")}}


class _Broker(KafkaSource):
    """A KafkaSource whose cluster is the lab's recorded answers: only the routing of describe() is real."""

    def __init__(self, speaks: set[int], answers: dict[str, list[dict]]) -> None:
        self.speaks, self.answers, self.sent = speaks, answers, []

    def version(self, api):
        return api.newest if api.key in self.speaks else None

    def brokers(self):
        return [1]

    def send(self, api, groups=None, node=None):
        self.sent.append((api.name, groups))
        if self.version(api) is None:
            return None
        if api is describe.LIST_GROUPS:
            return {"errorCode": 0, "groups": [{"groupId": "lab-share", "groupType": "share", "groupState": "Stable"},
                                               {"groupId": "lab-wordcount-streams", "groupType": "streams",
                                                "groupState": "Stable"}]}
        if api is describe.FIND_COORDINATOR:
            return {"coordinators": [{"key": g, "nodeId": 1, "errorCode": 0} for g in groups]}
        return self.answers[api.name][-1]


def _answers() -> dict[str, list[dict]]:
    return {api: [e["response"] for e in exchanges(scenario, api) if e["response"]["groups"][0]["members"]]
            for scenario, api in (("share", "ShareGroupDescribe"), ("streams-group", "StreamsGroupDescribe"))}


def test_share_and_streams_groups_are_described_where_the_broker_speaks_their_describe():
    source = _Broker({16, 10, 77, 89}, _answers())
    share, streams = source.describe()
    assert (share.kind, streams.kind) == ("share", "streams") and share.members and streams.members
    assert share.note is None and streams.note is None and streams.topology_epoch == 0
    assert ("ShareGroupDescribe", ["lab-share"]) in source.sent
    assert ("StreamsGroupDescribe", ["lab-wordcount-streams"]) in source.sent


def test_a_broker_without_their_describe_leaves_them_listed_and_says_why():
    source = _Broker({16, 10}, _answers())
    share, streams = source.describe()
    assert share.members is None and share.state == "Stable" and "ShareGroupDescribe" in share.note
    assert streams.members is None and "StreamsGroupDescribe" in streams.note
    assert [name for name, _ in source.sent] == ["ListGroups"]  # not even a coordinator asked for
    core = LiveTimeline()
    [event] = core.on_description(share, 0.0)
    assert event.detail["note"] == share.note and event.detail["members"] is None
