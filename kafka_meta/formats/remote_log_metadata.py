"""``__remote_log_metadata``: tiered storage's metadata topic (KIP-405), as Kafka's
``TopicBasedRemoteLogMetadataManager`` writes it.

Each record has no key; its value is one record framed by ``RemoteLogMetadataSerde``, whose
``BytesApiMessageSerde`` is the metadata log's ``AbstractApiMessageSerde``: ``uvarint frame version (1) | uvarint
apiKey | uvarint version | body``. So the frame is the metadata log's own (:mod:`kafka_meta.kraft.records`),
around the four record types of ``schemas/remote-log-metadata/`` (apiKeys 0-3, all at version 0, flexible):
RemoteLogSegmentMetadataRecord, RemoteLogSegmentMetadataUpdateRecord, RemotePartitionDeleteMetadataRecord and
RemoteLogSegmentMetadataSnapshotRecord.

Their specs are ``type: metadata`` as Kafka's are, and their apiKeys are those of ``__cluster_metadata``
records too (0 RegisterBrokerRecord...): registered beside the metadata log's they would be taken for them.
So they live in a registry of their own (:data:`REGISTRY`), which gives them to this topic's frame alone
(:func:`frame_format`).
"""

from __future__ import annotations

from functools import cache

from kafka_meta.codec.declared import DeclaredFormat
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, Unframed
from kafka_meta.codec.registry import Registry, schema_root
from kafka_meta.kraft.records import metadata_record_format, metadata_record_formats
from kafka_meta.spec.loader import iter_spec_files, load_spec

TOPIC = "__remote_log_metadata"
FAMILY = "remote-log-metadata"

# the state ids the records carry (RemoteLogSegmentState and RemotePartitionDeleteState, Kafka 4.4)
SEGMENT_STATES: dict[int, str] = {0: "COPY_SEGMENT_STARTED", 1: "COPY_SEGMENT_FINISHED",
                                  2: "DELETE_SEGMENT_STARTED", 3: "DELETE_SEGMENT_FINISHED"}
PARTITION_DELETE_STATES: dict[int, str] = {0: "DELETE_PARTITION_MARKED", 1: "DELETE_PARTITION_STARTED",
                                           2: "DELETE_PARTITION_FINISHED"}


def load(registry: Registry) -> None:
    """Register the record bodies: unframed (the frame carries their version), a newer version read as Kafka's
    generated readers read it (every field range at that version), as the metadata log's bodies are."""
    directory = schema_root() / FAMILY
    for path in iter_spec_files(directory):
        spec = load_spec(path)
        registry.register(SpecFormat(spec, Unframed(ForwardPolicy.RANGES), family=FAMILY))


REGISTRY = Registry()
REGISTRY.add_loader(load)


def body_format(name: str) -> SpecFormat:
    """One record body's format, by its spec's name (``RemoteLogSegmentMetadataRecord``)."""
    return REGISTRY.get(name)  # type: ignore[return-value]


@cache
def frame_format() -> DeclaredFormat:
    """The topic's value: the metadata log's frame around this topic's record bodies (chosen by apiKey)."""
    return metadata_record_format(metadata_record_formats(REGISTRY))
