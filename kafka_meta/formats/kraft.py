"""KRaft cluster metadata (section 8 of the wire-format notes).

* ``schemas/metadata/``: metadata-log record bodies (``FeatureLevelRecord``), unframed: the version is
  given by the log's frame. A version above the newest is read as Kafka's generated readers do (field
  ranges evaluated at that version).
* ``MetadataRecord``: a record framed as in the ``__cluster_metadata`` log, declared in
  :mod:`kafka_meta.kraft.records`.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.codec.framing import ForwardPolicy, Unframed
from kafka_meta.formats.family import Family
from kafka_meta.kraft.records import FeatureLevelBase, metadata_record_format, metadata_record_formats

FAMILIES = {
    "metadata": Family(lambda spec: Unframed(ForwardPolicy.RANGES), {"FeatureLevelRecord": FeatureLevelBase}),
}


def register(registry: Any) -> None:
    registry.register(metadata_record_format(metadata_record_formats(registry)))
