"""``__consumer_offsets``: every record type, KIP-915 reading, and the whole nest decoded in one call.

>>> record = decode_record(key_bytes, value_bytes)       # doctest: +SKIP
>>> record.record_name, record.value_version, record.members
"""

from kafka_meta.offsets.catalog import RecordType, catalog, record_type
from kafka_meta.offsets.reader import decode_record, encode_record, new_record
from kafka_meta.offsets.records import (
    ControlRecord,
    CoordinatorRecord,
    MemberNest,
    OffsetsRecord,
    ProtocolNest,
    UnknownRecord,
)

__all__ = [
    "ControlRecord",
    "CoordinatorRecord",
    "MemberNest",
    "OffsetsRecord",
    "ProtocolNest",
    "RecordType",
    "UnknownRecord",
    "catalog",
    "decode_record",
    "encode_record",
    "new_record",
    "record_type",
]
