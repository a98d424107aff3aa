"""Specs cut to what a reader of some versions sees, for the tests that compare ours with another's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from kafka_meta.spec.model import FieldSpec, MessageSpec


def fields_kept(spec: MessageSpec, keep: Callable[[FieldSpec], bool]) -> MessageSpec:
    """``spec`` with only the fields ``keep`` takes, at every depth (a struct's fields cut by the same rule)."""
    def kept(fields: list[FieldSpec]) -> list[FieldSpec]:
        return [replace(f, struct=replace(f.struct, fields=kept(f.struct.fields))) if f.struct is not None else f
                for f in fields if keep(f)]

    return replace(spec, fields=kept(spec.fields))
