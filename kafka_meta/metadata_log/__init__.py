"""The KRaft metadata log (``__cluster_metadata``) as a broker's segments hold it: its records decoded, and the
topic names it gives the records of other logs that name topics by id only."""

from kafka_meta.metadata_log.reader import (
    Frame,
    UnknownMetadataRecord,
    decode_metadata_record,
    metadata_record_json,
    read_frame,
    topic_names,
)

__all__ = ["Frame", "UnknownMetadataRecord", "decode_metadata_record", "metadata_record_json", "read_frame",
           "topic_names"]
