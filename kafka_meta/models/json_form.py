"""A message's JSON as Kafka's generated JSON converters write it at one version.

Kafka's ``XJsonConverter.write(message, version)`` writes: the fields that version has, under their JSON names
and in the spec's order; a tagged field only when it differs from its default (a struct differs when any of its
fields, or its unknown tagged fields, do: the generated ``equals`` compares them all); never the unknown tagged
fields (they are kept only to write the same bytes again); bytes as base64, uuids as ``Uuid.toString()``.
:meth:`~kafka_meta.models.base.Message.to_json_dict` gives that, from the model's JSON dump (every field of every
version: the models hold the union) and the construct tree of the message's version, which the codec layer hands
to each message class (``Message._json_layout``); a message nested in another one (a metadata-log record in its
frame) is written at its own version, by its own tree.

The same rule over JSON alone, without models, serves tooling: :func:`version_fields` keeps the fields a version
has and everything else (tagged fields at their default, unknown tagged fields when there are some: what writing
the same bytes back needs, the golden cases' form), :func:`converter_form` is what Kafka's converter writes.
Either takes the JSON with every field, or the JSON already cut to the version. The texts of bytes, uuids and
defaults in that JSON are here too (:func:`json_bytes`, :func:`json_uuid`, :func:`json_default`), shared with the
generated decoders of :mod:`kafka_meta.models.json_mode`; this module builds on no other of the package, which
all build on it.
"""

from __future__ import annotations

import binascii
from typing import Any
from weakref import WeakKeyDictionary

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from kafka_meta.wire.bindings import Bind
from kafka_meta.wire.composite import KArray, KStruct, Marked, Member

UNKNOWN_ALIAS = "_unknownTaggedFields"  # the JSON name of a struct's unknown tagged fields (kept for re-writing)

# per struct tree: its members by JSON name; per tagged member: its default as version_fields shows it
_MEMBERS: WeakKeyDictionary[KStruct, dict[str, Member]] = WeakKeyDictionary()
_DEFAULTS: WeakKeyDictionary[Member, Any] = WeakKeyDictionary()
_VIEWS: dict[type, frozenset[str]] = {}

_b2a = binascii.b2a_base64
_URL_SAFE = bytes.maketrans(b"+/", b"-_")  # what base64.urlsafe_b64encode does after encoding


def json_bytes(data: bytes) -> str:
    """Bytes as the models print them in JSON (``base64.b64encode``, the same text)."""
    return _b2a(data, newline=False).decode("ascii")


def json_uuid(raw: bytes) -> str:
    """A uuid's 16 bytes as Kafka's ``Uuid.toString()``: URL-safe base64 without its padding."""
    return _b2a(raw, newline=False)[:22].translate(_URL_SAFE).decode("ascii")


def json_default(value: Any, member: Any) -> Any:
    """A member's plain default (Python names, bytes, uuid bytes) as the models' JSON shows it (every field of a
    struct; an empty unknown-tagged-fields list left out)."""
    if value is None:
        return None
    if member.kind == "uuid":
        return json_uuid(value)
    if member.kind == "bytes":
        return json_bytes(value)
    if isinstance(value, dict) and member.struct is not None:
        return {m.json: json_default(value[m.py], m) for m in member.struct.members}
    return value


def version_fields(json: Any, con: Any) -> Any:
    """``json`` (a value of construct ``con`` as the models dump it) with only the fields its version has: tagged
    fields at their default stay, and so do unknown tagged fields when there are some."""
    return _walk(json, con, None, lossless=True, views=False)


def converter_form(json: Any, con: Any) -> Any:
    """``json`` (a value of construct ``con``) as Kafka's converter writes it: the version's fields, tagged fields
    at their default left out, unknown tagged fields dropped."""
    return _walk(json, con, None, lossless=False, views=False)


def message_form(message: Any, json: dict[str, Any], views: bool) -> dict[str, Any]:
    """``json`` (the model dump of ``message``, with or without its views) as Kafka's converter writes the message
    at its version (None: the newest, as encoding it would); the dump as it is for a message class no format has
    adopted (a hand-written model used without its format), which has no construct tree to follow."""
    layouts = type(message)._json_layout
    if layouts is None:
        return json
    return _walk(json, layouts(message.version), message, lossless=False, views=views)  # type: ignore[no-any-return]


def _walk(json: Any, con: Any, model: Any, lossless: bool, views: bool) -> Any:
    if json is None:
        return None
    if isinstance(con, Bind):
        con = con.inner
    if isinstance(con, Marked):
        con = con.struct
    if isinstance(con, KArray):
        element = con.element
        if not isinstance(element, (KStruct, Marked)) or not isinstance(json, list):
            return json
        models = model if isinstance(model, list) and len(model) == len(json) else [None] * len(json)
        return [_walk(item, element, sub, lossless, views) for item, sub in zip(json, models, strict=True)]
    if isinstance(con, KStruct):
        return _struct(json, con, model, lossless, views) if isinstance(json, dict) else json
    if isinstance(json, dict) and not lossless and getattr(type(model), "_json_layout", None) is not None:
        return message_form(model, json, views)  # a message chosen at run time (by apiKey): at its own version
    return json


def _struct(json: dict[str, Any], con: KStruct, model: Any, lossless: bool, views: bool) -> dict[str, Any]:
    members = _MEMBERS.get(con)
    if members is None:
        members = _MEMBERS[con] = {m.json: m for m in con.members}
    derived = _views(type(model)) if views and isinstance(model, BaseModel) else frozenset()
    out = {}
    for key, value in json.items():  # the dump's order: the spec's, as Kafka's converters write
        m = members.get(key)
        if m is None:
            if (key == UNKNOWN_ALIAS and lossless and value) or key in derived:
                out[key] = value
            continue
        if m.role == "absent":
            continue
        if m.role == "tagged" and not lossless and _at_default(value, m):
            continue
        sub = getattr(model, m.py, None) if isinstance(model, BaseModel) else None
        out[key] = _walk(value, m.con, sub, lossless, views)
    return out


def _at_default(json: Any, member: Member) -> bool:
    """Whether a tagged field's JSON holds its default. Compared as :func:`version_fields` shows both, so the JSON
    may hold every field or only the version's: a struct holding unknown tagged fields is not at its default."""
    default = _DEFAULTS.get(member, _DEFAULTS)
    if default is _DEFAULTS:
        default = _DEFAULTS[member] = version_fields(json_default(member.default, member), member.con)
    if json == default:
        return True
    return isinstance(json, dict) and version_fields(json, member.con) == default


def _views(cls: type) -> frozenset[str]:
    """The JSON names of a model class's derived views (computed fields), kept beside the wire fields."""
    found = _VIEWS.get(cls)
    if found is None:
        computed = cls.__pydantic_decorators__.computed_fields  # type: ignore[attr-defined]
        found = _VIEWS[cls] = frozenset(computed) | frozenset(to_camel(n) for n in computed)
    return found


__all__ = ["UNKNOWN_ALIAS", "converter_form", "json_bytes", "json_default", "json_uuid", "message_form",
           "version_fields"]
