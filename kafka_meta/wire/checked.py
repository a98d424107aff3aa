"""Numbers that carry a rule: the message's own version, and integers Kafka only accepts within bounds.

Both wrap a plain number construct (:class:`~kafka_meta.wire.primitives.Fixed` or
:class:`~kafka_meta.wire.primitives.UVarInt`) and add the rule to the interpreted reader, the generated
reader and the writers alike, so the fast path and the diagnostics keep saying the same thing.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.wire.errors import Fault
from kafka_meta.wire.primitives import INT_BOUNDS, Fixed, KafkaConstruct, UVarInt
from kafka_meta.wire.runtime import FIXED, uvarint_bytes

UVARINT_BOUNDS = (0, 0xFFFFFFFF)


def number_construct(kind: str) -> Fixed | UVarInt:
    """The plain construct of a number kind: a fixed-width kind (``int32``...) or ``uvarint``."""
    return UVarInt() if kind == "uvarint" else Fixed(kind)


def number_bounds(kind: str) -> tuple[int, int]:
    return UVARINT_BOUNDS if kind == "uvarint" else INT_BOUNDS[kind]


class LayoutVersion(KafkaConstruct):
    """A message's own version carried as its first field (Kafka Streams' leading int32, the metadata log's
    frame version).

    Read as a number. Written as the version being encoded, whatever value the message holds: the field
    mirrors the framing, so a message re-encoded at another version says that version.
    """

    shown = ("kind", "version")

    def __init__(self, kind: str, version: int) -> None:
        super().__init__()
        self.kind = kind
        self.version = version
        self.number = number_construct(kind)
        self.min_size = self.number.min_size
        self.encoded = uvarint_bytes(version) if kind == "uvarint" else FIXED[kind].pack(version)

    def _parse(self, stream: Any, context: Any, path: str) -> int:
        return self.number._parse(stream, context, path)

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        stream.write(self.encoded)
        return obj

    def emit_decode(self, em: Any, target: str) -> None:
        self.number.emit_decode(em, target)

    def emit_encode(self, em: Any, expr: str) -> None:
        em.line(f"{em.out} += {self.encoded!r}")


class Bounded(KafkaConstruct):
    """A number Kafka accepts only within ``low..high``; ``rule`` says why, in the reader's error.

    Examples: a Streams subscription's latestSupportedVersion may not be below its version (Java's
    ``SubscriptionInfo`` refuses it), the metadata log's apiKey and version must fit an int16.
    """

    shown = ("kind", "low", "high")

    def __init__(self, kind: str, low: int, high: int, rule: str) -> None:
        super().__init__()
        self.kind = kind
        self.number = number_construct(kind)
        kind_low, kind_high = number_bounds(kind)
        self.low = max(low, kind_low)
        self.high = min(high, kind_high)
        self.rule = rule
        self.min_size = self.number.min_size

    def _complaint(self, value: int) -> str:
        return f"{value} is outside {self.low}..{self.high}: {self.rule}"

    def _parse(self, stream: Any, context: Any, path: str) -> int:
        start = stream.tell()
        value = self.number._parse(stream, context, path)
        if not self.low <= value <= self.high:
            raise Fault(self._complaint(value), start)
        return value

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if isinstance(obj, int) and not self.low <= obj <= self.high:
            raise Fault(self._complaint(obj))
        return self.number._build(obj, stream, context, path)

    def emit_decode(self, em: Any, target: str) -> None:
        self.number.emit_decode(em, target)
        em.line(f"if not {self.low} <= {target} <= {self.high}: raise _Bad('out of bounds')")

    def emit_encode(self, em: Any, expr: str) -> None:
        v = em.var("n")
        em.line(f"{v} = {expr}")
        em.line(f"if not {self.low} <= {v} <= {self.high}: raise _Unwritable('out of bounds')")
        self.number.emit_encode(em, v)
