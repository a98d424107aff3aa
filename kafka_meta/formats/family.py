"""What a format module contributes to the catalogue: one :class:`FormatPlugin`, its hooks all optional.

A :class:`Family` says what a directory of ``schemas/`` means: its framing, model bases that add derived
views, and the defaults that differ from its specs' (:func:`with_defaults`).

Coordinator logs are the internal topics whose records are a coordinator's key + value records:
``__consumer_offsets`` (the group coordinator), ``__transaction_state`` (the transaction coordinator) and
``__share_group_state`` (the share coordinator) are written by one serde in Kafka (``CoordinatorRecordSerde``):

* key: ``int16 record type | key struct`` (the key spec's apiKey is the record type, its version is 0);
* value: ``int16 version | value struct``, or null for a tombstone (a delete).

So one description serves them all: a :class:`CoordinatorLog` names the topic, the ``schemas/`` directory of
its current layouts and (offsets only) the directory of layouts Kafka has since changed without a bump or
retired; :func:`build_catalog` pairs its ``coordinator-key`` and ``coordinator-value`` specs by apiKey into
:class:`RecordType`\\ s, each value with all its layouts. A new record type, or a new coordinator log, needs
spec files and one :class:`CoordinatorLog`; the record reader works from the catalogue.

Values are read KIP-915 style: a version newer than known is read with every field range evaluated at that
version (the newest layout), which is safe only when the newest known version is flexible, so for the others
a newer version is refused (:func:`framing`). Kafka 4.x's ``CoordinatorRecordSerde`` itself refuses any value
version outside its class's range (``UnknownRecordVersionException``, KAFKA-18672), which is the strict read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, ForwardReading, Framing, Int16Prefixed, RecordTypePrefixed
from kafka_meta.codec.registry import Format, Registry
from kafka_meta.codec.variants import Variant, VariantFormat
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


# ------------------------------------------------------------------ coordinator logs
KEY, VALUE = "coordinator-key", "coordinator-value"
FORWARD_NOTE = ("Java brokers from 4.0 on (KAFKA-18672) refuse a value version newer than they know; the "
                "ranges rule is what Kafka's generated readers (and kafka_meta's lenient reading) do with it")


@dataclass(frozen=True)
class CoordinatorLog:
    """One coordinator's internal topic, as the catalogue reads it.

    ``family``: the ``schemas/`` directory of the current layouts, labelled ``current``; ``variants``: the
    family of older layouts (registered as ``<Name>@<label>``, labels being dates), if any;
    ``shared_value_layouts``: (record type, label) -> the record type whose value layout it used then.
    """

    topic: str
    family: str
    current: str
    variants: str | None = None
    shared_value_layouts: Mapping[tuple[int, str], int] = field(default_factory=dict)

    @property
    def families(self) -> tuple[str, ...]:
        return (self.family,) if self.variants is None else (self.family, self.variants)

    def holds(self, fmt: Format) -> bool:
        """A key or value layout of this log (current or variant)."""
        return fmt.family in self.families

    def label(self, fmt: SpecFormat) -> str:
        return self.current if fmt.family == self.family else fmt.name.rsplit("@", 1)[1]


def framing(spec: MessageSpec) -> Framing:
    """How a coordinator record's key or value carries its type or version (see the module docstring)."""
    if spec.type == KEY:
        if spec.api_key is None:
            raise ValueError(f"{spec.source}: a coordinator-key spec needs an apiKey (its record type)")
        return RecordTypePrefixed(spec.api_key)
    newest_flexible = spec.flexible(spec.valid_versions.high)
    return Int16Prefixed(ForwardPolicy.RANGES if newest_flexible else ForwardPolicy.REFUSE)


def forward_reading(log: CoordinatorLog, fmt: Format) -> ForwardReading | None:
    """Compatibility-matrix hook: values follow their framing's rule, with what newer brokers do instead."""
    if not log.holds(fmt) or fmt.spec.type != VALUE:  # type: ignore[attr-defined]
        return None
    return ForwardReading(fmt.framing.forward, FORWARD_NOTE)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class RecordType:
    number: int
    name: str  # e.g. "OffsetCommit": the key spec's name without "Key"
    key: SpecFormat
    values: VariantFormat
    retired: bool  # known only from older layouts (no current spec)


def build_catalog(registry: Registry, log: CoordinatorLog) -> dict[int, RecordType]:
    """Every record type the registry's layouts of ``log`` describe, by number."""
    keys: dict[int, list[SpecFormat]] = {}
    values: dict[int, list[SpecFormat]] = {}
    for fmt in registry.formats():
        if not log.holds(fmt):
            continue
        spec = fmt.spec  # type: ignore[attr-defined]
        table = keys if spec.type == KEY else values
        table.setdefault(spec.api_key, []).append(fmt)  # type: ignore[arg-type]
    catalog: dict[int, RecordType] = {}
    for number, key_formats in keys.items():
        key_formats.sort(key=log.label, reverse=True)  # labels are dates: newest first
        layouts = sorted(values.get(number, []), key=log.label, reverse=True)
        variants = [Variant(log.label(f), f) for f in layouts]
        for (record_type, label), source in log.shared_value_layouts.items():
            if record_type == number:
                variants += [Variant(label, f) for f in values.get(source, []) if log.label(f) == log.current]
        if not variants:
            continue
        key = key_formats[0]
        name = key.spec.name[:-3] if key.spec.name.endswith("Key") else key.spec.name
        catalog[number] = RecordType(number, name, key,
                                     VariantFormat(f"{name}Value", variants, family=log.family),
                                     retired=log.label(key) != log.current)
    return dict(sorted(catalog.items()))


def records(registry: Registry, log: CoordinatorLog) -> dict[str, tuple[Format, Format]]:
    """The record types as key + value pairs (each value with all its layouts), e.g. for golden cases."""
    return {rt.name: (rt.key, rt.values) for rt in build_catalog(registry, log).values()}


def coordinator_plugin(log: CoordinatorLog, model_bases: Mapping[str, type[Message]] | None = None,
           register: Callable[[Registry], None] | None = None) -> FormatPlugin:
    """The catalogue's plugin of a coordinator log: its family of specs, framed by :func:`framing`, with the
    forward-reading and record hooks of that log."""
    return FormatPlugin(log.family, {log.family: Family(framing, dict(model_bases or {}))}, register=register,
                        forward_reading=partial(forward_reading, log), records=partial(records, log=log))
