"""KIP-429 (section 6): protocol selection, the leader's cooperative validation per release, member changes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.rebalance_protocol import (
    Assignor,
    RebalanceProtocol,
    choose_rebalance_protocol,
    group_change,
    handed_over_while_claimed,
    member_change,
    rebalance_protocol_for_id,
    validate_cooperative_assignment,
)
from kafka_meta.negotiation.upgrade_from import streams_assignor

E, C = RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE


@pytest.mark.parametrize(("release", "assignors", "protocol"), [
    ("3.9", ["range", "cooperative-sticky"], E),
    ("3.9", ["cooperative-sticky", "range"], E),
    ("3.9", ["cooperative-sticky"], C),
    ("2.4", ["org.apache.kafka.clients.consumer.CooperativeStickyAssignor"], C),
    ("3.9", ["roundrobin", "sticky"], E),
    ("2.3", ["range"], E),
])
def test_choice(release, assignors, protocol):
    assert choose_rebalance_protocol(release, assignors).protocol is protocol


def test_streams_assignor_on_4_0_is_cooperative():
    assert choose_rebalance_protocol("4.0", [streams_assignor("4.0")]).protocol is C
    assert choose_rebalance_protocol("3.9", [streams_assignor("3.9", "2.3")]).protocol is E


def test_assignors_without_a_common_protocol_fail_at_startup():
    choice = choose_rebalance_protocol("3.9", ["range", Assignor("coop-only", (C,))])
    assert choice.protocol is None
    assert choice.failure.exception == "IllegalArgumentException"


def test_cooperative_sticky_does_not_exist_before_2_4():
    choice = choose_rebalance_protocol("2.3", ["cooperative-sticky"])
    assert choice.protocol is None and choice.failure.exception == "ConfigException"


def test_unknown_assignor_needs_a_description():
    with pytest.raises(NegotiationError):
        choose_rebalance_protocol("3.9", ["my-assignor"])


OWNED = {"a": {("t", 0), ("t", 1)}, "b": {("t", 2)}}
MOVES_CLAIMED = {"a": {("t", 0)}, "b": {("t", 1), ("t", 2)}}   # t-1 goes to b while a still owns it
WITHHELD = {"a": {("t", 0)}, "b": {("t", 2)}}                   # t-1 left unassigned for the follow-up


@pytest.mark.parametrize(("release", "assignor", "runs"), [
    ("2.3", "range", False),                       # no KIP-429
    ("2.4", "cooperative-sticky", True),
    ("2.8.1", "cooperative-sticky", True),
    ("2.8.2", "cooperative-sticky", False),        # KAFKA-13406
    ("2.8.2", "my-coop", True),
    ("3.0.0", "cooperative-sticky", True),         # 3.0.0 was cut before the fix
    ("3.0.1", "cooperative-sticky", False),
    ("3.1", "cooperative-sticky", False),
    ("3.9", "stream", True),
])
def test_validation_by_leader_release(release, assignor, runs):
    v = validate_cooperative_assignment(release, C, assignor, OWNED, MOVES_CLAIMED)
    assert v.conflicts == {("t", 1)}
    assert v.runs is runs
    assert (v.failure is not None) is runs
    if runs:
        assert v.failure.exception == "IllegalStateException"
    assert validate_cooperative_assignment(release, C, assignor, OWNED, WITHHELD).accepted


def test_an_eager_leader_does_not_validate():
    assert validate_cooperative_assignment("3.9", E, "my-coop", OWNED, MOVES_CLAIMED).runs is False


def test_member_changes_and_followup():
    change = group_change({"a": C, "b": C}, OWNED, WITHHELD)
    assert change.members["a"].revoked == {("t", 1)}
    assert change.members["a"].kept == {("t", 0)}
    assert change.members["b"].added == frozenset()
    assert change.followup_requested_by == ("a",)
    assert change.awaiting_followup == {("t", 1)}
    eager = member_change(E, {("t", 0)}, {("t", 5)})
    assert eager.revoked_before_join == {("t", 0)} and eager.revoked == frozenset() and not eager.rejoins


partitions = st.sets(st.tuples(st.sampled_from("xy"), st.integers(0, 5)), max_size=8)


@given(st.dictionaries(st.sampled_from("abc"), partitions, min_size=1),
       st.dictionaries(st.sampled_from("abc"), partitions, min_size=1))
def test_conflict_means_someone_else_still_claims_it(owned, assigned):
    conflicts = handed_over_while_claimed(owned, assigned)
    for tp in conflicts:
        gainers = [m for m in assigned if tp in assigned[m] and tp not in owned.get(m, set())]
        losers = [m for m in owned if tp in owned[m] and tp not in assigned.get(m, set())]
        assert gainers and losers
    # removing every conflicting partition from the gainers makes the assignment valid
    cleaned = {m: {tp for tp in ps if tp not in conflicts or tp in owned.get(m, set())} for m, ps in assigned.items()}
    assert not handed_over_while_claimed(owned, cleaned)


def test_protocol_ids_as_kafkas_for_id():
    # ConsumerPartitionAssignor.RebalanceProtocol.forId, and its refusal word for word (checked against Kafka 4.4
    # through the peer: tests/test_conformance_negotiation.py)
    assert rebalance_protocol_for_id(0) is E and rebalance_protocol_for_id(1) is C
    refused = rebalance_protocol_for_id(-1)
    assert not isinstance(refused, RebalanceProtocol)
    assert (refused.exception, refused.reason) == ("IllegalArgumentException", "Unknown rebalance protocol id: -1")
    with pytest.raises(NegotiationError):
        rebalance_protocol_for_id(128)      # not a byte: no Kafka sends it
