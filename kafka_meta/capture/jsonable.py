"""An exchange as JSON values, the way ``kafka-meta decode`` prints messages: Kafka's field names, bytes as
base64, uuids in Kafka's own text form (URL-safe base64). Shared by the CLI and the Spark source's JSON
columns, so both print the same text."""

from __future__ import annotations

import base64
import uuid
from typing import Any

from kafka_meta.models.values import kafka_uuid_text


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return kafka_uuid_text(value)
    return value


def json_default(value: Any) -> Any:
    """``json.dumps(..., default=json_default)``: the same text as ``jsonable`` first, at the C encoder's speed
    (it calls this only for the bytes and uuids it cannot write itself)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return kafka_uuid_text(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
