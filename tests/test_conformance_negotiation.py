"""The version negotiation held to Kafka 4.4's own StreamsPartitionAssignor through the Java peer
(kafka_meta.testing.conformance.negotiation; docs/conformance.md, "Negotiation")."""

from __future__ import annotations

import pytest

from kafka_meta.negotiation import StreamsSubscription as S
from kafka_meta.negotiation import decide_leader
from kafka_meta.negotiation.upgrade_from import accepted_values
from kafka_meta.testing.conformance import negotiation, refusals
from kafka_meta.testing.conformance.negotiation_cases import LeaderCase, Member, MemberCase
from kafka_meta.testing.conformance.negotiation_sides import ours_leader, ours_member, theirs_leader, theirs_member
from kafka_meta.testing.conformance.peer import Peer

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def peer(lab):
    with Peer() as running:
        yield running


@pytest.mark.parametrize("seed", [0, 1])
def test_every_decision_is_kafkas(peer, seed):
    results = negotiation.run(peer, 250, None, seed)
    assert [r.type for r in results] == negotiation.types()
    for r in results:
        assert r.cases == 250 and r.unexplained == 0, (r.type, [(d.what, d.example) for d in r.differences])
        assert r.identical + r.both_refused == r.cases and r.both_refused == r.kafka_refusals
    leader, member, upgrade_from, protocol = results
    # the cases reach Kafka's refusals as well as its decisions
    assert 0 < leader.kafka_refusals < leader.cases and 0 < member.kafka_refusals < member.cases
    assert 0 < upgrade_from.kafka_refusals < upgrade_from.cases and 0 < protocol.kafka_refusals < protocol.cases


def test_types_select(peer):
    assert [r.type for r in negotiation.run(peer, 5, {"RebalanceProtocol.forId"}, 0)] == ["RebalanceProtocol.forId"]


def test_what_kafka_says(peer):
    # forId: Kafka's refusal, word for word
    assert peer.call("rebalance.protocol", protocolId=1).result == "COOPERATIVE"
    refused = peer.call("rebalance.protocol", protocolId=2).error
    # the peer says where it was thrown too: the classes of Kafka's code on the stack
    assert refused == ("IllegalArgumentException: Unknown rebalance protocol id: 2 "
                       "[thrown in ConsumerPartitionAssignor.RebalanceProtocol]")
    # the upgrade.from values 4.4 accepts are 2.4 - 4.3, and none of them changes what it sends
    refusal = refusals.THROWN_IN.sub("", peer.call("streams.configure", upgradeFrom="2.3").error)
    listed = set(refusal.split("String must be one of: ", 1)[1].split(", ")) - {"null"}
    assert listed == accepted_values("4.4")
    assert peer.call("streams.configure", upgradeFrom="2.4").result == {"subscriptionVersion": 11,
                                                                          "supportedProtocols": ["COOPERATIVE"]}


def test_a_probing_rebalance_as_both_sides_see_it(peer):
    case = LeaderCase(None, (Member("old", 11, 11), Member("new", 12, 12)))
    answer = peer.call("streams.leader", **{k: v for k, v in case.request().items() if k != "op"})
    assert theirs_leader(answer.result) == ours_leader(case)
    assert answer.result["stable"] is False                 # version probing: a follow-up rebalance is due
    assert decide_leader("4.4", [S("old", 11, 11), S("new", 12, 12)]).probing
    # the end of an upgrade on the member's side: at 10, told the whole group speaks 11, it moves up and rejoins
    member = MemberCase(None, 10, 10, 11, 0, None, "leader 4.4")
    answer = peer.call("streams.member", **{k: v for k, v in member.request().items() if k != "op"})
    assert theirs_member(answer.result) == ours_member(member)
    assert answer.result["nextVersion"] == 11 and answer.result["nextRebalanceMs"] == 0
