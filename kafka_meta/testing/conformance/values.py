"""Random plain values of any registered type and version, drawn from the construct trees the codecs use.

The same rules as :mod:`kafka_meta.testing.strategies` (a value per construct, absent fields at their defaults,
members drawn in wire order with their bindings so that dictionary references and dispatched bodies resolve),
but drawn with :class:`random.Random` instead of hypothesis: a conformance run needs tens of thousands of values a
minute, and hypothesis draws structured values some hundred times slower. The distribution leans on what breaks
codecs: boundary integers, nulls wherever a field may be null, empty and large collections, strings of every
script (astral characters, NUL, combining marks, right-to-left), strings at and just over a length limit, and
unknown tagged fields in flexible structs.
"""

from __future__ import annotations

import random
from typing import Any

from kafka_meta.codec.dispatch import Dispatch
from kafka_meta.testing.wire_order import struct_in_wire_order
from kafka_meta.wire.bindings import Bind
from kafka_meta.wire.checked import UVARINT_BOUNDS, Bounded, LayoutVersion
from kafka_meta.wire.composite import KArray, KStruct, Marked
from kafka_meta.wire.dictionary import Dictionary, DictRef
from kafka_meta.wire.javaio import ModifiedUtf8, Utf16Chars
from kafka_meta.wire.primitives import INT_BOUNDS, Bool, Fixed, KBytes, KString, KUuid, UVarInt

# strings that have broken codecs: empty, NUL, astral (a surrogate pair in Java), combining and joining marks,
# right-to-left, characters whose UTF-8 and modified UTF-8 differ, the largest BMP character
TRICKY = ("", "\x00", "a\x00b", "\U0001f600", "é", "e\u0301", "\u200d", "\u05e9\u05dc\u05d5\u05dd", "日本語",
          "\uffff", "\U0010ffff", "\x7f", "\u0080", "\u07ff", "\u0800", "__consumer_offsets", " ", "\t\n")
# code point ranges strings are drawn from (no lone surrogates: no writer produces them)
RANGES = ((0x20, 0x7E), (0x20, 0x7E), (0x20, 0x7E), (0x00, 0x1F), (0xA0, 0x7FF), (0x800, 0xD7FF),
          (0xE000, 0xFFFF), (0x10000, 0x10FFFF))
STRING_LIMIT = 0x7FFF  # Kafka's strings: an int16 of bytes (compact ones too: the writers check the same limit)
UTF_LIMIT = 0xFFFF  # Java's writeUTF
SMALL = 4
LARGE = 200  # elements of a large collection (of primitives; fewer for structs)


