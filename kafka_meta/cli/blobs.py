"""Reading blobs from the command line: hex, base64, raw files, stdin, and JSON Lines of them. How text
becomes bytes is the rule every reader applies (:mod:`kafka_meta.payload_text`); this module reads the
command line's forms of it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kafka_meta.inputs.items import PAYLOAD_KEYS, payload_bytes
from kafka_meta.payload_text import PayloadTextError, text_bytes


class BlobError(ValueError):
    """Input that is not bytes (text that is neither hex nor base64, said why), or that the command refuses."""


def from_hex(text: str) -> bytes:
    """Hex text (whitespace and a ``0x`` allowed), by the one rule for text (kafka_meta.payload_text)."""
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
    """Each line: a hex/base64 string (bare or as a JSON string), or an object holding its bytes as a payload
    row does (``hex``, ``base64`` or ``blob``: the inputs' rule, :func:`kafka_meta.inputs.items.payload_bytes`);
    other keys of an object are carried through. Blank lines and ``#`` comments are skipped, as in every JSON
    Lines input."""
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
                try:
                    field, data = payload_bytes(obj)
                except KeyError as e:
                    raise BlobError(f"an object line needs a {e.args[0]} key") from None
                except PayloadTextError as e:
                    raise BlobError(str(e)) from None
                yield Line(number, data, {k: v for k, v in obj.items() if k != field})
            else:
                if text.startswith('"'):
                    text = json.loads(text)
                yield Line(number, from_text(text), {})
        except (BlobError, json.JSONDecodeError, AttributeError, TypeError) as e:
            yield Line(number, None, {k: v for k, v in obj.items() if k not in PAYLOAD_KEYS}, error=str(e))
