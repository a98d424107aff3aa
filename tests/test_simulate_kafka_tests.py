"""Kafka's Streams upgrade system tests replayed (apache/kafka tests/kafkatest/tests/streams/streams_upgrade_test.py
at the 2024 trunk, commit 1eb7644; versions from tests/kafkatest/version.py there).

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
    FK_JOIN_VERSIONS,
    METADATA_1_VERSIONS,
    METADATA_2_VERSIONS,
    TWO_BOUNCES,
    VERSION_PROBING,
    Case,
    cases,
    render,
    replay,
)
from kafka_meta.simulate.scenario import Bounce


def test_the_matrix_is_kafkas():
    # metadata_1_versions, metadata_2_versions (with 2.4 - 3.3 moved there for KAFKA-14646), fk_join_versions
    all_cases = cases(0)
    assert [c.from_version for c in all_cases if c.test == TWO_BOUNCES] == [
        *METADATA_1_VERSIONS, *METADATA_2_VERSIONS, *FK_JOIN_VERSIONS]
    assert len(all_cases) == 1 + 14 + 5 + 1 and all_cases[-1].test == VERSION_PROBING
    # the first bounce sets upgrade.from = from_version[:-2], as the test computes it
    first = all_cases[0].scenario().steps[0]
    assert isinstance(first, Bounce) and first.upgrade_from == "0.10.0" and first.release == "3.9"
    assert all(sorted(order) == ["processor1", "processor2", "processor3"] for c in all_cases for order in c.orders)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_case_meets_kafkas_expectations(seed):
    reports = [replay(case) for case in cases(seed)]
    assert all(r.passed for r in reports), render([r for r in reports if not r.passed])
    for r in reports:
        for bounce in r.bounces:
            # every instance processes records after every bounce, on one generation
            assert bounce.stable and all(s.owns not in ("", "-") for s in bounce.instances.values())
            assert len({s.generation for s in bounce.instances.values()}) == 1


def test_what_each_bounce_reports():
    by_version = {r.case.from_version: r for r in (replay(c) for c in cases(0))}
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


def test_skipping_upgrade_from_fails_as_kafka_guards_against():
    # the failure the test greps the other instances' stderr for: an old leader cannot read the new subscription
    case = Case(TWO_BOUNCES, "0.10.1.1", "metadata_2", (("processor1", "processor2", "processor3"),) * 2)
    shortcut = replace(case.scenario(), steps=tuple(Bounce(p, release="3.9", upgrade_from=None)
                                                    for p in ("processor1", "processor2", "processor3")))
    report = replay(case, shortcut)
    assert not report.passed
    assert any("TaskAssignmentException" in p and "unable to decode subscription data" in p for p in report.problems)