class Sampler:
    """Draws plain values for construct trees; ``large`` is the share of collections and strings drawn large."""

    def __init__(self, rng: random.Random, large: float = 0.02, unknown_tags: float = 0.25) -> None:
        self.rng = rng
        self.large = large
        self.unknown_tags = unknown_tags
        self.depth = 0  # arrays of structs within arrays of structs: smaller the deeper, so values stay small

    # ------------------------------------------------------------------ numbers
    def integer(self, low: int, high: int) -> int:
        r = self.rng.random()
        if r < 0.3:
            edges = [v for v in (0, 1, -1, low, high, low + 1, high - 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000)
                     if low <= v <= high]
            return self.rng.choice(edges)
        if r < 0.7:
            return self.rng.randint(max(low, -1000), min(high, 1000))
        return self.rng.randint(low, high)

    # ------------------------------------------------------------------ text and bytes
    def text(self, limit: int | None = None, encoded: str = "utf-8") -> str:
        r = self.rng.random()
        if r < 0.25:
            return self.rng.choice(TRICKY)
        if limit is not None and r < 0.25 + self.large / 4:
            return self.at_limit(limit, encoded)
        size = self.rng.randint(100, 2000) if r > 1 - self.large / 2 else self.rng.randint(0, 12)
        low, high = self.rng.choice(RANGES)
        return "".join(map(chr, self.rng.choices(range(low, high + 1), k=size)))

    def at_limit(self, limit: int, encoded: str) -> str:
        """A string of ``limit`` encoded bytes, or one more (which every writer must refuse), or a multi-byte
        character straddling the limit."""
        kind = self.rng.randrange(3)
        if kind == 0:
            return "x" * limit
        if kind == 1:
            return "x" * (limit + 1)
        tail = "é" if encoded != "utf-8" or self.rng.random() < 0.5 else "\U0001f600"
        return "x" * (limit - 1) + tail

    def binary(self) -> bytes:
        r = self.rng.random()
        size = self.rng.randint(200, 3000) if r > 1 - self.large else self.rng.choice((0, 0, 1, 3, 8, 12, 16))
        return self.rng.randbytes(size)

    def size(self, struct_elements: bool) -> int:
        r = self.rng.random()
        if r < 0.3:
            return 0
        if r > 1 - self.large and self.depth == 0:
            return self.rng.randint(LARGE // 10, LARGE // 5) if struct_elements else self.rng.randint(LARGE // 2, LARGE)
        return self.rng.randint(1, max(1, SMALL - self.depth))

    def maybe_null(self, nullable: bool) -> bool:
        return nullable and self.rng.random() < 0.25

    # ------------------------------------------------------------------ constructs
    def value(self, con: Any, bindings: dict[str, Any] | None = None) -> Any:
        bindings = {} if bindings is None else bindings
        if isinstance(con, Fixed):
            if con.kind == "float64":
                return self.rng.choice((0.0, -0.0, 1.5, -2.25e10, 1e-300, self.rng.uniform(-1e6, 1e6)))
            return self.integer(*INT_BOUNDS[con.kind])
        if isinstance(con, Bool):
            return self.rng.random() < 0.5
        if isinstance(con, UVarInt):
            return self.integer(*UVARINT_BOUNDS)
        if isinstance(con, LayoutVersion):
            return con.version
        if isinstance(con, Bounded):
            return self.integer(con.low, con.high)
        if isinstance(con, Bind):
            return self.value(con.inner, bindings)
        if isinstance(con, KUuid):
            return bytes(16) if self.rng.random() < 0.1 else self.rng.randbytes(16)
        if isinstance(con, KString):
            return None if self.maybe_null(con.nullable) else self.text(STRING_LIMIT)
        if isinstance(con, ModifiedUtf8):
            return self.text(UTF_LIMIT, "modified-utf-8")
        if isinstance(con, Utf16Chars):
            text = self.text()
            return text or None  # "" is written as none, like Java
        if isinstance(con, KBytes):
            return None if self.maybe_null(con.nullable) else self.binary()
        if isinstance(con, Dictionary):
            return self.dictionary(con)
        if isinstance(con, DictRef):
            return self.rng.choice(bindings[con.dictionary])
        if isinstance(con, Dispatch):
            fmt = con.formats()[bindings[con.key]]
            return self.value(fmt.construct(bindings[con.version]))
        if isinstance(con, KArray):
            if self.maybe_null(con.nullable):
                return None
            element = con.element
            if isinstance(element, DictRef) or _refers(element):
                names = bindings.get(getattr(element, "dictionary", None) or _dictionary_of(element), [])
                if not names:
                    return []
            if not isinstance(element, KStruct):
                return [self.value(element, bindings) for _ in range(self.size(False))]
            n = self.size(True)
            self.depth += 1
            try:
                return [self.value(element, bindings) for _ in range(n)]
            finally:
                self.depth -= 1
        if isinstance(con, Marked):
            return None if self.rng.random() < 0.25 else self.value(con.struct, bindings)
        if isinstance(con, KStruct):
            return self.struct(con, bindings)
        raise TypeError(f"no sampler for {con!r}")

    def struct(self, con: KStruct, bindings: dict[str, Any]) -> dict[str, Any]:
        # tagged fields are often left out (at their defaults)
        return struct_in_wire_order(con, bindings, self.rng.choice, self.value, self.unknown,
                                    lambda: self.rng.random() < 0.4)

    def dictionary(self, con: Dictionary) -> list[dict[str, Any]]:
        key, value = con.key.py, con.value.py
        entries: list[dict[str, Any]] = []
        keys: set[int] = set()
        names: set[str] = set()
        for _ in range(self.size(True)):
            k, name = self.integer(*INT_BOUNDS["int32"]), self.text()
            if k in keys or name in names:
                continue
            keys.add(k)
            names.add(name)
            entries.append({**con.element.default_plain(), key: k, value: name})
        return entries

    def unknown(self, con: KStruct) -> list[tuple[int, bytes]]:
        if self.rng.random() >= self.unknown_tags:
            return []
        known = set(con.by_tag)
        tags: set[int] = set()
        for _ in range(self.rng.randint(1, 3)):
            tag = self.rng.choice((self.rng.randint(0, 20), self.rng.randint(0, 300), self.rng.randint(0, 1 << 31)))
            if tag not in known:
                tags.add(tag)
        return [(t, self.rng.randbytes(self.rng.choice((0, 1, 4, 9)))) for t in sorted(tags)]


def _refers(con: Any) -> bool:
    """Whether a struct refers to a dictionary (so an array of it needs that dictionary to be non-empty)."""
    return isinstance(con, KStruct) and any(isinstance(m.con, DictRef) for m in con.members if m.con is not None)


def _dictionary_of(con: Any) -> str | None:
    if isinstance(con, KStruct):
        for m in con.members:
            if isinstance(m.con, DictRef):
                return m.con.dictionary
    return None
