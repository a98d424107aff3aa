"""The formats the property tests run over: every registered spec type, plus Kafka's own specs (for
flexible versions, tagged fields and nullable structs that our bundled types may not have)."""

from __future__ import annotations

from conftest import SPEC_DIR

import kafka_meta as km
from kafka_meta.codec.format import MessageFormat, SpecFormat
from kafka_meta.codec.framing import Unframed
from kafka_meta.spec import load_spec
from kafka_meta.spec.loader import iter_spec_files


def registered_formats() -> list[MessageFormat]:
    return [f for f in (km.get_format(n) for n in km.types()) if isinstance(f, MessageFormat)]


def upstream_formats() -> list[SpecFormat]:
    if not SPEC_DIR.is_dir():
        return []
    out = []
    for path in iter_spec_files(SPEC_DIR):
        spec = load_spec(path)
        snapshot = "newer" if "newer" in path.parts else "2024"
        out.append(SpecFormat(spec, Unframed(), name=f"{spec.name}@{snapshot}"))
    return out


def versioned(formats: list[MessageFormat]) -> list[tuple[MessageFormat, int]]:
    return [(f, v) for f in formats for v in f.versions]


def ids(pair: tuple[MessageFormat, int]) -> str:
    return f"{pair[0].name}-v{pair[1]}"
