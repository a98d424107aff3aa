"""Kafka's own Streams upgrade system tests, replayed in the simulator.

The matrices and expectations are those of ``tests/kafkatest/tests/streams/streams_upgrade_test.py`` in
apache/kafka, with the versions of ``tests/kafkatest/version.py`` beside it (``LATEST_2_4`` = 2.4.1 ...), and of
``streams_cooperative_rebalance_upgrade_test.py`` beside it, one suite per version of the files:

* ``4.2`` (branch 4.2 at commit 18d5ecd, May 2026, ``DEV_VERSION`` 4.2.1; trunk carried the same file from commit
  32b8e32, September 2025, to at least commit 8b119e5, November 2025, the newest trunk found). Kafka 4.0 dropped
  eager rebalancing (KAFKA-18839), so the lists start at 2.4 and the cooperative test is gone:

  * ``test_rolling_upgrade_with_2_bounces`` for every ``from_version`` of ``metadata_2_versions`` (2.4 - 3.3) and
    ``fk_join_versions`` (3.4 - 4.1), two bounces as in ``trunk-2024`` below;
  * ``test_version_probing_upgrade`` with future code (latest version 12);
  * ``test_upgrade_downgrade_state_updater``: one rolling bounce without ``upgrade.from`` from 3.2.3 to the
    branch's code and back, and from the branch's code to itself (the state updater it toggles does not take
    part in rebalancing).

* ``trunk-2024`` (commit 1eb7644, ``DEV_VERSION`` 4.0.0-SNAPSHOT, whose Streams code has the 3.9 rules here,
  upgrade.from values 0.10.0 - 2.3 still accepted):

  * ``test_rolling_upgrade_with_2_bounces`` for every ``from_version`` of ``metadata_1_versions`` (0.10.0),
    ``metadata_2_versions`` (0.10.1 - 1.1, and 2.4 - 3.3, moved there because of KAFKA-14646) and
    ``fk_join_versions`` (3.4 - 3.8, run with the foreign-key join; the join's data plane is not simulated,
    its rebalances are the same): three instances start on ``from_version``; a rolling bounce in random
    order to the new code with ``upgrade.from`` = ``from_version[:-2]``; a second one without it.
  * ``test_version_probing_upgrade``: three trunk instances bounced in random order to future code
    (``FutureStreamsPartitionAssignor``, latest version + 1).
  * ``test_upgrade_to_cooperative_rebalance`` (the cooperative test): three instances on each eager release
    (0.10.0 - 2.3) bounced twice to the new code, first with ``upgrade.from`` = the release line (EAGER, and
    version 1 or 2 below 2.0), then without it (COOPERATIVE). Its last version (commit 440e0b8, November 2024)
    kept only 2.1 - 2.3; KAFKA-18839 deleted it in February 2025 (commit f20f299), when ``upgrade.from`` 2.3 and
    below became a ConfigException of 4.0.

* ``2.4`` (the 2.4 branch, ``DEV_VERSION`` 2.4.2-SNAPSHOT, simulated as 2.4.1):

  * ``test_simple_upgrade_downgrade``: one rolling bounce without ``upgrade.from`` between any two of
    ``metadata_2_versions`` (0.10.1 - 1.1), downgrades included.
  * ``test_metadata_upgrade``: two bounces as above, from ``metadata_1_versions`` to
    ``backward_compatible_metadata_2_versions`` (0.10.2.2, 0.11.0.3, 1.0.2, 1.1.1) and from
    ``metadata_1_versions`` and ``metadata_2_versions`` to ``metadata_3_or_higher_versions`` (2.0.1 - 2.3.1
    and the branch's own code).
  * ``test_version_probing_upgrade`` with the branch's future code (latest version 6).

* the 2.8 and 3.0 branches (``test_metadata_upgrade`` from 0.10.0 - 1.1 to the branch's code) and the 3.4, 3.6
  and 3.7 branches (``test_rolling_upgrade_with_2_bounces`` with their own version lists and foreign-key
  join versions), each with its own version-probing test; every branch's ``DEV_VERSION`` is simulated as the
  newest release of its line.

After every bounce Kafka expects each of the three instances to process records again and none of them to
fail with "unable to decode subscription data: version=2"; the cooperative test also expects the instances of the
first bounce to log "Eager rebalancing protocol is enabled now for upgrade from X" and those of the second
"Cooperative rebalancing protocol is enabled now", and no task owned twice at the end. In the version-probing test,
while old instances remain the bounced one probes ("Sent a version 12 subscription and got version 11 assignment back
(successful version probing)..."); at the last bounce the two others learn that the new version is common
("... end of rolling upgrade. Upgrading subscription metadata version to 12 ...") and the bounced one rejoins
on it (the 2.4 test: "Downgrade subscription metadata to commonly supported version 6 and trigger new
rebalance"); the three end each bounce on the same generation, and nobody upgrades early.

For each bounce the replay reports every instance's configuration, the subscription version it sends, its
rebalance protocol, the generations the bounce took and whether the group stabilised; :func:`check` holds
that against the expectations above.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from kafka_meta.negotiation.rebalance_protocol import FIRST_COOPERATIVE_RELEASE
from kafka_meta.negotiation.releases import Release
from kafka_meta.negotiation.streams_versions import streams_code
from kafka_meta.simulate.report import Round, SimulationReport
from kafka_meta.simulate.scenario import STREAMS, Bounce, MemberSetup, Scenario

INSTANCES = ("processor1", "processor2", "processor3")
PARTITIONS = 5                # the upgrade test's 'data' topic
COOPERATIVE_PARTITIONS = 9    # the cooperative test's 'source' topic

TWO_BOUNCES = "test_rolling_upgrade_with_2_bounces"
VERSION_PROBING = "test_version_probing_upgrade"
SIMPLE = "test_simple_upgrade_downgrade"
METADATA_UPGRADE = "test_metadata_upgrade"
STATE_UPDATER = "test_upgrade_downgrade_state_updater"
COOPERATIVE = "test_upgrade_to_cooperative_rebalance"

# The versions lists of the test file, each LATEST_x as tests/kafkatest/version.py beside it resolves it.
METADATA_1_VERSIONS = ("0.10.0.1",)
PRE_2_0_METADATA_2 = ("0.10.1.1", "0.10.2.2", "0.11.0.3", "1.0.2", "1.1.1")
METADATA_2_VERSIONS = (*PRE_2_0_METADATA_2, "2.4.1", "2.5.1", "2.6.3", "2.7.2", "2.8.2", "3.0.2", "3.1.2",
                       "3.2.3", "3.3.2")
FK_JOIN_VERSIONS = ("3.4.1", "3.5.2", "3.6.2", "3.7.1", "3.8.0")
METADATA_2_VERSIONS_2_4 = PRE_2_0_METADATA_2
BACKWARD_COMPATIBLE_METADATA_2_VERSIONS_2_4 = ("0.10.2.2", "0.11.0.3", "1.0.2", "1.1.1")
METADATA_3_OR_HIGHER_VERSIONS_2_4 = ("2.0.1", "2.1.1", "2.2.2", "2.3.1", "2.4.1")
# branch 4.2 (and trunk from September 2025), with its version.py: LATEST_3_7 = 3.7.2, LATEST_3_8 = 3.8.1 ...
METADATA_2_VERSIONS_4_2 = ("2.4.1", "2.5.1", "2.6.3", "2.7.2", "2.8.2", "3.0.2", "3.1.2", "3.2.3", "3.3.2")
FK_JOIN_VERSIONS_4_2 = ("3.4.1", "3.5.2", "3.6.2", "3.7.2", "3.8.1", "3.9.1", "4.0.0", "4.1.1")
DEV_4_2 = "4.2.1"
# the cooperative test's streams_eager_rebalance_upgrade_versions (fixed: "no versions must be added")
EAGER_VERSIONS = ("0.10.0.1", "0.10.1.1", "0.10.2.2", "0.11.0.3", "1.0.2", "1.1.1", "2.0.1", "2.1.1", "2.2.2",
                  "2.3.1")


@dataclass(frozen=True)
class Suite:
    """One version of the test file: where it is, the release its ``DEV_VERSION`` is simulated as, and its
    matrices as (test, variant, from versions, to versions; None = the suite's own code)."""

    name: str
    source: str
    dev: str
    matrices: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...] | None], ...]


