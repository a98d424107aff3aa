"""The feature levels of KRaft's ``metadata.version`` (KIP-778), as a plain table.

Each level names an inter-broker-protocol release (``3.9-IV0``) and says whether it changed the metadata
log's records; a downgrade across a level that did is refused as unsafe. Levels 22-25 shipped with 4.0
under the numbers the 2024 trunk gave them; 26-33 came with 4.1 - 4.4, and 34 (4.5-IV0) is defined on a 2026
trunk but not production-ready (``provisional``). Kafka adds levels with every release, so a level above the
table is valid data from a newer cluster: :func:`describe_level` names it as such instead of failing.
Source: ``MetadataVersion`` in Kafka's server-common module, as summarised in section 8.2 of the wire-format
notes.
"""

from __future__ import annotations

from dataclasses import dataclass

FEATURE_NAME = "metadata.version"


@dataclass(frozen=True)
class MetadataVersionLevel:
    level: int
    release: str  # the MetadataVersion name, e.g. "3.9-IV0"
    changes_metadata: bool  # whether this level changed the records (downgrading across it is unsafe)
    provisional: bool = False  # defined on trunk and still subject to change


METADATA_VERSIONS: tuple[MetadataVersionLevel, ...] = (
    MetadataVersionLevel(1, "3.0-IV1", True),
    MetadataVersionLevel(2, "3.1-IV0", False),
    MetadataVersionLevel(3, "3.2-IV0", True),
    MetadataVersionLevel(4, "3.3-IV0", False),
    MetadataVersionLevel(5, "3.3-IV1", True),
    MetadataVersionLevel(6, "3.3-IV2", True),
    MetadataVersionLevel(7, "3.3-IV3", True),
    MetadataVersionLevel(8, "3.4-IV0", True),
    MetadataVersionLevel(9, "3.5-IV0", False),
    MetadataVersionLevel(10, "3.5-IV1", False),
    MetadataVersionLevel(11, "3.5-IV2", True),
    MetadataVersionLevel(12, "3.6-IV0", False),
    MetadataVersionLevel(13, "3.6-IV1", True),
    MetadataVersionLevel(14, "3.6-IV2", True),
    MetadataVersionLevel(15, "3.7-IV0", True),
    MetadataVersionLevel(16, "3.7-IV1", False),
    MetadataVersionLevel(17, "3.7-IV2", True),
    MetadataVersionLevel(18, "3.7-IV3", False),
    MetadataVersionLevel(19, "3.7-IV4", False),
    MetadataVersionLevel(20, "3.8-IV0", False),
    MetadataVersionLevel(21, "3.9-IV0", False),
    MetadataVersionLevel(22, "4.0-IV0", False),
    MetadataVersionLevel(23, "4.0-IV1", True),
    MetadataVersionLevel(24, "4.0-IV2", False),
    MetadataVersionLevel(25, "4.0-IV3", False),
    MetadataVersionLevel(26, "4.1-IV0", False),
    MetadataVersionLevel(27, "4.1-IV1", False),
    MetadataVersionLevel(28, "4.2-IV0", False),
    MetadataVersionLevel(29, "4.2-IV1", False),
    MetadataVersionLevel(30, "4.3-IV0", True),
    MetadataVersionLevel(31, "4.4-IV0", False),
    MetadataVersionLevel(32, "4.4-IV1", True),
    MetadataVersionLevel(33, "4.4-IV2", True),
    MetadataVersionLevel(34, "4.5-IV0", False, provisional=True),
)
BY_LEVEL: dict[int, MetadataVersionLevel] = {mv.level: mv for mv in METADATA_VERSIONS}
BY_RELEASE: dict[str, MetadataVersionLevel] = {mv.release: mv for mv in METADATA_VERSIONS}

MINIMUM_KRAFT_LEVEL = 1  # 3.0-IV1; a log without a metadata.version record counts as this level
MINIMUM_BOOTSTRAP_LEVEL = 4  # 3.3-IV0, the first whose log can hold FeatureLevelRecord (floor of <= 3.9 controllers)
MINIMUM_LEVEL_4X = 7  # 3.3-IV3, MetadataVersion.MINIMUM_VERSION from 4.0: the bottom of every 4.x node's range
LATEST_PRODUCTION_LEVEL = 33  # 4.4-IV2 at the 2026 trunk (34 is its unstable testing level)
FIRST_CONTROLLER_REGISTRATION_LEVEL = 15  # 3.7-IV0: controllers register and must support new levels


def release_for(level: int) -> str | None:
    """The release name of a metadata.version level (``21`` -> ``"3.9-IV0"``), None when unknown."""
    mv = BY_LEVEL.get(level)
    return mv.release if mv else None


def level_for(release: str) -> int | None:
    """The level of a release name (``"3.9-IV0"`` -> ``21``), None when unknown."""
    mv = BY_RELEASE.get(release)
    return mv.level if mv else None


def describe_level(level: int) -> str:
    """A level in words, for any level a cluster may report: ``"3.9-IV0 (21)"``, or for a level above the
    table ``"level 40, newer than any metadata.version kafka_meta knows (latest 34, 4.5-IV0)"``."""
    mv = BY_LEVEL.get(level)
    if mv is not None:
        return f"{mv.release} ({level})" + (" (not production-ready)" if mv.provisional else "")
    last = METADATA_VERSIONS[-1]
    if level > last.level:
        return f"level {level}, newer than any metadata.version kafka_meta knows (latest {last.level}, {last.release})"
    return f"level {level}, not a KRaft metadata.version (those start at {METADATA_VERSIONS[0].level})"
