"""The Streams member's rules (section 5.1 B): order of checks and how it rejoins, per member release."""

from __future__ import annotations

import pytest

from kafka_meta.negotiation.facts import StreamsAssignment
from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.streams_member import NO_FOLLOWUP_MS, Action, Rejoin, decide_member
from kafka_meta.streams.protocol import UNKNOWN


def asg(r, c=None, error=0, next_ms=None):
    return StreamsAssignment(r, UNKNOWN if c is None and r < 3 else (r if c is None else c), error, next_ms)


@pytest.mark.parametrize(("release", "u", "assignment", "action", "next_version", "rejoin", "applies"), [
    # downgrade: the member was ahead of the group
    ("2.3", 4, asg(3, 3), Action.DOWNGRADE, 3, Rejoin.VERSION_PROBING, False),
    ("2.4", 5, asg(4, 4), Action.DOWNGRADE, 4, Rejoin.VERSION_PROBING, True),
    ("2.5", 6, asg(4, 4), Action.DOWNGRADE, 4, Rejoin.VERSION_PROBING, True),
    ("2.6", 7, asg(6, 6), Action.DOWNGRADE, 6, Rejoin.IMMEDIATE, True),
    ("3.9", 11, asg(10, 10), Action.DOWNGRADE, 10, Rejoin.IMMEDIATE, True),
    # end of the rolling upgrade
    ("2.3", 3, asg(3, 4), Action.UPGRADE, 4, Rejoin.NEXT_REBALANCE, True),
    ("2.4", 4, asg(4, 5), Action.UPGRADE, 5, Rejoin.VERSION_PROBING, True),
    ("2.6.1", 7, asg(7, 8), Action.UPGRADE, 8, Rejoin.IMMEDIATE, True),
    # 2.0-2.3 check r < u first, 2.4+ check c > u first
    ("2.3", 4, asg(3, 4), Action.DOWNGRADE, 4, Rejoin.VERSION_PROBING, False),
    ("3.9", 10, asg(9, 11), Action.UPGRADE, 11, Rejoin.IMMEDIATE, True),
    # r < u with c == u still "switches" and rejoins (2.4+)
    ("3.9", 10, asg(9, 10), Action.DOWNGRADE, 10, Rejoin.IMMEDIATE, True),
    # nothing to change
    ("3.9", 11, asg(11, 11), Action.ACCEPT, 11, Rejoin.NONE, True),
    ("3.9", 2, asg(2), Action.ACCEPT, 2, Rejoin.NONE, True),
    ("3.9", 11, asg(2), Action.ACCEPT, 11, Rejoin.NONE, True),       # r < 3: no version change
    ("1.1", 2, asg(1), Action.ACCEPT, 2, Rejoin.NONE, True),
])
def test_version_steps(release, u, assignment, action, next_version, rejoin, applies):
    d = decide_member(release, u, assignment)
    assert (d.action, d.next_version, d.rejoin, d.applies_assignment) == (action, next_version, rejoin, applies)
    assert d.failure is None


@pytest.mark.parametrize(("release", "rejoin", "applies"), [
    ("2.1.1", Rejoin.NEXT_REBALANCE, True),
    ("2.2.1", Rejoin.NEXT_REBALANCE, True),
    ("2.2.2", Rejoin.VERSION_PROBING, False),     # KAFKA-8649: the end of the upgrade is a probing rejoin
    ("2.3.0", Rejoin.NEXT_REBALANCE, True),
    ("2.3.1", Rejoin.VERSION_PROBING, False),
    ("2.4", Rejoin.VERSION_PROBING, True),
    ("2.6", Rejoin.IMMEDIATE, True),
])
def test_kafka_8649_members_rejoin_at_the_end_of_the_upgrade_from_2_2_2_and_2_3_1(release, rejoin, applies):
    d = decide_member(release, 3, asg(3, 4))           # probed down to 3; now every member supports 4
    assert (d.action, d.next_version, d.rejoin, d.applies_assignment) == (Action.UPGRADE, 4, rejoin, applies)
    assert d.rebalances is (rejoin is not Rejoin.NEXT_REBALANCE)


@pytest.mark.parametrize("release", ["2.2.2", "2.3.1"])
def test_kafka_8649_members_check_the_upgrade_first_and_skip_the_assignment(release):
    d = decide_member(release, 4, asg(3, 4))            # the last member bounced: ahead of the group
    assert (d.action, d.next_version, d.applies_assignment) == (Action.DOWNGRADE, 4, False)
    assert decide_member(release, 4, asg(4, 4)).action is Action.ACCEPT


