"""metadata.version (section 8.3): finalization, downgrades and broker registration per controller release."""

from __future__ import annotations

import pytest

from kafka_meta.negotiation.metadata_version import (
    BY_RELEASE,
    METADATA_VERSIONS,
    Cluster,
    Node,
    SupportedRange,
    UpgradeType,
    advertised_range,
    decide_broker_registration,
    decide_feature_update,
    describe_level,
    known_levels,
    latest_production_level,
    metadata_version,
)
from kafka_meta.negotiation.outcomes import NegotiationError

U, SAFE, UNSAFE = UpgradeType.UPGRADE, UpgradeType.SAFE_DOWNGRADE, UpgradeType.UNSAFE_DOWNGRADE


def cluster(release="3.9", current=14, broker_max=21, controller_max=21, **kw):
    return Cluster(release, SupportedRange(1, controller_max),
                   brokers=kw.pop("brokers", [Node(1, SupportedRange(1, broker_max)), Node(2, SupportedRange(1, 21))]),
                   current_level=current, **kw)


def test_table_matches_the_names():
    assert [mv.level for mv in METADATA_VERSIONS] == list(range(1, 35))
    assert metadata_version("3.7-IV0").level == 15 and metadata_version(21).release == "3.9-IV0"
    # wire-format notes 8.2: the levels 4.1 - 4.4 added and the 2026 trunk's 4.5-IV0
    assert [metadata_version(level).release for level in range(26, 35)] == [
        "4.1-IV0", "4.1-IV1", "4.2-IV0", "4.2-IV1", "4.3-IV0", "4.4-IV0", "4.4-IV1", "4.4-IV2", "4.5-IV0"]
    with pytest.raises(NegotiationError):
        metadata_version(0)
    with pytest.raises(NegotiationError):
        metadata_version("9.9-IV9")


def test_a_level_newer_than_the_table_is_named_not_refused():
    newer = metadata_version(99)
    assert newer.level == 99 and newer.release == "newer than known (after 4.5-IV0)" and newer.provisional
    assert describe_level(99) == "level 99, newer than any metadata.version kafka_meta knows (latest 34, 4.5-IV0)"
    assert describe_level(33) == "4.4-IV2 (33)" and describe_level(34) == "4.5-IV0 (34) (not production-ready)"
    # a controller that does not know a level refuses it (step 5) and says why, it does not crash
    d = decide_feature_update(cluster("4.4", current=33, broker_max=99, controller_max=99,
                                      brokers=[Node(1, SupportedRange(7, 99))]), 40, U)
    assert not d.allowed and d.step == "5" and "newer than any metadata.version kafka_meta knows" in d.reason


@pytest.mark.parametrize(("release", "level", "name"), [
    # MetadataVersion.latest() at the 3.3.0 - 3.6.2 tags, LATEST_PRODUCTION at 3.7.0 - 3.9.0 (apache/kafka
    # server-common/src/main/java/org/apache/kafka/server/common/MetadataVersion.java) and the 4.x branches
    ("3.3.0", 7, "3.3-IV3"), ("3.4", 8, "3.4-IV0"), ("3.5", 11, "3.5-IV2"), ("3.6.2", 14, "3.6-IV2"),
    ("3.7", 19, "3.7-IV4"), ("3.8", 20, "3.8-IV0"), ("3.9", 21, "3.9-IV0"), ("4.0", 25, "4.0-IV3"),
    ("4.1", 27, "4.1-IV1"), ("4.2", 29, "4.2-IV1"), ("4.3", 30, "4.3-IV0"), ("4.4", 33, "4.4-IV2"),
])
def test_latest_production_level_of_every_release(release, level, name):
    assert latest_production_level(release).level == level and latest_production_level(release).release == name
    assert level in known_levels(release) and level + 1 not in known_levels(release)


def test_advertised_range_is_minimum_to_latest_production():
    # the 2026 trunk with unstable versions disabled advertises 7 - 33 (wire-format notes 8.2)
    assert str(advertised_range("4.4")) == "7-33" and str(advertised_range("3.9")) == "1-21"
    node = Node(1, advertised_range("4.4"))
    assert decide_feature_update(cluster("4.4", current=30, brokers=[node], controller_max=33), 33, U).allowed
    refused = decide_feature_update(cluster("4.4", current=30, brokers=[node], controller_max=34), 34, U)
    assert not refused.allowed and refused.step == "3" and "broker 1 supports 7-33" in refused.reason


def test_upgrade_and_same_level():
    d = decide_feature_update(cluster(), 21, U)
    assert d.allowed and d.record == ("metadata.version", 21)
    assert decide_feature_update(cluster(current=21), 21, SAFE).allowed   # the current level with any known type


@pytest.mark.parametrize(("upgrade_type", "level", "step"), [(0, 21, "1"), (7, 21, "1"), (U, -1, "2")])
def test_early_refusals(upgrade_type, level, step):
    d = decide_feature_update(cluster(), level, upgrade_type)
    assert not d.allowed and d.step == step and d.error == "INVALID_UPDATE_VERSION"


