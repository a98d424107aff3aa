"""Reading blobs from the command line: hex, base64, raw files, stdin, and JSON Lines of them."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_HEX = re.compile(r"^(?:[0-9a-fA-F]{2})*$")
_B64 = re.compile(r"^[A-Za-z0-9+/_-]*={0,2}$")


class BlobError(ValueError):
    """Input that is neither hex nor base64."""


def from_hex(text: str) -> bytes:
    cleaned = re.sub(r"\s+", "", text)
    if cleaned.lower().startswith("0x"):
        cleaned = cleaned[2:]
    try:
        return bytes.fromhex(cleaned)
    except ValueError:
        raise BlobError("not valid hex") from None


def from_base64(text: str) -> bytes:
    cleaned = re.sub(r"\s+", "", text)
    try:
        if "-" in cleaned or "_" in cleaned:
            return base64.urlsafe_b64decode(cleaned + "=" * (-len(cleaned) % 4))
        return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise BlobError("not valid base64") from None


def from_text(text: str) -> bytes:
    """Hex when the text is hex (an even number of hex digits), otherwise base64."""
    cleaned = re.sub(r"\s+", "", text)
    if cleaned.lower().startswith("0x") or _HEX.match(cleaned):
        return from_hex(cleaned)
    if _B64.match(cleaned):
        return from_base64(cleaned)
    raise BlobError("neither hex nor base64")


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
