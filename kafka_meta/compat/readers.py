"""A Kafka reader whose newest version is R, built from the format itself.

For a spec-described format it is the same format over the spec as it read when R was the newest
version (:func:`kafka_meta.spec.history.spec_as_of`), with the same framing, so it applies the same
forward-reading rule a real reader of that release applies. Other formats may offer ``limited_to(R)``.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.codec.format import SpecFormat
from kafka_meta.compat.rules import Forward, ForwardReading
from kafka_meta.errors import KafkaMetaError
from kafka_meta.spec.history import spec_as_of
from kafka_meta.wire.composite import KStruct


class CompatError(KafkaMetaError):
    """A format whose compatibility cannot be worked out (no layouts, no limited reader)."""


def limited_reader(fmt: Any, newest: int) -> Any:
    """A reader of ``fmt`` that knows versions up to ``newest`` only."""
    own = getattr(fmt, "limited_to", None)
    if own is not None:
        return own(newest)
    if isinstance(fmt, SpecFormat):
        return SpecFormat(spec_as_of(fmt.spec, newest), fmt.framing, name=fmt.name, family=fmt.family,
                          model_base=fmt.model_base)
    raise CompatError(f"{fmt.name}: no reader limited to version {newest} can be built (not described by a spec, "
                      "and no limited_to())")


def writer_layout(fmt: Any, version: int) -> KStruct:
    construct = getattr(fmt, "construct", None)
    if construct is None:
        raise CompatError(f"{fmt.name} exposes no construct tree, so its layouts cannot be compared")
    return construct(version)  # type: ignore[no-any-return]


def reader_layout(fmt: Any, reader: int, writer: int, forward: ForwardReading) -> KStruct:
    """The construct a reader at ``reader`` uses on bytes of version ``writer`` (``writer`` <= ``reader``, or
    a clamping or range-evaluating reader)."""
    if writer <= reader:
        if isinstance(fmt, SpecFormat):
            return limited_reader(fmt, reader).construct(writer)  # type: ignore[no-any-return]
        return writer_layout(fmt, writer)  # a reader knows every version up to its own, as the writer wrote it
    if forward.rule is Forward.CLAMP:
        return writer_layout(limited_reader(fmt, reader) if isinstance(fmt, SpecFormat) else fmt, reader)
    if forward.rule is Forward.RANGES:
        return writer_layout(limited_reader(fmt, reader), writer)
    raise CompatError(f"no layout: a {forward.rule.value} reader does not read version {writer} with a layout")
