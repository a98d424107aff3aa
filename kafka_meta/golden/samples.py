"""Realistic sample values for a message at one version, drawn from its construct tree.

Golden cases where no real implementation's bytes exist are written by our own encoder from values that
look like what a Kafka cluster holds (group and topic names, epochs, timestamps, partition lists) rather
than random data, so that a reader of the corpus recognises them and a decode bug shows in readable
fields. Every field the version has is set (tagged fields to non-default values, nullable ones non-null),
so a case exercises the whole layout. Deterministic: re-running the corpus build writes the same bytes.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from kafka_meta.errors import KafkaMetaError
from kafka_meta.wire.bindings import Bind
from kafka_meta.wire.checked import Bounded, LayoutVersion
from kafka_meta.wire.codegen import UNKNOWN_KEY
from kafka_meta.wire.composite import KArray, KStruct, Marked, Member
from kafka_meta.wire.javaio import ModifiedUtf8, Utf16Chars
from kafka_meta.wire.primitives import INT_BOUNDS, Bool, Fixed, KBytes, KString, KUuid, UVarInt

# (substring of the lower-cased field name, value); the first match wins, so specific names come first.
# A field whose own name matches nothing is looked up by its parent's name (Topics[].Name is a topic).
_STRINGS = [
    ("protocoltype", "consumer"), ("assignor", "range"), ("instance", "checkout-pod-1"),
    ("member", "consumer-checkout-1-5b1c2d3e"), ("leader", "consumer-checkout-1-5b1c2d3e"),
    ("client", "consumer-checkout-1"), ("host", "/10.20.30.40"), ("rack", "rack-a"), ("process", "process-1"),
    ("subtopology", "0"), ("regex", "orders\\..*"), ("regularexpression", "orders\\..*"), ("topic", "orders"),
    ("group", "checkout"), ("protocol", "cooperative-sticky"), ("metadata", "checkpoint-17"),
    ("key", "retention.ms"), ("value", "604800000"), ("feature", "metadata.version"),
]
_INTS = [
    ("version", 1), ("timeout", 45_000), ("timestamp", 1_700_000_000_000), ("time", 1_700_000_000_000),
    ("expire", 1_700_086_400_000), ("numpartitions", 6), ("partition", 2), ("replication", 3), ("previous", 6),
    ("epoch", 7), ("generation", 7), ("offset", 12_345), ("port", 9092), ("error", 0), ("state", 1),
    ("level", 7), ("hash", 0x5EED_CAFE_F00D), ("count", 3), ("lag", 250), ("sum", 1_000),
]


def _pick(table: list[tuple[str, Any]], names: tuple[str, ...], fallback: Any) -> Any:
    for name in names:
        lowered = name.lower().replace("_", "")
        found = next((value for key, value in table if key in lowered), None)
        if found is not None:
            return found
    return fallback


class SampleError(KafkaMetaError):
    """A construct the sample maker has no value for (the corpus build reports it and goes on)."""


class SampleMaker:
    """Builds one plain value for a construct; ``seed`` varies values between elements of an array."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def value(self, con: Any, name: str, seed: int, parent: str = "") -> Any:
        if isinstance(con, Fixed):
            return self._number(con.kind, name, seed, parent)
        if isinstance(con, LayoutVersion):  # the message's own version, as its first field
            return con.version
        if isinstance(con, Bounded):
            kind = "uint32" if con.kind == "uvarint" else con.kind
            return max(con.low, min(con.high, self._number(kind, name, seed, parent)))
        if isinstance(con, Bind):
            return self.value(con.inner, name, seed, parent)
        if isinstance(con, (ModifiedUtf8, Utf16Chars)):  # Java's own string encodings
            return self.value(KString(compact=False, nullable=False), name, seed, parent)
        if isinstance(con, Bool):
            return True
        if isinstance(con, UVarInt):
            return 1 + seed
        if isinstance(con, KUuid):
            return uuid.uuid5(uuid.NAMESPACE_URL, f"kafka-meta:{self.type_name}:{name}:{seed}").bytes
        if isinstance(con, KString):
            text = _pick(_STRINGS, (name, parent), name.lower())
            return text if seed == 0 or text.startswith("/") else f"{text}-{seed}"
        if isinstance(con, KBytes):
            return bytes([0, 1, 2, 0xCA, 0xFE, seed & 0xFF])
        if isinstance(con, KArray):
            count = 3 if isinstance(con.element, Fixed) else 2
            return [self.value(con.element, name, seed + i, parent) for i in range(count)]
        if isinstance(con, Marked):
            return self.struct(con.struct, seed, name)
        if isinstance(con, KStruct):
            return self.struct(con, seed, name)
        raise SampleError(f"no realistic sample value for {con!r} ({self.type_name})")

    def _number(self, kind: str, name: str, seed: int, parent: str) -> Any:
        if kind == "float64":
            return 0.75 + seed
        low, high = INT_BOUNDS[kind]
        if name.lower() in ("partition", "partitions", "partitionindex"):
            value = seed  # partition numbers count up from 0
        else:
            value = _pick(_INTS, (name, parent), 3) + seed
        return max(low, min(high, value))

    def struct(self, con: KStruct, seed: int, name: str = "") -> dict[str, Any]:
        out = con.default_plain()
        for m in con.members:
            if m.role != "absent":
                out[m.py] = self.member(m, seed, name)
        return out

    def member(self, m: Member, seed: int, parent: str) -> Any:
        return self.value(m.con, m.json, seed, parent)


def typical(con: KStruct, type_name: str) -> dict[str, Any]:
    """Every field of the version set to a realistic value."""
    return SampleMaker(type_name).struct(con, 0)


def defaults(con: KStruct) -> dict[str, Any]:
    """Every field at its default: the smallest message of the version."""
    return copy.deepcopy(con.default_plain())


def with_unknown_tag(value: dict[str, Any], con: KStruct) -> dict[str, Any] | None:
    """The value plus a tagged field no version knows, as a newer writer would add (flexible versions only)."""
    if not con.flexible:
        return None
    tag = max(con.by_tag, default=-1) + 1 + 10
    out = copy.deepcopy(value)
    out[UNKNOWN_KEY] = [(tag, b"\x00\x00\x00\x2a")]
    return out
