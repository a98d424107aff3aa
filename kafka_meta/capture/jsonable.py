"""An exchange as JSON text, the way ``kafka-meta decode`` prints messages: Kafka's field names, bytes as
base64, uuids in Kafka's own text form (URL-safe base64). Shared by the CLI and the Spark source's JSON
columns, so both print the same text."""

from __future__ import annotations

import json
import uuid
from typing import Any

from kafka_meta.models.values import bytes_to_json, kafka_uuid_text

try:
    import orjson
except ImportError:  # a declared dependency; without it the standard library writes the same values
    orjson = None


def json_default(value: Any) -> Any:
    """``json.dumps(..., default=json_default)``: the same text as ``jsonable`` first, at the C encoder's speed
    (it calls this only for the bytes and uuids it cannot write itself)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes_to_json(bytes(value))
    if isinstance(value, uuid.UUID):
        return kafka_uuid_text(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def json_line(value: Any) -> str:
    """One JSON Lines record of an exchange (no newline): the values ``json.dumps(value, default=json_default)``
    writes, by orjson, several times faster on the CLI's hot path. The text differs only in spacing and in
    how floats are spelled, never in the values read back. orjson writes uuids itself, in the 8-4-4-4-12 form;
    the protocol layer's uuids are of a subclass it hands to ``json_default``. What orjson refuses (strings
    holding lone surrogates, integer keys beyond its range) is written by the standard library."""
    if orjson is not None:
        try:
            return orjson.dumps(value, default=json_default, option=orjson.OPT_NON_STR_KEYS).decode()
        except (orjson.JSONEncodeError, TypeError):
            pass
    return json.dumps(value, ensure_ascii=False, default=json_default)