def _two_bounce_suite(name: str, source: str, dev: str, test: str, fk_join: tuple[str, ...] = (),
                      metadata_2: tuple[str, ...] = METADATA_2_VERSIONS, cooperative: tuple[str, ...] = ()) -> Suite:
    matrices: list[tuple[str, str, tuple[str, ...], tuple[str, ...] | None]] = [
        (test, "metadata_1", METADATA_1_VERSIONS, None), (test, "metadata_2", metadata_2, None)]
    if fk_join:
        matrices.append((test, "fk_join", fk_join, None))
    if cooperative:
        matrices.append((COOPERATIVE, "eager", cooperative, None))
    return Suite(name, source, dev, tuple(matrices))


ONE_BOUNCE = (SIMPLE, STATE_UPDATER)
"""Tests with a single rolling bounce and no ``upgrade.from``; the others bounce twice, the first time with it."""


def upgrade_from_value(test: str, from_version: str) -> str:
    """The ``upgrade.from`` of a test's first bounce: ``from_version[:-2]`` in the upgrade test, the text before
    the last dot in the cooperative test (the same line either way: ``0.10.0.1`` -> ``0.10.0``, ``2.3.1`` ->
    ``2.3``)."""
    return from_version[:from_version.rfind(".")] if test == COOPERATIVE else from_version[:-2]


