"""The consumer's side of a join (ConsumerCoordinator.onJoinPrepare / onJoinComplete / onLeavePrepare).

Expectations from apache/kafka clients/src/test/java/org/apache/kafka/clients/consumer/internals/
ConsumerCoordinatorTest.java, which runs every test under EAGER and COOPERATIVE and states the callbacks
through its helpers ``getRevoked`` (EAGER: everything owned; COOPERATIVE: owned - assigned) and ``getAdded``
(EAGER: everything assigned; COOPERATIVE: assigned - owned).
"""

from __future__ import annotations

import pytest

from kafka_meta.negotiation.consumer_member import (
    Callback,
    complete_join,
    describe_calls,
    prepare_join,
    prepare_leave,
)
from kafka_meta.negotiation.rebalance_protocol import RebalanceProtocol

EAGER, COOP = RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE
T1P, T2P = ("topic1", 0), ("topic2", 0)


def calls(result):
    return [(c.callback, c.partitions) for c in result]


@pytest.mark.parametrize("protocol", [EAGER, COOP])
def test_first_join_fires_no_revocation_and_assigns_everything(protocol):
    # testPatternJoinGroupLeader: "callback not triggered at all since there's nothing to be revoked";
    # assignedCount 1 with getAdded(owned = [], assigned)
    prep = prepare_join("3.9", protocol, (), ["topic1", "topic2"], generation=-1)
    assert prep.callbacks == () and prep.reported_owned == frozenset() and prep.reported_generation == -1
    done = complete_join(protocol, prep.owned, [T1P, T2P], ["topic1", "topic2"])
    assert calls(done.callbacks) == [(Callback.ASSIGNED, frozenset({T1P, T2P}))] and done.rejoin is None


@pytest.mark.parametrize(("protocol", "revoked", "added"), [
    (EAGER, {T1P}, {T1P}),          # getRevoked/getAdded under EAGER: all owned, all assigned
    (COOP, set(), set()),           # under COOPERATIVE: nothing revoked, onPartitionsAssigned with nothing new
])
def test_rejoin_with_the_same_assignment(protocol, revoked, added):
    # testRejoinGroup: a second join that hands back the same partition
    prep = prepare_join("3.9", protocol, [T1P], ["topic1", "otherTopic"], generation=1)
    done = complete_join(protocol, prep.owned, [T1P], ["topic1", "otherTopic"])
    fired = calls(prep.callbacks + done.callbacks)
    assert [(c, p) for c, p in fired if c is Callback.REVOKED and p] == ([(Callback.REVOKED, frozenset(revoked))]
                                                                        if revoked else [])
    assert fired[-1] == (Callback.ASSIGNED, frozenset(added))
    # what the JoinGroup reports as ownedPartitions: nothing under EAGER, what it keeps under COOPERATIVE
    assert prep.reported_owned == (frozenset() if protocol is EAGER else frozenset({T1P}))


def test_reset_generation_loses_partitions():
    # testIllegalGeneration: ILLEGAL_GENERATION resets the generation; the next poll reports lostCount 1, {t1p}
    prep = prepare_join("3.9", EAGER, [T1P], ["topic1"], generation=-1)
    assert calls(prep.callbacks) == [(Callback.LOST, frozenset({T1P}))] and prep.owned == frozenset()
    # before KIP-429 (2.4) there is no onPartitionsLost: every join revokes all
    old = prepare_join("2.3", EAGER, [T1P], ["topic1"], generation=-1)
    assert calls(old.callbacks) == [(Callback.REVOKED, frozenset({T1P}))] and old.reported_owned is None


def test_cooperative_member_revokes_topics_it_unsubscribed_and_reports_the_rest():
    prep = prepare_join("3.9", COOP, [T1P, T2P], ["topic1"], generation=4)
    assert calls(prep.callbacks) == [(Callback.REVOKED, frozenset({T2P}))]
    assert prep.reported_owned == frozenset({T1P}) and prep.reported_generation == 4
    assert prepare_join("3.3", COOP, [T1P], ["topic1"], generation=4).reported_generation is None  # protocol v1


def test_cooperative_handover_revokes_after_sync_and_rejoins():
    done = complete_join(COOP, [T1P, T2P], [T1P], ["topic1", "topic2"])
    assert describe_calls(done.callbacks) == "onPartitionsRevoked(topic2-0) onPartitionsAssigned(none)"
    assert done.rejoin and done.revoked == frozenset({T2P})
    eager = complete_join(EAGER, [], [T1P], ["topic1"])
    assert eager.rejoin is None and calls(eager.callbacks) == [(Callback.ASSIGNED, frozenset({T1P}))]


def test_assignment_outside_the_subscription_rejoins_without_callbacks():
    done = complete_join(COOP, [T1P], [T1P, T2P], ["topic1"])
    assert done.callbacks == () and done.rejoin == "assignment does not match the subscription"
    assert done.owned == frozenset({T1P})


def test_leave():
    # testUnsubscribeWithValidGeneration: leaving while a rebalance is in progress: lostCount 1, revokedCount 0
    assert calls(prepare_leave([T1P], 1, rebalance_in_progress=True)) == [(Callback.LOST, frozenset({T1P}))]
    assert calls(prepare_leave([T1P], 1)) == [(Callback.REVOKED, frozenset({T1P}))]
    assert prepare_leave([], 1) == ()
