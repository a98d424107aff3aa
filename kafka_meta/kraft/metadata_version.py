"""The feature levels of KRaft's ``metadata.version`` (KIP-778), as a plain table.

Each level names an inter-broker-protocol release (``3.9-IV0``) and says whether it changed the metadata
log's records; a downgrade across a level that did is refused as unsafe. Levels 22-25 were still being
defined on Kafka's trunk in October 2024 (``provisional``). Source: ``MetadataVersion`` in Kafka's
server-common module, as summarised in section 8.2 of the wire-format notes.
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
    MetadataVersionLevel(22, "4.0-IV0", False, provisional=True),
    MetadataVersionLevel(23, "4.0-IV1", True, provisional=True),
    MetadataVersionLevel(24, "4.0-IV2", False, provisional=True),
    MetadataVersionLevel(25, "4.0-IV3", False, provisional=True),
)
BY_LEVEL: dict[int, MetadataVersionLevel] = {mv.level: mv for mv in METADATA_VERSIONS}
BY_RELEASE: dict[str, MetadataVersionLevel] = {mv.release: mv for mv in METADATA_VERSIONS}

MINIMUM_KRAFT_LEVEL = 1  # 3.0-IV1; a log without a metadata.version record counts as this level
MINIMUM_BOOTSTRAP_LEVEL = 4  # 3.3-IV0, the first whose log can hold FeatureLevelRecord (floor of <= 3.9 controllers)
LATEST_PRODUCTION_LEVEL = 22  # 4.0-IV0 at the October 2024 trunk
FIRST_CONTROLLER_REGISTRATION_LEVEL = 15  # 3.7-IV0: controllers register and must support new levels


def release_for(level: int) -> str | None:
    """The release name of a metadata.version level (``21`` -> ``"3.9-IV0"``), None when unknown."""
    mv = BY_LEVEL.get(level)
    return mv.release if mv else None


def level_for(release: str) -> int | None:
    """The level of a release name (``"3.9-IV0"`` -> ``21``), None when unknown."""
    mv = BY_RELEASE.get(release)
    return mv.level if mv else None
