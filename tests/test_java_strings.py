"""Java's DataOutputStream strings: modified UTF-8 (writeUTF) and UTF-16 characters (writeChars)."""

from __future__ import annotations

from io import BytesIO

import pytest
from construct import Container
from hypothesis import given
from hypothesis import strategies as st

from kafka_meta.wire.codegen import compile_decoder, compile_encoder
from kafka_meta.wire.errors import BuildError, WireError
from kafka_meta.wire.javaio import (
    ModifiedUtf8,
    ModifiedUtf8Error,
    Utf16Chars,
    decode_modified_utf8,
    encode_modified_utf8,
)


def cesu8_with_java_nul(text: str) -> bytes:
    """An independent statement of modified UTF-8: UTF-16 units each as UTF-8 (CESU-8), NUL as C0 80."""
    units = text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
    split = "".join(chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF))
                    if ord(c) > 0xFFFF else c for c in units)
    return split.encode("utf-8", "surrogatepass").replace(b"\x00", b"\xc0\x80")


@given(st.text())
def test_modified_utf8_is_cesu8_with_two_byte_nul(text):
    encoded = encode_modified_utf8(text)
    assert encoded == cesu8_with_java_nul(text)
    assert decode_modified_utf8(encoded) == decode_modified_utf8(encoded, strict=True) == text


@given(st.binary(max_size=12))
def test_decoding_any_bytes_gives_a_string_or_a_located_error(data):
    try:
        text = decode_modified_utf8(data)
    except ModifiedUtf8Error as e:
        assert 0 <= e.offset < len(data)
    else:
        assert isinstance(text, str)


def both_readers(con, data: bytes, strict: bool = False):
    """The interpreted and the generated reader on the same bytes: (value, end) or None on failure."""
    try:
        stream = BytesIO(data)
        ref = con._parse(stream, Container(_strict=strict), ""), stream.tell()
    except WireError:
        ref = None
    try:
        fast = compile_decoder(con, strict=strict)(data, 0, len(data))
    except Exception:  # noqa: BLE001 - the fast path signals malformation by raising
        fast = None
    return ref, fast


@given(st.binary(max_size=10), st.booleans())
def test_both_readers_agree_on_any_bytes(data, strict):
    for con in (ModifiedUtf8(), Utf16Chars()):
        ref, fast = both_readers(con, data, strict)
        assert ref == fast


@given(st.none() | st.text(max_size=8))
def test_utf16_chars_roundtrip(text):
    con = Utf16Chars()
    out = bytearray()
    compile_encoder(con)(text, out)
    stream = BytesIO()
    con._build(text, stream, Container(), "")
    assert bytes(out) == stream.getvalue()
    assert int.from_bytes(out[:4], "big") == len((text or "").encode("utf-16-be")) // 2
    assert both_readers(con, bytes(out))[0] == (text or None, len(out))  # "" and None both mean "none"


def test_writeutf_length_limit():
    with pytest.raises(BuildError, match="writeUTF limit"):
        ModifiedUtf8()._build("é" * 40000, BytesIO(), Container(), "")
    ModifiedUtf8()._build("a" * 65535, BytesIO(), Container(), "")
