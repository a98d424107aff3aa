"""KRaft ``metadata.version`` (KIP-778): can a level be finalized, or downgraded, and may a broker register
(section 8 of the wire-format notes).

The level table (8.2) is the FeatureLevelRecord codec's (:mod:`kafka_meta.kraft.metadata_version`): level,
version name, and whether that version changed the metadata format (a downgrade across such a version may
lose metadata). The checks follow ``FeatureControlManager`` in the
order the controller applies them, stopping at the first failure; what differs between controller releases
(3.x vs 4.x) is a :class:`ReleaseTable` of :class:`ControllerRules`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

from kafka_meta.kraft.metadata_version import (
    BY_LEVEL,
    BY_RELEASE,
    FEATURE_NAME,
    FIRST_CONTROLLER_REGISTRATION_LEVEL,
    METADATA_VERSIONS,
    MINIMUM_BOOTSTRAP_LEVEL,
    MINIMUM_KRAFT_LEVEL,
    MINIMUM_LEVEL_4X,
    MetadataVersionLevel,
    describe_level,
)
from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.releases import KNOWN_LINES, Release, ReleaseLike, ReleaseTable

# The level table is the one the FeatureLevelRecord codec uses (kafka_meta.kraft.metadata_version).
CONTROLLERS_CHECKED_FROM_LEVEL = FIRST_CONTROLLER_REGISTRATION_LEVEL  # 3.7-IV0: controllers must support it too


def _line(mv: MetadataVersionLevel) -> str:
    return mv.release.split("-")[0]


NEWER_THAN_KNOWN = "newer than known"


def metadata_version(level_or_name: int | str) -> MetadataVersionLevel:
    """A level (``21``) or name (``"3.9-IV0"``) from the table.

    A level above the table is not an error: Kafka adds levels with every release, so it is valid data from
    a newer cluster. It comes back as a provisional entry whose name says so (``"newer than known
    (after 4.5-IV0)"``) and which counts as having changed the metadata, since nobody here can tell.
    Levels below 1 and unknown names are refused (a name is typed by a person, not reported by a cluster).
    """
    if isinstance(level_or_name, int):
        found = BY_LEVEL.get(level_or_name)
        last = METADATA_VERSIONS[-1]
        if found is None and level_or_name > last.level:
            return MetadataVersionLevel(level_or_name, f"{NEWER_THAN_KNOWN} (after {last.release})", True,
                                        provisional=True)
    else:
        found = BY_RELEASE.get(level_or_name)
    if found is None:
        raise NegotiationError(f"{level_or_name!r} is not a metadata.version kafka_meta knows "
                               f"(levels 1 - {METADATA_VERSIONS[-1].level}; higher levels are newer than known)")
    return found


LATEST_PRODUCTION: ReleaseTable[int] = ReleaseTable("metadata.version LATEST_PRODUCTION", [
    # 3.0 - 3.2 predate the metadata.version feature (KIP-778, 3.3): the level of the release's own IBP
    ("3.0", 1), ("3.1", 2), ("3.2", 3),
    # 3.3 - 3.6: MetadataVersion.latest(), the enum's last value (apache/kafka tags 3.3.0 ... 3.6.2)
    ("3.3", 7), ("3.4", 8), ("3.5", 11), ("3.6", 14),
    # 3.7+: the LATEST_PRODUCTION constant (tags 3.7.0 - 3.9.0; 4.x release branches, wire-format notes 8.2)
    ("3.7", 19), ("3.8", 20), ("3.9", 21), ("4.0", 25), ("4.1", 27), ("4.2", 29), ("4.3", 30), ("4.4", 33),
])


def latest_production_level(controller_release: ReleaseLike) -> MetadataVersionLevel:
    """The highest level a release finalizes with unstable versions disabled (its ``LATEST_PRODUCTION``)."""
    return BY_LEVEL[LATEST_PRODUCTION[controller_release]]


def advertised_range(controller_release: ReleaseLike) -> SupportedRange:
    """The ``metadata.version`` range a node of this release registers with unstable versions disabled:
    from 3.0-IV1 (3.x) or ``MINIMUM_VERSION`` 3.3-IV3 (4.x) up to its latest production level."""
    rules = CONTROLLER_RULES[controller_release]
    return SupportedRange(rules.lowest_supported, LATEST_PRODUCTION[controller_release])


def known_levels(controller_release: ReleaseLike) -> range:
    """The levels a controller's MetadataVersion enum defines: every version of its release line or older."""
    rel = Release.parse(controller_release)
    known = [mv.level for mv in METADATA_VERSIONS if _line(mv) in KNOWN_LINES and Release.parse(_line(mv)) <= rel]
    return range(1, max(known) + 1) if known else range(0)


class UpgradeType(IntEnum):
    """UpdateFeatures' ``upgradeType``."""

    UNKNOWN = 0
    UPGRADE = 1
    SAFE_DOWNGRADE = 2
    UNSAFE_DOWNGRADE = 3


@dataclass(frozen=True)
class SupportedRange:
    """A node's advertised ``[min, max]`` for a feature."""

    min: int
    max: int

    def __contains__(self, level: object) -> bool:
        return isinstance(level, int) and self.min <= level <= self.max

    def __str__(self) -> str:
        return f"{self.min}-{self.max}"


NOT_LISTED = SupportedRange(0, 0)
"""How the controller counts a node that does not list a feature at all."""


@dataclass(frozen=True)
class Node:
    """A registered broker or controller and its range for the feature (None: the feature is not listed)."""

    node_id: int
    supported: SupportedRange | None
    fenced: bool = False


@dataclass(frozen=True)
class ControllerRules:
    era: str
    zk_migration_check: bool
    floor: int | None                      # a separate "below the bootstrap minimum" check, or None
    broker_without_mv: str                 # "level 1 only" or "invalid registration"
    lowest_supported: int                  # the bottom of a node's own range (MINIMUM_KRAFT / MINIMUM_VERSION)


CONTROLLER_RULES: ReleaseTable[ControllerRules] = ReleaseTable("KRaft controller rules", [
    ("3.0", ControllerRules("3.x", True, MINIMUM_BOOTSTRAP_LEVEL, "level 1 only", MINIMUM_KRAFT_LEVEL)),
    ("4.0", ControllerRules("4.x", False, None, "invalid registration", MINIMUM_LEVEL_4X)),
])


@dataclass(frozen=True)
class Cluster:
    """What the active controller knows when it judges a change of one feature: every range here is the
    node's range for *that* feature."""

    controller_release: Release | str
    active_controller: SupportedRange
    brokers: Sequence[Node] = ()
    controllers: Sequence[Node] = ()        # the other registered controllers
    voters: Sequence[int] = ()              # node ids of the quorum's voters
    active_controller_id: int | None = None
    current_level: int | None = None        # None: no FeatureLevelRecord, which counts as level 1
    zk_migration_in_progress: bool = False

    @property
    def level(self) -> int:
        return MINIMUM_KRAFT_LEVEL if self.current_level is None else self.current_level


@dataclass(frozen=True)
class FeatureUpdateDecision:
    feature: str
    level: int
    allowed: bool
    step: str
    reason: str
    error: str | None = None              # INVALID_UPDATE_VERSION when refused
    blockers: tuple[str, ...] = field(default_factory=tuple)

    @property
    def record(self) -> tuple[str, int] | None:
        """The FeatureLevelRecord (name, level) the controller appends on success."""
        return (self.feature, self.level) if self.allowed else None


def _refuse(feature: str, level: int, step: str, reason: str, blockers: Sequence[str] = ()) -> FeatureUpdateDecision:
    return FeatureUpdateDecision(feature, level, False, step, reason, "INVALID_UPDATE_VERSION", tuple(blockers))


def who_must_support(current_level: int) -> str:
    if current_level >= CONTROLLERS_CHECKED_FROM_LEVEL:
        return ("the active controller, every registered broker (fenced too), every registered controller, and "
                "every voter must be registered")
    return "the active controller and every registered broker (fenced too)"


def support_blockers(cluster: Cluster, level: int) -> list[str]:
    """Step 3: every node that does not support ``level`` (there is no majority rule)."""
    blockers: list[str] = []
    if level not in cluster.active_controller:
        blockers.append(f"the active controller supports {cluster.active_controller}")
    for b in cluster.brokers:
        rng = b.supported or NOT_LISTED
        if level not in rng:
            state = "fenced " if b.fenced else ""
            listed = str(rng) if b.supported is not None else "nothing (counts as 0-0)"
            blockers.append(f"{state}broker {b.node_id} supports {listed}")
    if cluster.level >= CONTROLLERS_CHECKED_FROM_LEVEL:
        registered = {c.node_id for c in cluster.controllers}
        if cluster.active_controller_id is not None:
            registered.add(cluster.active_controller_id)
        for c in cluster.controllers:
            rng = c.supported or NOT_LISTED
            if level not in rng:
                blockers.append(f"controller {c.node_id} supports {rng}")
        for voter in cluster.voters:
            if voter not in registered:
                blockers.append(f"voter {voter} has not registered (it may not support the level)")
    return blockers


def decide_feature_update(cluster: Cluster, level: int, upgrade_type: UpgradeType | int,
                          feature: str = FEATURE_NAME) -> FeatureUpdateDecision:
    """An UpdateFeatures request for one feature, checked in the controller's order (section 8.3).

    For features other than ``metadata.version`` steps 1-4 apply; their 4.x dependency checks between
    features are not modelled, and for them ``current_level`` is that feature's level (0 = not finalized).
    """
    rel = Release.parse(cluster.controller_release)
    rules = CONTROLLER_RULES[rel]
    try:
        kind = UpgradeType(upgrade_type)
    except ValueError:
        return _refuse(feature, level, "1", f"upgrade type {upgrade_type} is not one Kafka knows")
    if kind is UpgradeType.UNKNOWN:
        return _refuse(feature, level, "1", "upgrade type 0 (unknown) is refused")
    if level < 0:
        return _refuse(feature, level, "2", f"level {level} is negative")
    blockers = support_blockers(cluster, level)
    if blockers:
        return _refuse(feature, level, "3", f"not every node supports level {level}: {'; '.join(blockers)} "
                       f"(current level {cluster.level}: {who_must_support(cluster.level)})", blockers)
    current = cluster.level if feature == FEATURE_NAME else (cluster.current_level or 0)
    if level < current and kind is UpgradeType.UPGRADE:
        return _refuse(feature, level, "4", f"level {level} is below the current {current}: a downgrade needs "
                       f"SAFE_DOWNGRADE or UNSAFE_DOWNGRADE")
    if level > current and kind is not UpgradeType.UPGRADE:
        return _refuse(feature, level, "4", f"level {level} is above the current {current}: {kind.name} cannot "
                       f"raise it")
    if feature != FEATURE_NAME:
        return FeatureUpdateDecision(feature, level, True, "4", f"{feature} set to {level}")
    # 5. metadata.version only
    if level not in known_levels(rel):
        return _refuse(feature, level, "5", f"level {level} is not a metadata.version controller {rel} knows "
                       f"({describe_level(level)})")
    if rules.zk_migration_check and cluster.zk_migration_in_progress:
        return _refuse(feature, level, "5", "a ZooKeeper migration is in progress")
    if rules.floor is not None and level < rules.floor:
        return _refuse(feature, level, "5", f"level {level} is below {BY_LEVEL[rules.floor].release} ({rules.floor}), "
                       f"the lowest level controller {rel} can set")
    target = metadata_version(level)
    if level < current:
        source = metadata_version(current).release
        changed = [mv.release for mv in METADATA_VERSIONS if level < mv.level <= current and mv.changes_metadata]
        if changed:
            if kind is UpgradeType.SAFE_DOWNGRADE:
                return _refuse(feature, level, "5", f"a downgrade from {source} to {target.release} "
                               f"might delete metadata: {', '.join(changed)} changed the metadata format")
            return _refuse(feature, level, "5", f"unsafe downgrade from {source} to "
                           f"{target.release} (across {', '.join(changed)}) is not implemented")
        return FeatureUpdateDecision(feature, level, True, "5", f"downgrade to {target.release}: no version in "
                                     f"({level}, {current}] changed the metadata format")
    verb = "stays at" if level == current else "upgraded to"
    return FeatureUpdateDecision(feature, level, True, "5", f"metadata.version {verb} {target.release} ({level})")


@dataclass(frozen=True)
class RegistrationDecision:
    allowed: bool
    error: str | None
    reason: str


def decide_broker_registration(controller_release: ReleaseLike, finalized: Mapping[str, int],
                               broker_features: Mapping[str, SupportedRange]) -> RegistrationDecision:
    """Whether a broker advertising ``broker_features`` may register (ClusterControlManager.registerBroker).

    ``finalized`` holds the finalized levels; a missing ``metadata.version`` counts as level 1, other
    features at level 0 are not finalized.
    """
    rules = CONTROLLER_RULES[controller_release]
    levels = dict(finalized)
    levels.setdefault(FEATURE_NAME, MINIMUM_KRAFT_LEVEL)
    if FEATURE_NAME not in broker_features:
        if rules.broker_without_mv == "invalid registration":
            return RegistrationDecision(False, "INVALID_REGISTRATION",
                                        f"controller {Release.parse(controller_release)} requires a "
                                        f"metadata.version range in every broker registration")
        broker_features = {**broker_features, FEATURE_NAME: SupportedRange(1, 1)}
    for name, level in sorted(levels.items()):
        if level == 0 and name != FEATURE_NAME:
            continue
        rng = broker_features.get(name, NOT_LISTED)
        if level not in rng:
            return RegistrationDecision(False, "UNSUPPORTED_VERSION",
                                        f"the broker supports {name} {rng}, the finalized level is {level}")
    return RegistrationDecision(True, None, "every finalized level is within the broker's ranges")
