"""upgrade.from per release (section 5.2): accepted values, their effect, and the errors Kafka gives."""

from __future__ import annotations

import pytest

from kafka_meta.negotiation.rebalance_protocol import RebalanceProtocol, choose_rebalance_protocol
from kafka_meta.negotiation.upgrade_from import accepted_values, decide_upgrade_from, streams_assignor

E, C = RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE


@pytest.mark.parametrize(("release", "value", "accepted"), [
    # the config does not exist before the KAFKA-6054 backports
    ("0.10.2.1", "0.10.0", None), ("0.10.2.2", "0.10.0", True), ("0.10.2.2", "0.10.1", False),
    ("1.0.1", "0.10.0", None), ("1.0.2", "0.10.0", True), ("1.1.0", "0.10.0", None), ("1.1.1", "0.10.0", True),
    # KAFKA-6054 reached the 0.11.0 branch in March 2018 (commit 13dbcad9bb2): 0.11.0.3, not 0.11.0.2; Kafka's
    # 2.4 upgrade test lists 0.11.0.3 among backward_compatible_metadata_2_versions for upgrade.from=0.10.0
    ("0.11.0.2", "0.10.0", None), ("0.11.0.3", "0.10.0", True), ("0.11.0.3", "0.10.1", False),
    ("2.0", "1.1", True), ("2.3", "2.0", False), ("2.4", "2.3", True), ("2.4", "2.4", False),
    ("3.2", "2.3", True), ("3.2", "2.4", False), ("3.3", "3.2", True), ("3.3", "3.3", False),
    ("3.4", "3.3", True), ("3.5", "3.4", True), ("3.5", "3.5", False),
    # 3.6.2 added 3.5; 3.6.0 and 3.6.1 did not
    ("3.6.0", "3.5", False), ("3.6.1", "3.5", False), ("3.6.2", "3.5", True), ("3.6.2", "3.6", False),
    ("3.7", "3.6", True), ("3.7", "3.7", False), ("3.8", "3.7", True), ("3.9", "3.8", True), ("3.9", "3.9", False),
    ("4.0", "3.9", True), ("4.0", "4.0", False), ("4.1", "4.0", True),
    ("4.2", "4.1", True), ("4.3", "4.2", True), ("4.4", "4.3", True), ("4.4", "4.4", False),
])
def test_accepted_values(release, value, accepted):
    values = accepted_values(release)
    if accepted is None:
        assert values is None
        d = decide_upgrade_from(release, value)
        assert d.ignored and not d.accepted and d.failure is None
    else:
        assert (value in values) is accepted


@pytest.mark.parametrize(("release", "value", "version", "protocols"), [
    ("0.10.2.2", "0.10.0", 1, (E,)),
    ("1.1.1", None, 2, (E,)),
    ("2.0", None, 3, (E,)),
    ("2.3", "0.10.0", 1, (E,)),
    ("2.3", "1.1", 2, (E,)),
    ("2.4", None, 5, (E, C)),
    ("2.4", "0.10.0", 1, (E,)),
    ("2.4", "0.11.0", 2, (E,)),
    ("2.4", "2.3", 5, (E,)),          # no version override, but EAGER
    ("3.9", "2.0", 11, (E,)),
    ("3.9", "2.4", 11, (E, C)),       # values from 2.4 up change neither
    ("3.9", "3.8", 11, (E, C)),
    ("4.0", None, 11, (C,)),
    ("4.0", "3.9", 11, (C,)),
    ("4.2", "2.4", 11, (C,)),
])
def test_effect(release, value, version, protocols):
    d = decide_upgrade_from(release, value)
    assert d.accepted and d.failure is None
    assert d.subscription_version == version
    assert set(d.supported_protocols) == set(protocols)
    assert d.protocol is max(protocols)
    choice = choose_rebalance_protocol(release, [streams_assignor(release, value)])
    assert choice.protocol is d.protocol


@pytest.mark.parametrize(("release", "value", "raised_by"), [
    ("2.3", "2.0", "StreamsConfig"),
    ("3.9", "3.9", "StreamsConfig"),
    ("3.6.1", "3.5", "StreamsConfig"),
    # 4.0 and 4.1 accept the eager-era values in StreamsConfig but the assignor refuses them
    ("4.0", "0.10.0", "StreamsPartitionAssignor (AssignorConfiguration)"),
    ("4.0", "2.3", "StreamsPartitionAssignor (AssignorConfiguration)"),
    ("4.1", "1.1", "StreamsPartitionAssignor (AssignorConfiguration)"),
    # 4.2 removed them from the list
    ("4.2", "2.3", "StreamsConfig"),
    ("4.2", "0.10.0", "StreamsConfig"),
    ("4.4", "4.4", "StreamsConfig"),
])
def test_rejected_values_give_the_release_s_config_exception(release, value, raised_by):
    d = decide_upgrade_from(release, value)
    assert not d.accepted and not d.ignored
    assert d.subscription_version is None
    assert d.failure.exception == "ConfigException"
    assert d.failure.raised_by == raised_by
    assert value in str(d.failure)


def test_4_1_vs_4_2_boundary_for_eager_values():
    assert "2.3" in accepted_values("4.1")
    assert "2.3" not in accepted_values("4.2")
    assert "2.4" in accepted_values("4.2")
