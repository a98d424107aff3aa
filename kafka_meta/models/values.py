"""Field value types of the typed models, rendered in JSON the way Kafka's JSON converters render them.

* bytes: standard base64 (Kafka uses ``java.util.Base64``; pydantic's own base64 mode is URL-safe).
* uuid: ``uuid.UUID`` in Python; in JSON Kafka's ``Uuid.toString()`` form, URL-safe base64 without padding.
  Input accepts that form, the dashed and plain hex forms, and 16 raw bytes.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainSerializer, Strict

from kafka_meta.spec.model import parse_uuid_text
from kafka_meta.wire.primitives import INT_BOUNDS


def bytes_from_any(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return base64.b64decode(value.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError, ValueError):
            try:
                return base64.urlsafe_b64decode(value.encode("ascii"))
            except (binascii.Error, UnicodeEncodeError, ValueError):
                raise ValueError("bytes must be given as base64 text") from None
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value


def bytes_to_json(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def uuid_from_any(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return value
    if isinstance(value, (bytes, bytearray)) and len(value) == 16:
        return uuid.UUID(bytes=bytes(value))
    if isinstance(value, str):
        try:
            return uuid.UUID(bytes=parse_uuid_text(value))
        except (ValueError, binascii.Error):
            raise ValueError(f"not a uuid: {value!r}") from None
    return value


def kafka_uuid_text(value: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString()``: URL-safe base64 of the 16 bytes, without padding."""
    return base64.urlsafe_b64encode(value.bytes).decode("ascii").rstrip("=")


KafkaBytes = Annotated[bytes, BeforeValidator(bytes_from_any), PlainSerializer(bytes_to_json, when_used="json")]
KafkaUuid = Annotated[uuid.UUID, BeforeValidator(uuid_from_any), PlainSerializer(kafka_uuid_text, when_used="json")]


def int_type(kind: str) -> Any:
    low, high = INT_BOUNDS[kind]
    return Annotated[int, Strict(), Field(ge=low, le=high)]
