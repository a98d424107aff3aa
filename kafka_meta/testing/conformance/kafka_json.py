"""Values in the form Kafka's generated JsonConverters read and write, at one version.

Kafka's converter writes a message at a version as: the fields that version has, by their JSON names; a tagged
field only when it differs from its default; never the unknown tagged fields (it keeps them for re-writing only);
bytes as base64 and uuids as ``Uuid.toString()`` (URL-safe base64 without padding). That rule is the project's own:
``Message.to_json_dict()`` (:mod:`kafka_meta.models.json_form`) writes exactly that, and the checks compare it.
:func:`kafka_form` takes JSON whose tagged fields are already decided (that output, or a message without tagged
fields) to the same form, and :func:`from_plain` makes the form from plain values (a generated value, to send to
Kafka).
"""

from __future__ import annotations

import base64
from typing import Any

from kafka_meta.codec.dispatch import Dispatch
from kafka_meta.models.factory import UNKNOWN_ALIAS
from kafka_meta.models.json_form import version_fields
from kafka_meta.testing.conformance.tag_rule import _struct, unknown_in_plain  # Bind and Marked seen through
from kafka_meta.wire.codegen import UNKNOWN_KEY
from kafka_meta.wire.composite import KArray, KStruct, Marked
from kafka_meta.wire.primitives import KBytes, KUuid


def uuid_text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def bytes_text(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def from_plain(value: Any, con: Any) -> Any:
    """A plain value (snake_case dicts, raw bytes) of ``con`` as Kafka's converter writes it."""
    if value is None:
        return None
    con = _struct(con)
    if isinstance(con, KUuid):
        return uuid_text(value)
    if isinstance(con, KBytes):
        return bytes_text(value)
    if isinstance(con, KArray):
        return [from_plain(v, con.element) for v in value]
    if isinstance(con, Dispatch):
        raise TypeError("a dispatched body has no converter form of its own")
    if isinstance(con, KStruct):
        out = {}
        for m in con.members:
            if m.role == "inline" or (m.role == "tagged" and not _is_default(value[m.py], m)):
                out[m.json] = from_plain(value[m.py], m.con)
        return out
    return value


def kafka_form(json: Any, con: Any) -> Any:
    """The project's JSON of a value of ``con`` as Kafka's converter writes it, from JSON whose tagged fields are
    already decided: ``Message.to_json_dict()`` (the production rule, :mod:`kafka_meta.models.json_form`, which
    leaves out the tagged fields at their default), or JSON of a message without tagged fields. Only cut to the
    version's fields (:func:`~kafka_meta.models.json_form.version_fields`) with the unknown tagged fields dropped:
    the tagged-default rule is not applied twice, since a nested struct that differs from its default only by
    unknown tagged fields looks like its default once they are gone, and Kafka writes it all the same."""
    return _without_unknown(version_fields(json, con))


def _without_unknown(json: Any) -> Any:
    if isinstance(json, list):
        return [_without_unknown(v) for v in json]
    if isinstance(json, dict):
        return {k: _without_unknown(v) for k, v in json.items() if k != UNKNOWN_ALIAS}
    return json


def _is_default(value: Any, member: Any) -> bool:
    """Whether a tagged field holds its default, as Kafka's converter tests it (a struct with unknown tagged fields
    of its own is not the default: Kafka's generated equals compares them too)."""
    return value == member.default or (
        isinstance(value, dict) and isinstance(member.default, dict)
        and {k: v for k, v in value.items() if k != UNKNOWN_KEY} == member.default and not value.get(UNKNOWN_KEY))


def strip_unknown(value: Any, con: Any) -> Any:
    """The value without its unknown tagged fields: what Kafka's converter can carry (it reads none)."""
    if value is None:
        return None
    con = _struct(con)
    if isinstance(con, KArray):
        return value if not isinstance(con.element, (KStruct, Marked)) else [strip_unknown(v, con.element)
                                                                           for v in value]
    if isinstance(con, KStruct):
        out = {m.py: strip_unknown(value[m.py], m.con) if m.con is not None else value[m.py] for m in con.members}
        if UNKNOWN_KEY in value:
            out[UNKNOWN_KEY] = []
        return out
    return value


def has_unknown(value: Any, con: Any) -> bool:
    """Whether any struct of the value carries unknown tagged fields (those :func:`unknown_in_plain` lists)."""
    return bool(unknown_in_plain(value, con))


__all__ = ["UNKNOWN_ALIAS", "bytes_text", "from_plain", "has_unknown", "kafka_form", "strip_unknown", "uuid_text"]