SUITES: dict[str, Suite] = {s.name: s for s in (
    Suite("4.2", "branch 4.2 18d5ecd (May 2026, DEV_VERSION 4.2.1); trunk 32b8e32 - 8b119e5 (2025) has the same file",
          DEV_4_2, (
              (TWO_BOUNCES, "metadata_2", METADATA_2_VERSIONS_4_2, None),
              (TWO_BOUNCES, "fk_join", FK_JOIN_VERSIONS_4_2, None),
              (STATE_UPDATER, "upgrade", ("3.2.3", DEV_4_2), None),
              (STATE_UPDATER, "downgrade", (DEV_4_2,), ("3.2.3", DEV_4_2)),
          )),
    _two_bounce_suite("trunk-2024", "trunk 1eb7644 (DEV_VERSION 4.0.0-SNAPSHOT, the 3.9 rules)", "3.9",
                      TWO_BOUNCES, FK_JOIN_VERSIONS, cooperative=EAGER_VERSIONS),
    _two_bounce_suite("3.7", "branch 3.7 (DEV_VERSION 3.7.2-SNAPSHOT)", "3.7.1", TWO_BOUNCES,
                      ("3.4.1", "3.5.2", "3.6.1")),
    _two_bounce_suite("3.6", "branch 3.6 (DEV_VERSION 3.6.3-SNAPSHOT)", "3.6.2", TWO_BOUNCES, ("3.4.1", "3.5.2")),
    _two_bounce_suite("3.4", "branch 3.4 (DEV_VERSION 3.4.2-SNAPSHOT)", "3.4.1", TWO_BOUNCES),
    _two_bounce_suite("3.0", "branch 3.0 (DEV_VERSION 3.0.3-SNAPSHOT)", "3.0.2", METADATA_UPGRADE,
                      metadata_2=PRE_2_0_METADATA_2),
    _two_bounce_suite("2.8", "branch 2.8 (DEV_VERSION 2.8.3-SNAPSHOT)", "2.8.2", METADATA_UPGRADE,
                      metadata_2=PRE_2_0_METADATA_2),
    Suite("2.4", "branch 2.4 (DEV_VERSION 2.4.2-SNAPSHOT)", "2.4.1", (
        (SIMPLE, "metadata_2", METADATA_2_VERSIONS_2_4, METADATA_2_VERSIONS_2_4),
        (METADATA_UPGRADE, "backward_compatible_metadata_2", METADATA_1_VERSIONS,
         BACKWARD_COMPATIBLE_METADATA_2_VERSIONS_2_4),
        (METADATA_UPGRADE, "metadata_3_or_higher", METADATA_1_VERSIONS + METADATA_2_VERSIONS_2_4,
         METADATA_3_OR_HIGHER_VERSIONS_2_4),
    )),
)}


@dataclass(frozen=True)
class Case:
    """One parameterisation of one of Kafka's tests, with the bounce orders drawn for this replay."""

    suite: str
    test: str
    from_version: str
    to_version: str
    variant: str
    orders: tuple[tuple[str, ...], ...]

    @property
    def name(self) -> str:
        return f"{self.suite} {self.test}[{self.from_version} -> {self.to_version}]"

    def scenario(self) -> Scenario:
        members = {p: MemberSetup(self.from_version) for p in INSTANCES}
        steps: list[Bounce] = []
        if self.test in (TWO_BOUNCES, METADATA_UPGRADE, COOPERATIVE):
            upgrade_from = upgrade_from_value(self.test, self.from_version)
            steps += [Bounce(p, release=self.to_version, upgrade_from=upgrade_from) for p in self.orders[0]]
            steps += [Bounce(p, upgrade_from=None) for p in self.orders[1]]
        else:
            steps += [Bounce(p, release=self.to_version) for p in self.orders[0]]
        partitions = COOPERATIVE_PARTITIONS if self.test == COOPERATIVE else PARTITIONS
        return Scenario(STREAMS, members, tuple(steps), partitions=partitions)


