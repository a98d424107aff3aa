"""Reading blobs from the command line: hex, base64, raw files, stdin, and JSON Lines of them. How text
becomes bytes is the rule every reader applies (:mod:`kafka_meta.inputs.payload_text`); this module reads the
command line's forms of it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kafka_meta.inputs.payload_text import PayloadTextError, text_bytes


class BlobError(ValueError):
    """Input that is not bytes (text that is neither hex nor base64, said why), or that the command refuses."""


def from_hex(text: str) -> bytes:
    """Hex text (whitespace and a ``0x`` allowed), by the one rule for text (kafka_meta.inputs.payload_text)."""
    return _read(text, "hex")


def from_base64(text: str) -> bytes:
    """Base64 text, standard or URL-safe, padded or not."""
    return _read(text, "base64")


def from_text(text: str) -> bytes:
    """Hex when the text is hex (an even number of hex digits, maybe after 0x), otherwise base64."""
    return _read(text, "auto")


def _read(text: str, encoding: str) -> bytes:
    try:
        return text_bytes(text, encoding)
    except PayloadTextError as e:
        raise BlobError(str(e)) from None


def from_stdin_bytes(raw: bytes) -> bytes:
    """Stdin may carry the raw bytes or hex/base64 text of them; text is recognised when it decodes."""
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        return raw
    if not text.strip() or not re.sub(r"\s+", "", text).isprintable():
        return raw
    try:
        return from_text(text)
    except BlobError:
        return raw


@dataclass
class Line:
    number: int
    data: bytes | None
    extra: dict[str, Any]
    error: str | None = None


def read_jsonl_blobs(lines: Iterator[str]) -> Iterator[Line]:
    """Each line: a hex/base64 string (bare or as a JSON string), or an object with a ``hex`` or ``base64``
    key; other keys of an object are carried through. Blank lines and ``#`` comments are skipped."""
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        obj: dict[str, Any] = {}
        try:
            if text.startswith("{"):
                obj = json.loads(text)
                if not isinstance(obj, dict):
                    raise BlobError("expected a JSON object")
                if "hex" in obj and obj["hex"] is not None:
                    data = from_hex(str(obj.pop("hex")))
                elif "base64" in obj and obj["base64"] is not None:
                    data = from_base64(str(obj.pop("base64")))
                else:
                    raise BlobError("an object line needs a 'hex' or 'base64' key")
                yield Line(number, data, obj)
            else:
                if text.startswith('"'):
                    text = json.loads(text)
                yield Line(number, from_text(text), {})
        except (BlobError, json.JSONDecodeError, AttributeError, TypeError) as e:
            yield Line(number, None, {k: v for k, v in obj.items() if k not in ("hex", "base64")}, error=str(e))
