"""Assignor user data: StickyAssignor and CooperativeStickyAssignor (wire-format notes, section 3).

Neither carries a version. Java's reader tries StickyAssignor v1, then v0, and when neither fits the
member counts as owning nothing with generation -1; CooperativeStickyAssignor's reader falls back to -1
too. kafka-python 3 writes sticky user data with an int16 version prefix. Each way of writing is a
variant (``java``, ``kafka-python``); bytes nobody can read decode to Kafka's default with variant
``unreadable`` and are written back unchanged.
"""

from __future__ import annotations

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, Int16Prefixed, Unframed
from kafka_meta.codec.registry import Registry, schema_root
from kafka_meta.codec.variants import Variant, VariantFormat
from kafka_meta.formats.family import FormatPlugin
from kafka_meta.models.base import Message
from kafka_meta.spec.loader import load_spec

JAVA = "java"
KAFKA_PYTHON = "kafka-python"


def kafka_default(fmt: VariantFormat, data: bytes) -> Message:
    """What Kafka's assignors make of unreadable user data: every field at its default (no partitions,
    generation -1); the bytes are kept so that re-encoding reproduces them."""
    message = fmt.model()
    message.__pydantic_private__["_trailing"] = data  # type: ignore[index]
    return message


def sticky_formats() -> list[VariantFormat]:
    root = schema_root() / "assignors"
    sticky = SpecFormat(load_spec(root / "StickyAssignorUserData.json"), Unframed(), family="assignors")
    prefixed = sticky.with_framing(Int16Prefixed(ForwardPolicy.REFUSE))
    cooperative = SpecFormat(load_spec(root / "CooperativeStickyAssignorUserData.json"), Unframed(),
                             family="assignors")
    return [
        VariantFormat("StickyAssignorUserData",
                      [Variant(JAVA, sticky, 1), Variant(JAVA, sticky, 0), Variant(KAFKA_PYTHON, prefixed)],
                      family="assignors", fallback=kafka_default),
        VariantFormat("CooperativeStickyAssignorUserData", [Variant(JAVA, cooperative, 0)], family="assignors",
                      fallback=kafka_default),
    ]


def register(registry: Registry) -> None:
    for fmt in sticky_formats():
        registry.register(fmt)


PLUGIN = FormatPlugin("assignors", register=register)
