"""``__consumer_offsets`` record keys and values (wire-format notes, section 7).

``schemas/offsets/`` holds the current layout of every record type (keys: ``coordinator-key`` specs whose
apiKey is the record type; values: ``coordinator-value`` specs). Values are read KIP-915 style: a version
newer than known is read with every field range evaluated at that version (the newest layout), which is
safe only when the newest known version is flexible, so for the others a newer version is refused.

``schemas/offsets-variants/<label>/`` holds layouts Kafka has since changed without a version bump or
retired (record types 9 and 18); they register as ``<Name>@<label>``.

A record type is the apiKey shared by a ``coordinator-key`` and a ``coordinator-value`` spec;
:func:`build_catalog` pairs them, the value with all its layouts (the current one, then older variants,
newest label first; layouts Kafka once shared between record types are listed in
:data:`SHARED_VALUE_LAYOUTS`). So a new record type needs one pair of spec files and no Python; the
record reader (:mod:`kafka_meta.offsets`) works from this catalogue.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, ForwardReading, Framing, Int16Prefixed, RecordTypePrefixed
from kafka_meta.codec.registry import Format, Registry, schema_root
from kafka_meta.codec.variants import Variant, VariantFormat
from kafka_meta.formats.family import Family, FormatPlugin
from kafka_meta.spec.loader import iter_spec_files, load_spec
from kafka_meta.spec.model import MessageSpec

CURRENT = "2026-08"  # the layouts of schemas/offsets: apache/kafka trunk of August 2026
VARIANTS_DIR = "offsets-variants"
FAMILY = "offsets"

# (record type, variant label) -> the record type whose value layout it used then. Until December 2024
# (KAFKA-18301) record type 0 had no value schema of its own: a type-0 key was followed by an
# OffsetCommitValue of any version.
SHARED_VALUE_LAYOUTS: dict[tuple[int, str], int] = {(0, "2024-10"): 1}


def framing(spec: MessageSpec) -> Framing:
    if spec.type == "coordinator-key":
        if spec.api_key is None:
            raise ValueError(f"{spec.source}: a coordinator-key spec needs an apiKey (its record type)")
        return RecordTypePrefixed(spec.api_key)
    newest_flexible = spec.flexible(spec.valid_versions.high)
    return Int16Prefixed(ForwardPolicy.RANGES if newest_flexible else ForwardPolicy.REFUSE)


def variant_name(spec_name: str, label: str) -> str:
    return f"{spec_name}@{label}"


FORWARD_NOTE = ("Java brokers from 4.0 on (KAFKA-18672) refuse a value version newer than they know; the "
                "ranges rule is what Kafka's generated readers (and kafka_meta's lenient reading) do with it")


def is_offsets_layout(fmt: Format) -> bool:
    """A key or value layout of ``__consumer_offsets`` (current or variant): a spec format of these families."""
    return fmt.family in (FAMILY, VARIANTS_DIR)


def forward_reading(fmt: Format) -> ForwardReading | None:
    """Compatibility-matrix hook: values follow their framing's rule, with what newer brokers do instead."""
    if not is_offsets_layout(fmt) or fmt.spec.type != "coordinator-value":  # type: ignore[attr-defined]
        return None
    return ForwardReading(fmt.framing.forward, FORWARD_NOTE)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class RecordType:
    number: int
    name: str  # e.g. "OffsetCommit": the key spec's name without "Key"
    key: SpecFormat
    values: VariantFormat
    retired: bool  # known only from older layouts (no current spec)


def _label(fmt: SpecFormat) -> str:
    return CURRENT if fmt.family == FAMILY else fmt.name.rsplit("@", 1)[1]


def build_catalog(registry: Registry) -> dict[int, RecordType]:
    """Every record type the registry's offsets layouts describe, by number."""
    keys: dict[int, list[SpecFormat]] = {}
    values: dict[int, list[SpecFormat]] = {}
    for fmt in registry.formats():
        if not is_offsets_layout(fmt):
            continue
        spec = fmt.spec  # type: ignore[attr-defined]
        table = keys if spec.type == "coordinator-key" else values
        table.setdefault(spec.api_key, []).append(fmt)  # type: ignore[arg-type]
    catalog: dict[int, RecordType] = {}
    for number, key_formats in keys.items():
        key_formats.sort(key=_label, reverse=True)  # labels are dates: newest first
        layouts = sorted(values.get(number, []), key=_label, reverse=True)
        variants = [Variant(_label(f), f) for f in layouts]
        for (record_type, label), source in SHARED_VALUE_LAYOUTS.items():
            if record_type == number:
                variants += [Variant(label, f) for f in values.get(source, []) if _label(f) == CURRENT]
        if not variants:
            continue
        key = key_formats[0]
        name = key.spec.name[:-3] if key.spec.name.endswith("Key") else key.spec.name
        catalog[number] = RecordType(number, name, key, VariantFormat(f"{name}Value", variants, family=FAMILY),
                                     retired=_label(key) != CURRENT)
    return dict(sorted(catalog.items()))


def records(registry: Registry) -> dict[str, tuple[Format, Format]]:
    """The record types as key + value pairs (each value with all its layouts), e.g. for golden cases."""
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


PLUGIN = FormatPlugin("offsets", {FAMILY: Family(framing)}, register=register, forward_reading=forward_reading,
                      records=records)
