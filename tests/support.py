"""Comparison helpers for golden vectors: Kafka's view of a value against ours."""

from __future__ import annotations

import base64
import uuid
from typing import Any


def norm_key(key: str) -> str:
    return key.replace("_", "").lower()


def plain(value: Any) -> Any:
    """Our value as JSON-like data: models dumped with Kafka names, bytes as hex, uuids as hex."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(by_alias=True)
    if isinstance(value, dict):
        return {norm_key(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, uuid.UUID):
        return value.hex
    return value


def kafka_uuid_hex(text: str) -> str:
    return base64.urlsafe_b64decode(text + "==").hex()


def mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` fails to show every value of ``expected`` (keys compared without case/underscores)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        out = []
        for key, value in expected.items():
            k = norm_key(key)
            if k in ("impldecoded", "unknowntaggedfields"):
                continue
            if k not in actual:
                out.append(f"{path}.{key}: missing")
                continue
            out += mismatches(value, actual[k], f"{path}.{key}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) != len(actual):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        pairs = enumerate(zip(expected, actual, strict=True))
        return [m for i, (e, a) in pairs for m in mismatches(e, a, f"{path}[{i}]")]
    if isinstance(expected, str) and isinstance(actual, str) and len(expected) == 22 and len(actual) == 32:
        expected = kafka_uuid_hex(expected)  # Kafka prints uuids in its base64 form
    return [] if expected == actual else [f"{path}: expected {expected!r}, got {actual!r}"]
