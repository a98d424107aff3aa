"""The formats the property tests run over: every registered spec type, plus Kafka's own specs (for
flexible versions, tagged fields and nullable structs that our bundled types may not have)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conftest import SPEC_DIR
from hypothesis import strategies as st

import kafka_meta as km
from kafka_meta.codec.format import MessageFormat, SpecFormat
from kafka_meta.codec.framing import Unframed
from kafka_meta.codec.variants import VariantFormat
from kafka_meta.spec import load_spec
from kafka_meta.spec.loader import iter_spec_files
from kafka_meta.testing.agreement import same
from kafka_meta.testing.strategies import values_for


def registered_formats() -> list[MessageFormat]:
    """Every layout reachable by name (spec-described or declared), including each layout of a variant format."""
    out: dict[int, MessageFormat] = {}
    for fmt in (km.get_format(n) for n in km.types()):
        if isinstance(fmt, MessageFormat):
            out[id(fmt)] = fmt
        elif isinstance(fmt, VariantFormat):
            for variant in fmt.variants:
                out[id(variant.format)] = variant.format
    return list(out.values())


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
    return f"{pair[0].name}-{type(pair[0].framing).__name__}-v{pair[1]}"


def drawn_batch(pair: tuple[MessageFormat, int], draw: Callable[[Any], Any]) -> tuple[MessageFormat, int, list[bytes]]:
    """A format and version of the parametrised ``pair``, and one to four of its values drawn and encoded (the
    good rows of the batch decoders' tests)."""
    fmt, version = pair
    strategy = values_for(fmt.construct(version))
    return fmt, version, [fmt.encode(draw(strategy), version) for _ in range(draw(st.integers(1, 4)))]


def arrays_agree(left: Any, right: Any) -> bool:
    """Two Arrow arrays of the same type and values, a NaN agreeing with the same NaN (Arrow's ``equals`` says a
    NaN differs from itself, and damaged bytes read as a float64 are often one)."""
    return left.type == right.type and len(left) == len(right) and same(left.to_pylist(), right.to_pylist())
