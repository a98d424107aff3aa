"""Streams metadata written by code newer than any release: the newest layout under a higher version number.

kafka_meta's codecs know SubscriptionInfo and AssignmentInfo up to the newest released version. Kafka's own
system tests run "future" code (``StreamsUpgradeTest.FutureStreamsPartitionAssignor``) that writes a higher
version number in front of a known layout and, when it reads its own future bytes, overwrites that number
with the newest known one before decoding. The simulator does the same, so future members' bytes go through
the real codecs: older readers see only the leading version fields (``used version, latest supported
version`` or ``version, commonly supported version``), as Java's decoders do with a future version.
"""

from __future__ import annotations

import struct
from typing import Any

import kafka_meta
from kafka_meta.negotiation.streams_versions import NEWEST_KNOWN_LATEST

_VERSION = struct.Struct(">i")


def encode_streams(type_name: str, fields: dict[str, Any], version: int) -> bytes:
    """``fields`` encoded at ``version``; above the newest known version, the newest layout carrying
    ``version`` (and for SubscriptionInfo its ``latest_supported_version``) in its leading fields."""
    model = kafka_meta.model(type_name)
    layout = min(version, NEWEST_KNOWN_LATEST)
    data = bytearray(kafka_meta.encode(model.model_validate(fields), layout))
    if version > layout:
        _VERSION.pack_into(data, 0, version)
    return bytes(data)


def leading_version(data: bytes) -> int:
    """The i32 version every SubscriptionInfo/AssignmentInfo starts with."""
    if len(data) < _VERSION.size:
        raise kafka_meta.DecodeError(f"{len(data)} bytes are too few for a Streams metadata version (4 bytes)")
    return int(_VERSION.unpack_from(data, 0)[0])


def decode_streams(type_name: str, data: bytes, reader_latest: int) -> tuple[int, Any]:
    """(the version on the wire, the decoded message) as a reader whose code speaks up to ``reader_latest``
    reads it: a future version it knows is read in the newest known layout; anything else goes to the
    codec unchanged (which reduces a future SubscriptionInfo and refuses a future AssignmentInfo)."""
    version = leading_version(data)
    if NEWEST_KNOWN_LATEST < version <= reader_latest:
        patched = bytearray(data)
        _VERSION.pack_into(patched, 0, NEWEST_KNOWN_LATEST)
        return version, kafka_meta.decode(type_name, bytes(patched))
    return version, kafka_meta.decode(type_name, data)
