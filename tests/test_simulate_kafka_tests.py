"""Kafka's Streams upgrade system tests replayed (apache/kafka tests/kafkatest/tests/streams/streams_upgrade_test.py
on branch 4.2 as of May 2026, commit 18d5ecd, at the 2024 trunk, commit 1eb7644, and on older branches, with
streams_cooperative_rebalance_upgrade_test.py of the 2024 trunk; versions from tests/kafkatest/version.py beside
them).

``test_rolling_upgrade_with_2_bounces`` expects, after every bounce of both rolling bounces, each of the three
instances to log "processed [0-9]* records from topic=data" and none to fail with "unable to decode
subscription data: version=2"; ``test_version_probing_upgrade`` expects the bounced instance to probe while old
ones remain ("Sent a version 12 subscription and got version 11 assignment back (successful version probing)"),
the others to upgrade at the last bounce ("... end of rolling upgrade. Upgrading subscription metadata version
to 12"), synchronized generations after every bounce, and nobody upgrading early.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from kafka_meta.simulate.kafka_tests import (
    BACKWARD_COMPATIBLE_METADATA_2_VERSIONS_2_4,
    COOPERATIVE,
    EAGER_VERSIONS,
    FK_JOIN_VERSIONS,
    FK_JOIN_VERSIONS_4_2,
    METADATA_1_VERSIONS,
    METADATA_2_VERSIONS,
    METADATA_2_VERSIONS_2_4,
    METADATA_2_VERSIONS_4_2,
    METADATA_3_OR_HIGHER_VERSIONS_2_4,
    METADATA_UPGRADE,
    SIMPLE,
    STATE_UPDATER,
    TWO_BOUNCES,
    VERSION_PROBING,
    Case,
    cases,
    render,
    replay,
)
from kafka_meta.simulate.scenario import Bounce


def test_the_matrices_are_kafkas():
    trunk = cases(0, ("trunk-2024",))
    # metadata_1_versions, metadata_2_versions (with 2.4 - 3.3 moved there for KAFKA-14646), fk_join_versions
    assert [c.from_version for c in trunk if c.test == TWO_BOUNCES] == [
        *METADATA_1_VERSIONS, *METADATA_2_VERSIONS, *FK_JOIN_VERSIONS]
    # and the cooperative test of the same commit: every eager release, two bounces
    assert [c.from_version for c in trunk if c.test == COOPERATIVE] == list(EAGER_VERSIONS)
    assert len(trunk) == 1 + 14 + 5 + 10 + 1 and trunk[-1].test == VERSION_PROBING
    latest = cases(0, ("4.2",))
    # 2026: no release before 2.4 (Kafka 4.0 dropped eager rebalancing), foreign keys from 3.4 to 4.1, and the
    # state-updater test's one rolling bounce, downgrade and bounce onto the same code included
    assert [c.from_version for c in latest if c.test == TWO_BOUNCES] == [*METADATA_2_VERSIONS_4_2,
                                                                        *FK_JOIN_VERSIONS_4_2]
    assert [(c.from_version, c.to_version) for c in latest if c.test == STATE_UPDATER] == [
        ("3.2.3", "4.2.1"), ("4.2.1", "4.2.1"), ("4.2.1", "3.2.3"), ("4.2.1", "4.2.1")]
    assert all(len(c.orders) == 1 for c in latest if c.test == STATE_UPDATER)
    assert latest[0].scenario().steps[0].upgrade_from == "2.4" and latest[-1].to_version == "4.2.1+1"
    # the first bounce sets upgrade.from = from_version[:-2], as the test computes it
    first = trunk[0].scenario().steps[0]
    assert isinstance(first, Bounce) and first.upgrade_from == "0.10.0" and first.release == "3.9"
    branch = cases(0, ("2.4",))
    simple = [(c.from_version, c.to_version) for c in branch if c.test == SIMPLE]
    assert len(simple) == 5 * 4 and ("1.1.1", "0.10.1.1") in simple      # downgrades too
    assert {c.from_version for c in branch if c.test == SIMPLE} == set(METADATA_2_VERSIONS_2_4)
    metadata = {(c.from_version, c.to_version) for c in branch if c.test == METADATA_UPGRADE}
    assert metadata == ({("0.10.0.1", b) for b in BACKWARD_COMPATIBLE_METADATA_2_VERSIONS_2_4}
                        | {(a, b) for a in ("0.10.0.1", *METADATA_2_VERSIONS_2_4)
                           for b in METADATA_3_OR_HIGHER_VERSIONS_2_4})
    assert branch[-1].test == VERSION_PROBING and branch[-1].to_version == "2.4.1+1"
    # the branches' own lists: 3.6 joins foreign keys from 3.4.1 and 3.5.2 and runs as 3.6.2, which is the
    # first 3.6 release to accept upgrade.from=3.5
    fk_3_6 = [c for c in cases(0, ("3.6",)) if c.variant == "fk_join"]
    assert [(c.from_version, c.to_version) for c in fk_3_6] == [("3.4.1", "3.6.2"), ("3.5.2", "3.6.2")]
    assert {c.to_version for c in cases(0, ("2.8",)) if c.test == METADATA_UPGRADE} == {"2.8.2"}
    assert all(sorted(order) == ["processor1", "processor2", "processor3"] for c in trunk + branch
               for order in c.orders)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_case_meets_kafkas_expectations(seed):
    reports = [replay(case) for case in cases(seed)]
    # 4.2 22, trunk 31, 3.7 19, 3.6 18, 3.4 16, 3.0 7, 2.8 7, 2.4 55 (each with its version-probing test)
    assert len(reports) == 175
    assert all(r.passed for r in reports), render([r for r in reports if not r.passed])
    for r in reports:
        for bounce in r.bounces:
            # every instance processes records after every bounce, on one generation
            assert bounce.stable and all(s.owns not in ("", "-") for s in bounce.instances.values())
            assert len({s.generation for s in bounce.instances.values()}) == 1


def test_what_each_bounce_reports():
    by_version = {r.case.from_version: r for r in (replay(c) for c in cases(0, ("trunk-2024",)))}
    # from 0.10.0: the first bounce keeps everybody on v1 EAGER (upgrade.from=0.10.0), the second moves them
    # to v11 COOPERATIVE one by one, with the old v1 leader answering until the last bounce
    old = by_version["0.10.0.1"]
    assert [sorted({s.sent for s in b.instances.values()}) for b in old.bounces] == [
        ["v1"], ["v1"], ["v1"], ["v1", "v11"], ["v1", "v11"], ["v11"]]
    assert {s.protocol for s in old.bounces[2].instances.values()} == {"EAGER"}
    assert [b.generation_step for b in old.bounces] == [1] * 6
    # from 2.4: upgrade.from=2.4 does not hold 3.9 code back, so each first-round bounce probes (two generations)
    # and the last one moves everybody to v11
    mid = by_version["2.4.1"]
    assert [b.generation_step for b in mid.bounces] == [2, 2, 2, 1, 1, 1]
    assert {s.sent for s in mid.bounces[2].instances.values()} == {"v11"}
    # 3.2 and later already speak 11: one generation per bounce, nothing to negotiate
    assert [b.generation_step for b in by_version["3.8.0"].bounces] == [1] * 6
    probing = next(r for r in by_version.values() if r.case.test == VERSION_PROBING)
    assert [b.generation_step for b in probing.bounces] == [2, 2, 2]
    assert {s.sent for s in probing.bounces[-1].instances.values()} == {"v12"}
    # the 2.4 branch's own probing test ends on its future version 6
    branch = replay(cases(0, ("2.4",))[-1])
    assert branch.passed and {s.sent for s in branch.bounces[-1].instances.values()} == {"v6"}


def test_skipping_upgrade_from_fails_as_kafka_guards_against():
    # the failure the test greps the other instances' stderr for: an old leader cannot read the new subscription
    order = ("processor1", "processor2", "processor3")
    case = Case("trunk-2024", TWO_BOUNCES, "0.10.1.1", "3.9", "metadata_2", (order, order))
    shortcut = replace(case.scenario(), steps=tuple(Bounce(p, release="3.9", upgrade_from=None) for p in order))
    report = replay(case, shortcut)
    assert not report.passed
    assert any("TaskAssignmentException" in p and "unable to decode subscription data" in p for p in report.problems)


def test_0_11_0_2_would_break_the_2_4_matrix():
    # the replay is a check of the rules: 0.11.0.2 predates the upgrade.from backport, so the 2.4 test's
    # metadata_1 -> 0.11.0.x case only works from 0.11.0.3, the version Kafka's matrix names
    order = ("processor1", "processor2", "processor3")
    case = Case("2.4", METADATA_UPGRADE, "0.10.0.1", "0.11.0.2", "backward_compatible_metadata_2", (order, order))
    report = replay(case)
    assert not report.passed and any("TaskAssignmentException" in p for p in report.problems)
    assert replay(replace(case, to_version="0.11.0.3")).passed


def test_the_cooperative_test():
    by_version = {r.case.from_version: r for r in (replay(c) for c in cases(0, ("trunk-2024",)))
                  if r.case.test == COOPERATIVE}
    # the first bounce holds the new code to EAGER ("Eager rebalancing protocol is enabled now for upgrade from
    # 2.3"), the second lets each instance go COOPERATIVE; below 2.0 the first bounce also keeps version 1 or 2
    mid = by_version["2.3.1"]
    assert [b.instances[b.bounced].protocol for b in mid.bounces] == ["EAGER"] * 3 + ["COOPERATIVE"] * 3
    assert {s.sent for s in by_version["0.10.0.1"].bounces[2].instances.values()} == {"v1"}
    assert {s.sent for s in by_version["1.1.1"].bounces[2].instances.values()} == {"v2"}


def test_the_cooperative_test_cannot_pass_from_4_0_on():
    # why KAFKA-18839 deleted it: 4.0 and 4.1 refuse upgrade.from=2.3 in the assignor, 4.2 in StreamsConfig
    order = ("processor1", "processor2", "processor3")
    for new, raised_by in (("4.0", "AssignorConfiguration"), ("4.2.1", "StreamsConfig")):
        report = replay(Case("4.2", COOPERATIVE, "2.3.1", new, "eager", (order, order)))
        assert not report.passed
        assert "ConfigException" in report.bounces[0].failures[0] and raised_by in report.bounces[0].failures[0]
