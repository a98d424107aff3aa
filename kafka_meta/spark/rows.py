"""Decoded messages as rows for Arrow: dicts keyed by Kafka's JSON names, uuids as Kafka's base64 text.

For spec-described formats the rows come straight from a generated decoder (:class:`ArrowRowMode`, a
value mode of the same code generator): no model objects, no renaming pass. Other formats go through
their typed decoder and :func:`row_from_model`.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable
from typing import Any

from kafka_meta.codec.format import SpecFormat
from kafka_meta.models.base import KafkaModel
from kafka_meta.spark.schema import VERSION_FIELD, choice_name, field_name
from kafka_meta.wire.codegen import UNKNOWN_KEY, CodeWriter, ValueMode

UNKNOWN_ALIAS = "_unknownTaggedFields"
_b64 = base64.urlsafe_b64encode


def kafka_uuid(raw: bytes) -> str:
    """Kafka's Uuid.toString(): URL-safe base64 without padding (22 characters)."""
    return _b64(raw).decode("ascii")[:22]


class ArrowRowMode(ValueMode):
    """Plain values keyed by Kafka JSON names, ready for ``pyarrow.array(rows, type=...)``."""

    name = "arrow"
    pure = True  # rows are built by expressions

    def make_struct(self, em: CodeWriter, struct: Any, items: list[tuple[str, str]]) -> str:
        names = {m.py: m.json for m in struct.members}
        names[UNKNOWN_KEY] = UNKNOWN_ALIAS
        return "{" + ", ".join(f"{names[k]!r}: {v}" for k, v in items) + "}"

    def make_uuid(self, em: CodeWriter, bytes_expr: str) -> str:
        return f"{em.const(kafka_uuid, '_kuuid')}({bytes_expr})"

    def make_unknown(self, em: CodeWriter, struct: Any, tag_expr: str, data_expr: str) -> str:
        return f"{{'tag': {tag_expr}, 'data': {data_expr}}}"

    def default_value(self, member: Any) -> Any:
        return row_default(member.default, member)

    def inner_decoder(self, fmt: Any, layout: int, strict: bool) -> Callable:
        return dispatched_row_decoder(fmt, layout, strict)


def row_default(value: Any, member: Any) -> Any:
    """A member's plain default (keyed by Python names, uuids as bytes) in row form (Kafka's names, uuids as
    Kafka's text): what a row holds for a field its version lacks."""
    if member.kind == "uuid" and isinstance(value, bytes):
        return kafka_uuid(value)
    if isinstance(value, dict) and member.struct is not None:
        out = {}
        for m in member.struct.members:
            out[m.json] = row_default(value[m.py], m)
        if UNKNOWN_KEY in value:
            out[UNKNOWN_ALIAS] = []
        return out
    return value


ARROW_ROWS = ArrowRowMode()


def row_decoder(fmt: SpecFormat, layout_version: int, strict: bool = False) -> Callable:
    """The generated ``fn(buf, pos, blen) -> (row, end)`` of one layout, compiled and kept by the format."""
    return fmt.decoder_in(ARROW_ROWS, layout_version, strict)


def dispatched_row_decoder(fmt: SpecFormat, layout: int, strict: bool) -> Callable:
    """A nested message chosen at run time, as a row under its type's column (see ``struct_type``)."""
    decode, column = row_decoder(fmt, layout, strict), choice_name(fmt.name)

    def read(buf: bytes, pos: int, blen: int) -> tuple[dict, int]:
        row, end = decode(buf, pos, blen)
        return {column: row}, end

    return read


def row_from_model(value: Any) -> Any:
    """A typed value in row form (for formats without a generated row decoder)."""
    if isinstance(value, KafkaModel):
        out = {}
        polymorphic = type(value).polymorphic_fields()
        for name, info in type(value).model_fields.items():
            item = value.__dict__[name]
            if name in polymorphic and item is not None:
                out[field_name(name, info)] = {choice_name(type(item).kafka_type): row_from_model(item)}
            elif name == "unknown_tagged_fields":
                out[field_name(name, info)] = [{"tag": u.tag, "data": u.data} for u in item]
            else:
                out[field_name(name, info)] = row_from_model(item)
        return out
    if isinstance(value, list):
        return [row_from_model(v) for v in value]
    if isinstance(value, uuid.UUID):
        return kafka_uuid(value.bytes)
    return value


def model_row(fmt: Any, buf: bytes, version: int | None, strict: bool) -> dict:
    """One row through the typed decoder: every format, every case (version probes, versions read
    forward, variants); the columnar decoder's slow path and the fallback of formats without one."""
    message = fmt.decode(buf, version=version, strict=strict)
    row = row_from_model(message)
    row[VERSION_FIELD] = message.version
    return row
