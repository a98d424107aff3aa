"""KRaft cluster metadata (section 8 of the wire-format notes).

* ``schemas/metadata/``: metadata-log record bodies (every type Kafka 4.4 writes, ``FeatureLevelRecord`` to
  ``UnregisterControllerRecord``), unframed: the version is given by the log's frame. A version above the newest
  is read as Kafka's generated reader of the record does (field ranges evaluated at that version; docs/kraft.md,
  "Newer record versions", says where the readers of its structs refuse instead).
* ``MetadataRecord``: a record framed as in the ``__cluster_metadata`` log, declared in
  :mod:`kafka_meta.kraft.records`.
"""

from __future__ import annotations

from kafka_meta.codec.framing import ForwardPolicy, Unframed
from kafka_meta.codec.registry import Registry
from kafka_meta.formats.family import Family, FormatPlugin
from kafka_meta.kraft.records import FeatureLevelBase, metadata_record_format, metadata_record_formats


def register(registry: Registry) -> None:
    registry.register(metadata_record_format(metadata_record_formats(registry)))


PLUGIN = FormatPlugin(
    "kraft",
    {"metadata": Family(lambda spec: Unframed(ForwardPolicy.RANGES), {"FeatureLevelRecord": FeatureLevelBase})},
    register=register,
)
