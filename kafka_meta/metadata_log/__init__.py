"""The KRaft metadata log (``__cluster_metadata``) as a broker's segments and snapshots hold it: its records and
control records decoded, and the topic names it gives the records of other logs that name topics by id only."""

from kafka_meta.metadata_log.control import (
    ControlRecord,
    control_record_json,
    decode_control_record,
    encode_control_record,
)
from kafka_meta.metadata_log.reader import (
    Frame,
    UnknownMetadataRecord,
    decode_metadata_record,
    metadata_record_json,
    read_frame,
    topic_names,
)

__all__ = ["ControlRecord", "Frame", "UnknownMetadataRecord", "control_record_json", "decode_control_record",
           "decode_metadata_record", "encode_control_record", "metadata_record_json", "read_frame", "topic_names"]