def cases(seed: int | None = 0, suites: tuple[str, ...] | None = None) -> list[Case]:
    """Every parameterisation of the suites' tests (default: all), the version-probing test included;
    each rolling bounce in an order drawn as the test does (``random.shuffle``), reproducibly for a seed."""
    rng = random.Random(seed)

    def order() -> tuple[str, ...]:
        names = list(INSTANCES)
        rng.shuffle(names)
        return tuple(names)

    out = []
    for name in suites or tuple(SUITES):
        suite = SUITES[name]
        for test, variant, sources, targets in suite.matrices:
            bounces = 1 if test in ONE_BOUNCE else 2
            # the state-updater test also bounces the branch's code onto itself; the others skip from == to
            out += [Case(name, test, a, b, variant, tuple(order() for _ in range(bounces)))
                    for a in sources for b in (targets or (suite.dev,)) if a != b or test == STATE_UPDATER]
        out.append(Case(name, VERSION_PROBING, suite.dev, f"{suite.dev}+1", "future", (order(),)))
    return out


@dataclass(frozen=True)
class InstanceState:
    release: str
    upgrade_from: str | None
    sent: str               # the SubscriptionInfo version of its last JoinGroup in the bounce
    protocol: str
    generation: int
    owns: str


@dataclass
class BounceReport:
    trigger: str
    bounced: str
    rounds: list[Round]
    generations: tuple[int, int]          # the generation before the bounce and after it settled
    instances: dict[str, InstanceState]
    failures: list[str] = field(default_factory=list)
    stable: bool = False

    @property
    def generation_step(self) -> int:
        return self.generations[1] - self.generations[0]


@dataclass
class CaseReport:
    case: Case
    report: SimulationReport
    bounces: list[BounceReport]
    problems: list[str]

    @property
    def passed(self) -> bool:
        return not self.problems


def replay(case: Case, scenario: Scenario | None = None) -> CaseReport:
    """Run the case (or a variation of its scenario) and take the report apart bounce by bounce, then check
    Kafka's expectations."""
    from kafka_meta.simulate import simulate

    scenario = scenario or case.scenario()
    report = simulate(scenario)
    bounces: list[BounceReport] = []
    setups = dict(scenario.members)
    last: dict[str, InstanceState] = {}
    generation = _last_generation(report.rounds[slice(*report.step_rounds[0])], 0)
    failed_before: set[str] = set()
    for step, (first, end) in zip(scenario.steps, report.step_rounds[1:], strict=True):
        assert isinstance(step, Bounce)
        setups[step.member] = step.apply(setups[step.member])
        rounds = report.rounds[first:end]
        before = generation
        generation = _last_generation(rounds, generation)
        for r in rounds:
            for row in r.rows:
                last[row.member] = InstanceState(row.release, setups[row.member].upgrade_from,
                                                 row.sent.split(" ")[0], row.protocol, r.generation, row.owned)
        failures = [f"{m}: {f}" for m, f in report.failures.items() if m not in failed_before]
        failed_before |= set(report.failures)
        synchronized = len({state.generation for state in last.values()}) == 1
        stuck = any(s.startswith(f"after '{rounds[0].trigger}'") for s in report.stuck) if rounds else False
        bounce = BounceReport(rounds[0].trigger if rounds else step.member, step.member, rounds,
                              (before, generation), dict(last), failures)
        bounce.stable = bool(rounds) and not failures and not stuck and synchronized and not any(
            r.violations for r in rounds)
        bounces.append(bounce)
    return CaseReport(case, report, bounces, check(case, bounces))


def _last_generation(rounds: list[Round], default: int) -> int:
    return rounds[-1].generation if rounds else default


