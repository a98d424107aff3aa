"""What a format module contributes to the catalogue: one :class:`FormatPlugin`, its hooks all optional.

A :class:`Family` says what a directory of ``schemas/`` means: its framing, model bases that add derived
views, and the defaults that differ from its specs' (:func:`with_defaults`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.codec.framing import ForwardReading, Framing
from kafka_meta.codec.registry import Registry
from kafka_meta.models.base import Message
from kafka_meta.spec.model import MessageSpec, parse_default


@dataclass(frozen=True)
class Family:
    framing: Callable[[MessageSpec], Framing]
    model_bases: dict[str, type[Message]] = field(default_factory=dict)
    # the type name a spec is registered under, when it differs from the spec's own name
    type_names: dict[str, str] = field(default_factory=dict)
    # {spec name: {"Struct.Field": default text}}: defaults that differ from the spec's (see with_defaults)
    defaults: dict[str, dict[str, str]] = field(default_factory=dict)


def with_defaults(spec: MessageSpec, defaults: Mapping[str, str]) -> MessageSpec:
    """``spec`` with the defaults of some fields replaced, each named ``"Struct.Field"`` (``"Field"`` at the top
    level) and given as a spec's default text (``"null"``...).

    Why: a spec of ours says what Kafka's spec says, default included, and a generated class takes that
    default, but Kafka's own code may never build the value that way. Kafka Streams fills its generated
    ``SubscriptionInfoData`` from a ``TaskId``, whose topology name is null when a task has none, so the
    ``namedTopology`` it writes for such a task is null, not the generated class's empty string. A model
    built by hand, with the field left out, must write what Kafka writes; so the default is replaced where the
    spec is registered, the spec file staying Kafka's word for word (and the field's absent value in versions
    without it changes with it, so a model built by hand stays writable there).
    """
    for path, text in defaults.items():
        struct_name, _, field_name = path.rpartition(".")
        fields = spec.structs[struct_name].fields if struct_name else spec.fields
        found = next((f for f in fields if f.name == field_name), None)
        if found is None:
            raise KeyError(f"{spec.name} has no field {path}")
        parse_default(found.type, text, nullable=found.ever_nullable)  # refuses a default the field cannot take
        found.default = text
    return spec


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
