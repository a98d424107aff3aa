"""KRaft cluster metadata: the metadata-log record frame and the feature levels of ``metadata.version``.

Codecs are registered types: ``kafka_meta.decode("FeatureLevelRecord", body)`` for a bare record body and
``kafka_meta.decode("MetadataRecord", data)`` for a record framed as in the ``__cluster_metadata`` log.
"""

from kafka_meta.kraft.metadata_version import (
    BY_LEVEL,
    FEATURE_NAME,
    METADATA_VERSIONS,
    MetadataVersionLevel,
    level_for,
    release_for,
)

__all__ = ["BY_LEVEL", "FEATURE_NAME", "METADATA_VERSIONS", "MetadataVersionLevel", "level_for", "release_for"]
