"""Static membership (KIP-345): what a restarted member's JoinGroup costs the group.

Kafka's rule (apache/kafka group-coordinator GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin):
a known group.instance.id joining a Stable group replaces the old member id and completes the join without a
rebalance unless the selected protocol changes ("Static member which joins during Stable stage and doesn't
affect the selected protocol will not trigger a rebalance").
"""

from __future__ import annotations

import pytest

from kafka_meta.negotiation.explain import explain_restart
from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.static_membership import decide_restart, session_timeout_ms


def test_static_member_back_in_time_costs_nothing():
    d = decide_restart("3.9", "instance-a", downtime_ms=5_000)
    assert d.static and d.rebalances == 0 and d.keeps_assignment and not d.expired


def test_selected_protocol_change_rebalances():
    d = decide_restart("3.9", "instance-a", protocol_changes=True)
    assert d.rebalances == 1 and not d.keeps_assignment and "change of the group's selected protocol" in d.reason


@pytest.mark.parametrize(("release", "timeout"), [("2.8", 10_000), ("3.0", 45_000), ("4.4", 45_000)])
def test_session_expiry_by_client_default(release, timeout):
    # session.timeout.ms: 10 s until KIP-735 raised it to 45 s in 3.0
    assert session_timeout_ms(release) == timeout
    assert decide_restart(release, "a", downtime_ms=timeout - 1).rebalances == 0
    late = decide_restart(release, "a", downtime_ms=timeout)
    assert late.expired and late.rebalances == 2 and not late.keeps_assignment
    assert decide_restart(release, "a", downtime_ms=timeout, session_timeout=timeout + 1).rebalances == 0


def test_dynamic_and_pre_2_3_members_always_rebalance_and_bad_input_is_refused():
    assert decide_restart("3.9", None).rebalances == 1
    # group.instance.id arrived in 2.3 (KIP-345); an older consumer ignores the unknown config
    old = decide_restart("2.2", "a")
    assert not old.static and old.rebalances == 1 and "unknown to a 2.2.0 consumer" in old.reason
    with pytest.raises(NegotiationError):
        decide_restart("3.9", "a", downtime_ms=-1)


def test_explain_restart():
    e = explain_restart("3.9", "a", downtime_ms=1_000)
    assert e.summary.startswith("no rebalance: static member a rejoined within its session timeout")
    assert e.data == {"static": True, "expired": False, "rebalances": 0, "keepsAssignment": True}
    dynamic = explain_restart("3.9", None)
    assert dynamic.summary.startswith("one rebalance") and "group.instance.id" in dynamic.details[0]
