"""The catalogue of bundled formats: the one place that lists every format plugin and registers their
formats in the registry the public API reads (:data:`REGISTRY`).

The codec below knows no format: its registry is filled from here, on first use (so that
``import kafka_meta`` stays cheap). Tooling asks the catalogue, not the format modules, for what the
plugins declare beyond formats (:func:`forward_reading`, :func:`records`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.registry import REGISTRY, Format, Registry, schema_root
from kafka_meta.formats import (
    assignors,
    consumer,
    control,
    kraft,
    offsets,
    protocol,
    share_state,
    streams,
    transaction_log,
)
from kafka_meta.formats.family import FormatPlugin, with_defaults
from kafka_meta.models.base import Message
from kafka_meta.spec.loader import iter_spec_files, load_spec

__all__ = ["PLUGINS", "REGISTRY", "forward_reading", "load_bundled", "records"]

PLUGINS: tuple[FormatPlugin, ...] = (
    assignors.PLUGIN,
    consumer.PLUGIN,
    control.PLUGIN,
    kraft.PLUGIN,
    offsets.PLUGIN,
    protocol.PLUGIN,
    share_state.PLUGIN,
    streams.PLUGIN,
    transaction_log.PLUGIN,
)


def load_bundled(registry: Registry, root: Path | None = None) -> None:
    """Register every spec of every family directory, then the formats the plugins add themselves (which
    may build on the specs, e.g. the metadata-log record on the metadata bodies)."""
    root = root or schema_root()
    for plugin in PLUGINS:
        for name, family in plugin.families.items():
            directory = root / name
            if not directory.is_dir():
                continue
            for path in iter_spec_files(directory):
                spec = load_spec(path)
                spec = with_defaults(spec, family.defaults.get(spec.name, {}))
                base = family.model_bases.get(spec.name, Message)
                type_name = family.type_names.get(spec.name, spec.name)
                registry.register(SpecFormat(spec, family.framing(spec), name=type_name, family=name,
                                             model_base=base))
    for plugin in PLUGINS:
        if plugin.register is not None:
            plugin.register(registry)


def forward_reading(fmt: Format) -> Any:
    """What a plugin says Kafka's readers do with newer versions of ``fmt`` (None: no plugin says)."""
    for plugin in PLUGINS:
        if plugin.forward_reading is not None:
            found = plugin.forward_reading(fmt)
            if found is not None:
                return found
    return None


def records(registry: Registry) -> dict[str, tuple[Format, Format]]:
    """Key + value formats that the plugins declare as one record, by record name."""
    out: dict[str, tuple[Format, Format]] = {}
    for plugin in PLUGINS:
        if plugin.records is not None:
            out.update(plugin.records(registry))
    return out


REGISTRY.add_loader(load_bundled)
