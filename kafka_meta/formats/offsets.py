"""``__consumer_offsets`` record keys and values (wire-format notes, section 7): a coordinator log
(:mod:`kafka_meta.formats.family`) with a history.

``schemas/offsets/`` holds the current layout of every record type (keys: ``coordinator-key`` specs whose
apiKey is the record type; values: ``coordinator-value`` specs), read KIP-915 style.

``schemas/offsets-variants/<label>/`` holds layouts Kafka has since changed without a version bump or
retired (record types 9 and 18); they register as ``<Name>@<label>``.

:func:`build_catalog` pairs keys and values, the value with all its layouts (the current one, then older
variants, newest label first; layouts Kafka once shared between record types are listed in
:data:`SHARED_VALUE_LAYOUTS`). So a new record type needs one pair of spec files and no Python; the
record reader (:mod:`kafka_meta.offsets`) works from this catalogue.
"""

from __future__ import annotations

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.registry import Format, Registry, schema_root
from kafka_meta.formats import family
from kafka_meta.formats.family import FORWARD_NOTE, CoordinatorLog, RecordType, framing
from kafka_meta.spec.loader import iter_spec_files, load_spec

__all__ = ["CURRENT", "FAMILY", "FORWARD_NOTE", "LOG", "SHARED_VALUE_LAYOUTS", "VARIANTS_DIR", "RecordType",
           "build_catalog", "framing", "is_offsets_layout", "variant_name"]

CURRENT = "2026-08"  # the layouts of schemas/offsets: apache/kafka trunk of August 2026
VARIANTS_DIR = "offsets-variants"
FAMILY = "offsets"

# (record type, variant label) -> the record type whose value layout it used then. Until December 2024
# (KAFKA-18301) record type 0 had no value schema of its own: a type-0 key was followed by an
# OffsetCommitValue of any version.
SHARED_VALUE_LAYOUTS: dict[tuple[int, str], int] = {(0, "2024-10"): 1}

LOG = CoordinatorLog("__consumer_offsets", FAMILY, CURRENT, VARIANTS_DIR, SHARED_VALUE_LAYOUTS)


def variant_name(spec_name: str, label: str) -> str:
    return f"{spec_name}@{label}"


def is_offsets_layout(fmt: Format) -> bool:
    """A key or value layout of ``__consumer_offsets`` (current or variant): a spec format of these families."""
    return LOG.holds(fmt)


def build_catalog(registry: Registry) -> dict[int, RecordType]:
    """Every record type the registry's offsets layouts describe, by number."""
    return family.build_catalog(registry, LOG)


def register(registry: Registry) -> None:
    root = schema_root() / VARIANTS_DIR
    if not root.is_dir():
        return
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in iter_spec_files(directory):
            spec = load_spec(path)
            registry.register(SpecFormat(spec, framing(spec), name=variant_name(spec.name, directory.name),
                                         family=VARIANTS_DIR))


PLUGIN = family.coordinator_plugin(LOG, register=register)
