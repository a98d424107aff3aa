"""Registries for golden and compatibility tests beyond the bundled types: Kafka's own
``__consumer_offsets`` specs framed as the topic frames them (int16 record type before the key, int16
version before the value), so key + value records are exercised with Java's bytes."""

from __future__ import annotations

from conftest import SPEC_DIR

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, Int16Prefixed
from kafka_meta.codec.registry import Registry
from kafka_meta.spec.loader import load_specs


def offsets_registry(snapshot: str = "") -> Registry:
    """Kafka's Oct-2024 group-coordinator specs (``snapshot="newer"`` is not usable here: its keys are
    re-based to version 0, which needs the record-type framing of the offsets family)."""
    registry = Registry()
    for spec in load_specs(SPEC_DIR / snapshot / "group-coordinator"):
        forward = ForwardPolicy.REFUSE if spec.name.endswith("Key") else ForwardPolicy.RANGES
        registry.register(SpecFormat(spec, Int16Prefixed(forward), family="offsets"))
    return registry
