"""What a format module contributes to the catalogue: one :class:`FormatPlugin`, its hooks all optional.

A :class:`Family` says what a directory of ``schemas/`` means: its framing, and model bases that add
derived views.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.codec.framing import ForwardReading, Framing
from kafka_meta.codec.registry import Registry
from kafka_meta.models.base import Message
from kafka_meta.spec.model import MessageSpec


@dataclass(frozen=True)
class Family:
    framing: Callable[[MessageSpec], Framing]
    model_bases: dict[str, type[Message]] = field(default_factory=dict)
    # the type name a spec is registered under, when it differs from the spec's own name
    type_names: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FormatPlugin:
    """One format module's part of the catalogue.

    * ``families``: ``{directory: Family}``: the specs of ``schemas/<directory>/`` and how they are framed;
    * ``register(registry)``: adds formats that are not (only) a spec (hand-declared layouts, variants);
    * ``forward_reading(fmt)``: what Kafka's readers do with a version of ``fmt`` newer than they know, when
      that is not the framing's rule (None: not this plugin's format), for the compatibility matrix;
    * ``records(registry)``: key + value formats that make one record, by record name (golden cases).
    """

    name: str
    families: Mapping[str, Family] = field(default_factory=dict)
    register: Callable[[Registry], None] | None = None
    forward_reading: Callable[[Any], ForwardReading | None] | None = None
    records: Callable[[Registry], dict[str, tuple[Any, Any]]] | None = None