def check(case: Case, bounces: list[BounceReport]) -> list[str]:
    """Kafka's expectations for the case, as its test code states them; the problems found."""
    problems: list[str] = []
    for i, b in enumerate(bounces):
        where = f"bounce {i + 1} ({b.trigger})"
        if b.failures:
            problems.append(f"{where}: instances failed: {'; '.join(b.failures)}")
        idle = [m for m, s in b.instances.items() if s.owns in ("", "-")]
        if idle:   # "processed [0-9]* records from topic=data" on every instance after every bounce
            problems.append(f"{where}: {', '.join(idle)} process nothing")
        if not b.stable:
            problems.append(f"{where}: the group did not stabilise on one generation")
    if case.test == COOPERATIVE:
        problems += _check_cooperative(bounces)
    if case.test in (TWO_BOUNCES, METADATA_UPGRADE, SIMPLE, STATE_UPDATER, COOPERATIVE) and bounces:
        # the new code ends on its own latest version, and from 2.4 on COOPERATIVE
        code = streams_code(case.to_version)
        final = bounces[-1].instances
        if {s.sent for s in final.values()} != {f"v{code.latest}"}:
            problems.append(f"after the last rolling bounce not every instance sends v{code.latest}: "
                            f"{ {m: s.sent for m, s in final.items()} }")
        protocol = "COOPERATIVE" if code.release >= Release.parse(FIRST_COOPERATIVE_RELEASE) else "EAGER"
        if {s.protocol for s in final.values()} != {protocol}:
            problems.append(f"after the last rolling bounce not every instance rebalances {protocol}")
    if case.test == VERSION_PROBING:
        problems += _check_probing(bounces, streams_code(case.from_version).latest)
    return problems


def _check_cooperative(bounces: list[BounceReport]) -> list[str]:
    """Each instance bounced in the first round says "Eager rebalancing protocol is enabled now for upgrade from
    X", each one of the second round "Cooperative rebalancing protocol is enabled now"."""
    problems = []
    half = len(bounces) // 2
    for i, b in enumerate(bounces):
        expected = "EAGER" if i < half else "COOPERATIVE"
        state = b.instances.get(b.bounced)
        if state is None or state.protocol != expected:
            problems.append(f"bounce {i + 1}: {b.bounced} does not run {expected} "
                            f"({state.protocol if state else 'not in the group'})")
    return problems


def _check_probing(bounces: list[BounceReport], old: int) -> list[str]:
    problems = []
    new = old + 1
    for i, b in enumerate(bounces):
        actions = {row.member: row.action for r in b.rounds for row in r.rows if r is b.rounds[0]}
        others = [m for m in actions if m != b.bounced]
        if i < len(bounces) - 1:
            if not actions.get(b.bounced, "").startswith(f"downgrade -> v{old}"):
                problems.append(f"bounce {i + 1}: {b.bounced} did not probe and fall back to v{old}")
            early = [m for r in b.rounds for row in r.rows if row.action.startswith("upgrade") for m in [row.member]]
            if early:
                problems.append(f"bounce {i + 1}: {', '.join(early)} upgraded to {new} too early")
        else:
            if not all(actions.get(m, "").startswith(f"upgrade -> v{new}") for m in others):
                problems.append(f"bounce {i + 1}: the others did not learn that version {new} is common")
            if not actions.get(b.bounced, "").startswith(f"rejoin (stays v{new})"):
                problems.append(f"bounce {i + 1}: {b.bounced} did not rejoin on v{new} (\"Downgrade subscription "
                                f"metadata to commonly supported version {new}\")")
        if b.generation_step != 2:
            problems.append(f"bounce {i + 1}: {b.generation_step} generations, expected the bounce and one "
                            f"follow-up (the probing rejoin, or at the end everybody's upgrade)")
    return problems


def render(reports: list[CaseReport]) -> str:
    """One block per case: each bounce with every instance's release, upgrade.from, version and protocol."""
    lines = []
    for cr in reports:
        verdict = "as Kafka expects" if cr.passed else "NOT as Kafka expects"
        lines.append(f"{cr.case.name} ({cr.case.variant}): {verdict}")
        for b in cr.bounces:
            states = ", ".join(f"{m} {s.release}{' upgrade.from=' + s.upgrade_from if s.upgrade_from else ''} "
                               f"{s.sent} {s.protocol[:4]}" for m, s in sorted(b.instances.items()))
            lines.append(f"  {b.trigger}: generation {b.generations[0]} -> {b.generations[1]} "
                         f"(+{b.generation_step}), {'stable' if b.stable else 'NOT stable'}; {states}")
        lines.extend(f"  ! {p}" for p in cr.problems)
    return "\n".join(lines)
