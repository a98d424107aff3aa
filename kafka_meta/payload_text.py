"""How text becomes bytes: the one rule for the hex or base64 text that rows carry their bytes in (a record's
``key`` and ``value``, a payload's ``hex``, ``base64`` or ``blob``, a member's ``subscription`` and
``assignment``), and for the same text given on the command line.

The rule reads the text with its ASCII whitespace removed (a dump wrapped over lines reads as one string):

* **hex**: an even number of hex digits, in either case, maybe after ``0x``;
* **base64**: the standard alphabet or the URL-safe one (``-`` and ``_``), padded or not, in whole groups
  (a last group of two or three characters, or its padded four);
* **auto**, for a field that may hold either: hex when the text is hex, else base64. Text that starts with
  ``0x`` is hex or nothing; text that is both (``abcd``) is hex.

Text that is not bytes raises :class:`PayloadTextError`, which says why in a few fixed words (a character
neither alphabet has, an odd number of hex digits, a length or padding base64 does not have).

The rule is written as the regular expressions below, which mean the same to Python's ``re`` and to Java's
``java.util.regex`` (Spark's ``rlike`` and ``regexp_replace``): :mod:`kafka_meta.spark.row_rules` builds the
same decision out of Spark columns from these very strings, and the two are held to agree on every kind of
string. The anchored patterns are only tried on text made of the alphabets' ASCII characters alone (the
unanchored character checks come first), where ``$`` and ``^`` mean the same to both engines.
"""

from __future__ import annotations

import base64
import re
from typing import Any

SPACE = r"[ \t\n\r\f\x0b]"  # ASCII whitespace, removed: both engines' \s differ beyond ASCII
HEX_PREFIX = r"^0[xX]"
NOT_HEX = r"[^0-9A-Fa-f]"
NOT_BASE64 = r"[^0-9A-Za-z+/=_-]"
BASE64 = r"^(?:[0-9A-Za-z+/_-]{4})*(?:[0-9A-Za-z+/_-]{2}(?:==)?|[0-9A-Za-z+/_-]{3}=?)?$"
URL_SAFE, STANDARD = "-_", "+/"

ENCODINGS = ("auto", "hex", "base64")

# what is wrong with the text, in the error
NOT_HEX_DIGIT = "a character that is not a hex digit"
ODD = "an odd number of hex digits"
NOT_BASE64_CHARACTER = "a character that is not base64"
NEITHER_ALPHABET = "a character that is neither hex nor base64"
BASE64_SHAPE = "a length or padding that base64 does not have"

# what the text is not, by encoding
NOT_WHAT = {"auto": "neither hex nor base64", "hex": "not valid hex", "base64": "not valid base64"}

_SPACE, _PREFIX, _NOT_HEX, _NOT_BASE64, _BASE64 = map(re.compile, (SPACE, HEX_PREFIX, NOT_HEX, NOT_BASE64, BASE64))
_TO_STANDARD = str.maketrans(URL_SAFE, STANDARD)


class PayloadTextError(ValueError):
    """Text that is not bytes: what it is not (``what``: not valid hex, neither hex nor base64), in which field
    when one is named, and why (``reason``)."""

    def __init__(self, what: str, reason: str, field: str | None = None) -> None:
        self.what, self.reason, self.field = what, reason, field
        super().__init__(message(what, reason, field))


def message(what: str, reason: str, field: str | None = None) -> str:
    """The error's text: ``neither hex nor base64 in 'key' (an odd number of hex digits)``."""
    return f"{what}{f' in {field!r}' if field else ''} ({reason})"


def text_bytes(text: Any, encoding: str = "auto", field: str | None = None) -> bytes:
    """The bytes ``text`` spells in ``encoding`` (``auto``, ``hex`` or ``base64``); ``field`` names where the
    text was, for the error."""
    if not isinstance(text, str):
        raise PayloadTextError(NOT_WHAT[encoding], f"{type(text).__name__}, not text", field)
    spelled, why = _read(_SPACE.sub("", text), encoding)
    if why is not None:
        raise PayloadTextError(NOT_WHAT[encoding], why, field)
    return spelled


def problem(text: str, encoding: str = "auto") -> str | None:
    """Why ``text`` is not bytes in ``encoding``, or None when it is."""
    return _read(_SPACE.sub("", text), encoding)[1]


def _read(text: str, encoding: str) -> tuple[bytes, str | None]:
    """(bytes, None), or (b"", why) when the whitespace-free ``text`` is not bytes in ``encoding``."""
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {', '.join(ENCODINGS)}, not {encoding!r}")
    if encoding == "hex" or (encoding == "auto" and _PREFIX.search(text)):
        digits = _PREFIX.sub("", text, count=1)
        if _NOT_HEX.search(digits):
            return b"", NOT_HEX_DIGIT
        return (b"", ODD) if len(digits) % 2 else (bytes.fromhex(digits), None)
    if encoding == "auto" and not _NOT_HEX.search(text) and len(text) % 2 == 0:
        return bytes.fromhex(text), None
    if _NOT_BASE64.search(text):
        return b"", NEITHER_ALPHABET if encoding == "auto" else NOT_BASE64_CHARACTER
    if not _BASE64.search(text):
        return b"", ODD if encoding == "auto" and not _NOT_HEX.search(text) else BASE64_SHAPE
    data = text.rstrip("=").translate(_TO_STANDARD)
    return base64.b64decode(data + "=" * (-len(data) % 4), validate=True), None
