"""``__consumer_offsets`` record keys and values (wire-format notes, section 7).

``schemas/offsets/`` holds the current layout of every record type (keys: ``coordinator-key`` specs whose
apiKey is the record type; values: ``coordinator-value`` specs). Values are read KIP-915 style: a version
newer than known is read with every field range evaluated at that version (the newest layout), which is
safe only when the newest known version is flexible, so for the others a newer version is refused.

``schemas/offsets-variants/<label>/`` holds layouts Kafka has since changed without a version bump or
retired (record types 9 and 18); they register as ``<Name>@<label>`` and the record reader
(:mod:`kafka_meta.offsets`) tries them after the current layout.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, Framing, Int16Prefixed, RecordTypePrefixed
from kafka_meta.codec.registry import Registry, schema_root
from kafka_meta.formats.family import Family
from kafka_meta.spec.loader import iter_spec_files, load_spec
from kafka_meta.spec.model import MessageSpec

CURRENT = "2026-08"  # the layouts of schemas/offsets: apache/kafka trunk of August 2026
VARIANTS_DIR = "offsets-variants"


def framing(spec: MessageSpec) -> Framing:
    if spec.type == "coordinator-key":
        if spec.api_key is None:
            raise ValueError(f"{spec.source}: a coordinator-key spec needs an apiKey (its record type)")
        return RecordTypePrefixed(spec.api_key)
    newest_flexible = spec.flexible(spec.valid_versions.high)
    return Int16Prefixed(ForwardPolicy.RANGES if newest_flexible else ForwardPolicy.REFUSE)


FAMILIES = {"offsets": Family(framing)}


def variant_name(spec_name: str, label: str) -> str:
    return f"{spec_name}@{label}"


FORWARD_NOTE = ("Java brokers from 4.0 on (KAFKA-18672) refuse a value version newer than they know; the "
                "ranges rule is what Kafka's generated readers (and kafka_meta's lenient reading) do with it")


def forward_reading(fmt: Any) -> Any:
    """Compatibility-matrix hook: values follow their framing's rule, with what newer brokers do instead."""
    is_value = getattr(getattr(fmt, "spec", None), "type", "") == "coordinator-value"
    if getattr(fmt, "family", None) not in ("offsets", VARIANTS_DIR) or not is_value:
        return None
    from kafka_meta.compat.rules import ForwardReading

    return ForwardReading(fmt.framing.forward, FORWARD_NOTE)


def records(registry: Registry) -> dict[str, tuple[Any, Any]]:
    """The record types as key + value pairs (each value with all its layouts), e.g. for golden cases."""
    from kafka_meta.offsets.catalog import build_catalog

    return {rt.name: (rt.key, rt.values) for rt in build_catalog(registry).values()}


def register(registry: Registry) -> None:
    root = schema_root() / VARIANTS_DIR
    if not root.is_dir():
        return
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in iter_spec_files(directory):
            spec = load_spec(path)
            registry.register(SpecFormat(spec, framing(spec), name=variant_name(spec.name, directory.name),
                                         family=VARIANTS_DIR))
