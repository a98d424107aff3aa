"""The reader x writer compatibility matrix of one type, computed from its layouts and forward rule."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.codec.framing import ForwardPolicy
from kafka_meta.codec.registry import Registry
from kafka_meta.compat.layout import compare_layouts
from kafka_meta.compat.readers import reader_layout, writer_layout
from kafka_meta.compat.rules import EXPLAIN, ForwardReading, forward_reading
from kafka_meta.formats.catalogue import REGISTRY


class Outcome(enum.Enum):
    EXACT = "exact"  # reads everything the writer wrote
    LOSSY = "lossy"  # reads it, but fields the writer put on the wire are lost
    PROBING = "probing"  # reads only the version fields (version probing)
    FAILS = "fails"  # refuses the bytes, or misreads them


@dataclass
class Cell:
    writer: int
    reader: int
    outcome: Outcome
    lost: list[str] = field(default_factory=list)
    reason: str = ""
    caveats: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"writer": self.writer, "reader": self.reader, "outcome": self.outcome.value}
        if self.lost:
            out["lost"] = self.lost
        if self.reason:
            out["reason"] = self.reason
        if self.caveats:
            out["caveats"] = self.caveats
        return out


@dataclass
class Matrix:
    type_name: str
    versions: list[int]
    forward: ForwardReading
    cells: dict[tuple[int, int], Cell]

    def cell(self, writer: int, reader: int) -> Cell:
        return self.cells[(writer, reader)]

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            "versions": self.versions,
            "forwardReading": self.forward.rule.value,
            "forwardReadingMeans": EXPLAIN[self.forward.rule],
            "note": self.forward.note or None,
            "cells": [c.to_json() for c in self.cells.values()],
        }


def _cell(fmt: Any, writer: int, reader: int, forward: ForwardReading) -> Cell:
    rule = forward.at(reader)
    if writer > reader and rule is ForwardPolicy.REFUSE:
        why = f" (the {forward.rule.value} rule starts at v{forward.since})" if rule is not forward.rule else ""
        return Cell(writer, reader, Outcome.FAILS,
                    reason=f"a reader at v{reader} refuses the newer version {writer}{why}")
    if writer > reader and rule is ForwardPolicy.PROBE:
        return Cell(writer, reader, Outcome.PROBING,
                    reason=f"a reader at v{reader} reads only the version fields of v{writer} and answers with "
                           f"v{reader} (version probing)")
    verdict = compare_layouts(reader_layout(fmt, reader, writer, forward), writer_layout(fmt, writer))
    if verdict.failure is not None:
        return Cell(writer, reader, Outcome.FAILS, reason=verdict.failure, caveats=verdict.caveats)
    if verdict.lost:
        how = "the newest layout it knows" if rule is ForwardPolicy.CLAMP else "its field ranges at that version"
        reason = f"reads v{writer} with {how}" if writer > reader else ""
        return Cell(writer, reader, Outcome.LOSSY, lost=verdict.lost, reason=reason, caveats=verdict.caveats)
    return Cell(writer, reader, Outcome.EXACT, caveats=verdict.caveats)


def resolve(type_name: str, registry: Registry = REGISTRY) -> Any:
    """The format whose layouts a type name means: a key + value record name means its value type; a type
    read with several layouts (variants) means its first, current one."""
    from kafka_meta.golden.subjects import RecordSubject, layouts_of, subjects

    subject = subjects(registry).get(type_name)
    fmt = subject.value_fmt if isinstance(subject, RecordSubject) else registry.get(type_name)
    return layouts_of(fmt)[0][1]


def matrix_of(fmt: Any) -> Matrix:
    forward = forward_reading(fmt)
    versions = list(fmt.versions)
    cells = {(w, r): _cell(fmt, w, r, forward) for w in versions for r in versions}
    return Matrix(fmt.name, versions, forward, cells)


def matrix(type_name: str, registry: Registry = REGISTRY) -> Matrix:
    """For every (writer version W, reader version R) of a registered type: what a Kafka reader whose
    newest version is R does with bytes written at W."""
    return matrix_of(resolve(type_name, registry))