def test_error_code_first_and_no_version_change():
    d = decide_member("3.9", 11, asg(10, 12, error=4))   # c > M would be fatal, but the error code comes first
    assert d.action is Action.ERROR and d.error_code == 4 and d.next_version == 11 and not d.applies_assignment


@pytest.mark.parametrize(("release", "u", "assignment", "step", "exception"), [
    ("2.7", 8, asg(9, 9, error=4), "2", "TaskAssignmentException"),   # undecodable: the code is not read
    ("2.0", 3, asg(4, 4), "2", "TaskAssignmentException"),
    ("2.3", 3, asg(3, 3), None, None),
    ("3.9", 10, asg(11, 11), "3", "TaskAssignmentException"),
    ("2.3", 3, asg(4, 4), "3", "IllegalStateException"),
    ("2.1", 3, asg(4, 4), "3", "IllegalStateException"),
    ("2.4", 4, asg(4, 6), "4", "TaskAssignmentException"),
])
def test_failures(release, u, assignment, step, exception):
    d = decide_member(release, u, assignment)
    if step is None:
        assert d.failure is None
        return
    assert d.action is Action.FAIL and d.step == step and d.failure.exception == exception


def test_2_3_member_does_not_check_c_above_its_latest_and_then_cannot_subscribe():
    d = decide_member("2.0", 3, asg(3, 4))     # a 2.1+ leader writes its own latest (4) as c
    assert d.action is Action.UPGRADE and d.next_version == 4 and d.rejoin is Rejoin.NEXT_REBALANCE
    assert d.next_subscription_failure.exception == "IllegalStateException"
    assert "latest supported version 3" in d.next_subscription_failure.reason


@pytest.mark.parametrize(("release", "next_ms", "rejoin"), [
    ("2.5", 0, Rejoin.NONE),
    ("2.6", 0, Rejoin.IMMEDIATE),
    ("2.6", NO_FOLLOWUP_MS, Rejoin.NONE),
    ("3.9", 1_700_000_000_000, Rejoin.SCHEDULED),
    ("4.4", -5, Rejoin.SCHEDULED),       # a time already past is still a schedule (Kafka 4.4, through the peer)
])
def test_followup_from_next_rebalance_ms(release, next_ms, rejoin):
    from kafka_meta.negotiation.streams_versions import latest_supported_version

    L = latest_supported_version(release)
    d = decide_member(release, L, StreamsAssignment(L, L, 0, next_ms))
    assert d.rejoin is rejoin
    if rejoin is Rejoin.SCHEDULED:
        assert d.probing_rebalance_at_ms == next_ms


def test_missing_own_endpoint_rejoins_from_2_6():
    assert decide_member("2.6", 7, asg(7, 7), own_endpoint_missing=True).rejoin is Rejoin.IMMEDIATE
    assert decide_member("2.5", 6, asg(6, 6), own_endpoint_missing=True).rejoin is Rejoin.NONE


def test_a_member_cannot_have_sent_a_version_its_code_lacks():
    with pytest.raises(NegotiationError):
        decide_member("2.3", 5, asg(4, 4))


def test_future_code_member_by_its_latest_version():
    A = StreamsAssignment
    # streams_upgrade_test.py, test_version_probing_upgrade (apache/kafka tests/kafkatest/tests/streams/):
    # while old instances remain the bounced future instance logs "Sent a version 12 subscription and got
    # version 11 assignment back (successful version probing). Downgrade subscription metadata to commonly
    # supported version 11 and trigger new rebalance."
    d = decide_member("latest+1", 12, A(11, 11))
    assert (d.action, d.next_version, d.rejoin, d.latest) == (Action.DOWNGRADE, 11, Rejoin.IMMEDIATE, 12)
    # after the last bounce the others log "Sent a version 11 subscription and group's latest commonly supported
    # version is 12 (successful version probing and end of rolling upgrade). Upgrading subscription metadata
    # version to 12 for next rebalance."
    d = decide_member(12, 11, A(11, 12))
    assert (d.action, d.next_version, d.rejoin) == (Action.UPGRADE, 12, Rejoin.IMMEDIATE)
    # a 3.9 member cannot be told 12 is common (c > M is fatal from 2.4), future code can
    assert decide_member("3.9", 11, A(11, 12)).action is Action.FAIL
    assert decide_member(13, 12, A(12, 12)).action is Action.ACCEPT
    with pytest.raises(NegotiationError):
        decide_member("3.9", 12, A(11, 11))
