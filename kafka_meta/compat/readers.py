"""A Kafka reader whose newest version is R, built from the format itself.

For a spec-described format it is the same format over the spec as it read when R was the newest
version (:func:`kafka_meta.spec.history.spec_as_of`), with the same framing, so it applies the same
forward-reading rule a real reader of that release applies. Other formats may offer ``limited_to(R)``.
"""

from __future__ import annotations

import copy
from typing import Any

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy
from kafka_meta.compat.rules import ForwardReading
from kafka_meta.errors import KafkaMetaError
from kafka_meta.spec.history import spec_as_of
from kafka_meta.wire.composite import KStruct


class CompatError(KafkaMetaError):
    """A format whose compatibility cannot be worked out (no layouts, no limited reader)."""


def limited_reader(fmt: Any, newest: int, forward: ForwardReading | None = None) -> Any:
    """A reader of ``fmt`` that knows versions up to ``newest`` only, treating newer versions by ``forward``
    (by default, as the format's framing does)."""
    if isinstance(fmt, SpecFormat):
        reader = SpecFormat(spec_as_of(fmt.spec, newest), fmt.framing, name=fmt.name, family=fmt.family,
                            model_base=fmt.model_base)
    elif getattr(fmt, "limited_to", None) is not None:
        reader = fmt.limited_to(newest)
    else:
        raise CompatError(f"{fmt.name}: no reader limited to version {newest} can be built (not described by a "
                          "spec, and no limited_to())")
    if forward is not None and getattr(reader.framing, "forward", None) is not forward.at(newest):
        framing = copy.copy(reader.framing)
        framing.forward = forward.at(newest)
        reader = reader.with_framing(framing)
    return reader


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
    if forward.rule is ForwardPolicy.CLAMP:
        return writer_layout(limited_reader(fmt, reader) if isinstance(fmt, SpecFormat) else fmt, reader)
    if forward.rule is ForwardPolicy.RANGES:
        return writer_layout(limited_reader(fmt, reader), writer)
    raise CompatError(f"no layout: a {forward.rule.value} reader does not read version {writer} with a layout")