def test_one_broker_blocks_and_fenced_brokers_count():
    d = decide_feature_update(cluster(brokers=[Node(1, SupportedRange(1, 21)), Node(2, SupportedRange(1, 20), True)]),
                              21, U)
    assert not d.allowed and d.step == "3" and "fenced broker 2" in d.reason
    d = decide_feature_update(cluster(brokers=[Node(1, SupportedRange(1, 21)), Node(3, None)]), 21, U)
    assert not d.allowed and "counts as 0-0" in d.reason


def test_controllers_and_voters_count_from_3_7_iv0():
    extra = {"controllers": [Node(3001, SupportedRange(1, 20))], "voters": [3000, 3001, 3002],
             "active_controller_id": 3000}
    below = decide_feature_update(cluster(current=14, **extra), 21, U)
    assert below.allowed           # at 3.6-IV2 only the active controller and the brokers are asked
    at = decide_feature_update(cluster(current=15, **extra), 21, U)
    assert not at.allowed and at.step == "3"
    assert any("controller 3001" in b for b in at.blockers)
    assert any("voter 3002" in b for b in at.blockers)


def test_direction_needs_the_right_type():
    assert decide_feature_update(cluster(current=20), 19, U).step == "4"
    assert decide_feature_update(cluster(current=14), 15, SAFE).step == "4"


@pytest.mark.parametrize(("current", "target", "kind", "allowed"), [
    (21, 18, SAFE, True),      # 3.9-IV0 -> 3.7-IV3: 3.7-IV4 .. 3.9-IV0 changed nothing
    (21, 18, UNSAFE, True),
    (21, 17, SAFE, True),      # (17, 21] = 3.7-IV3 .. 3.9-IV0: none changed the metadata
    (21, 16, SAFE, False),     # 3.7-IV2 changed the metadata
    (21, 16, UNSAFE, False),
    (13, 12, SAFE, False),     # 3.6-IV1 changed the metadata
])
def test_downgrade(current, target, kind, allowed):
    d = decide_feature_update(cluster(current=current), target, kind)
    changed = [mv.release for mv in METADATA_VERSIONS if target < mv.level <= current and mv.changes_metadata]
    assert d.allowed is (not changed) is allowed
    if not allowed:
        assert d.step == "5"
        assert ("not implemented" in d.reason) is (kind is UNSAFE)


def test_3_x_floor_and_zk_migration_vs_4_x():
    assert decide_feature_update(cluster(current=4), 3, SAFE).step in ("5",)
    d = decide_feature_update(cluster(current=8, zk_migration_in_progress=True), 14, U)
    assert not d.allowed and "ZooKeeper" in d.reason
    # 4.x: no ZK check; the floor comes from the controller's own range starting at 3.3-IV3
    c4 = Cluster("4.0", SupportedRange(7, 25), brokers=[Node(1, SupportedRange(7, 25))], current_level=8,
                 zk_migration_in_progress=True)
    assert decide_feature_update(c4, 22, U).allowed
    low = decide_feature_update(c4, 6, SAFE)
    assert not low.allowed and low.step == "3"


def test_unknown_level_for_the_controller_release():
    assert max(known_levels("3.8")) == BY_RELEASE["3.8-IV0"].level
    d = decide_feature_update(cluster(release="3.8", broker_max=25, controller_max=25), 21, U)
    assert not d.allowed and d.step == "5" and "not a metadata.version" in d.reason


def test_no_record_counts_as_level_1():
    c = Cluster("3.9", SupportedRange(1, 21), brokers=[Node(1, SupportedRange(1, 21))], current_level=None)
    assert c.level == 1
    assert decide_feature_update(c, 4, U).allowed


def test_broker_registration():
    mv21 = {"metadata.version": SupportedRange(1, 21)}
    assert decide_broker_registration("3.9", {"metadata.version": 21}, mv21).allowed
    refused = decide_broker_registration("3.9", {"metadata.version": 21}, {"metadata.version": SupportedRange(1, 20)})
    assert refused.error == "UNSUPPORTED_VERSION"
    # no metadata.version range: level 1 only on 3.x, an invalid registration on 4.x
    assert decide_broker_registration("3.9", {}, {}).allowed
    assert decide_broker_registration("3.9", {"metadata.version": 7}, {}).error == "UNSUPPORTED_VERSION"
    assert decide_broker_registration("4.0", {"metadata.version": 7}, {}).error == "INVALID_REGISTRATION"
    # a finalized feature the broker does not list counts as 0-0; level 0 means not finalized
    assert decide_broker_registration("3.9", {"metadata.version": 21, "group.version": 1},
                                      {"metadata.version": SupportedRange(1, 21)}).error == "UNSUPPORTED_VERSION"
    assert decide_broker_registration("3.9", {"metadata.version": 21, "group.version": 0},
                                      {"metadata.version": SupportedRange(1, 21)}).allowed


def test_other_features_stop_after_the_direction_check():
    # the ranges in a Cluster are the nodes' ranges for the feature being changed
    c = Cluster("4.0", SupportedRange(0, 1), brokers=[Node(1, SupportedRange(0, 1))], current_level=0)
    d = decide_feature_update(c, 1, U, feature="group.version")
    assert d.allowed and d.record == ("group.version", 1) and d.step == "4"
    unlisted = Cluster("4.0", SupportedRange(0, 1), brokers=[Node(1, None)], current_level=0)
    assert decide_feature_update(unlisted, 1, U, feature="group.version").step == "3"
    assert decide_feature_update(unlisted, 0, SAFE, feature="group.version").allowed
