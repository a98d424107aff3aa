"""Value modes of the code generator whose decoders give a message's JSON rendering straight from its bytes.

What ``to_json_dict(every_field=True)`` (:meth:`~kafka_meta.models.base.KafkaModel.to_json_dict`) returns for a
model built from a message spec (:class:`~kafka_meta.models.factory.ModelSet`): every field of every version (the
models hold the union), Kafka's JSON field names in the spec's order, bytes as standard base64, uuids in Kafka's
text form, unknown tagged fields as ``_unknownTaggedFields`` after the known fields and only when there are some.
:data:`JSON` gives it as dicts; :data:`JSON_TEXT` as the text ``json.dumps(..., ensure_ascii=False)`` makes of
those dicts (with its default separators). Bulk printing (``kafka-meta log --decode``) reads records with them
instead of building models, dumping them into dicts and encoding those, which is most of the time a typed decode
and its printing take.

Only formats whose models are generated from the same spec as their constructs render alike (hand-written
models may name or order fields otherwise): see :func:`renders_alike`. A message chosen at run time by
value dispatch has no JSON decoder here; compiling one raises :class:`NoJsonDecoder`, and the caller
decodes typed instead.
"""

from __future__ import annotations

import ast
import binascii
from collections.abc import Callable
from json.encoder import encode_basestring  # what json.dumps(..., ensure_ascii=False) writes strings with
from typing import Any

from kafka_meta.models.base import Message
from kafka_meta.models.factory import ModelSet
from kafka_meta.models.json_form import UNKNOWN_ALIAS, json_bytes, json_default, json_uuid
from kafka_meta.wire.codegen import UNKNOWN_KEY, CodeWriter, ValueMode
from kafka_meta.wire.composite import KArray, KStruct
from kafka_meta.wire.primitives import Bool, Fixed, KBytes, KString, KUuid

_b2a = binascii.b2a_base64


def _with_unknown(struct: dict[str, Any], unknown: list[dict[str, Any]]) -> dict[str, Any]:
    if unknown:
        struct[UNKNOWN_ALIAS] = unknown
    return struct


class NoJsonDecoder(Exception):
    """The format holds something the JSON mode does not render (a message chosen by value dispatch)."""


class JsonMode(ValueMode):
    """Generated decoders producing the models' JSON rendering (see the module docstring)."""

    name = "json"
    pure = True  # values are built by expressions

    def make_struct(self, em: CodeWriter, struct: Any, items: list[tuple[str, str]]) -> str:
        names = {m.py: m.json for m in struct.members}
        unknown = None
        fields = []
        for key, expr in items:
            if key == UNKNOWN_KEY:
                unknown = expr
            else:
                fields.append(f"{names[key]!r}: {expr}")
        body = "{" + ", ".join(fields) + "}"
        if unknown is None or unknown == "[]":
            return body
        return f"{em.const(_with_unknown, '_wunk')}({body}, {unknown})"

    def make_uuid(self, em: CodeWriter, bytes_expr: str) -> str:
        return f"{em.const(json_uuid, '_juuid')}({bytes_expr})"

    def make_bytes(self, em: CodeWriter, bytes_expr: str) -> str:
        return f"{em.const(json_bytes, '_jbytes')}({bytes_expr})"

    def make_unknown(self, em: CodeWriter, struct: Any, tag_expr: str, data_expr: str) -> str:
        return f"{{'tag': {tag_expr}, 'data': {em.const(json_bytes, '_jbytes')}({data_expr})}}"

    def default_value(self, member: Any) -> Any:
        return json_default(member.default, member)

    def inner_decoder(self, fmt: Any, layout: int, strict: bool) -> Callable:
        raise NoJsonDecoder(f"{fmt.name}: a message chosen by value dispatch")


JSON = JsonMode()


# ---------------------------------------------------------------------------------------------- as text
# Each turns a member's value (None where the member is null) into the text json.dumps writes for it.
def _text_str(value: str | None) -> str:
    return "null" if value is None else encode_basestring(value)


def _text_bytes(value: bytes | None) -> str:
    return "null" if value is None else f'"{_b2a(value, newline=False).decode("ascii")}"'


def _text_uuid(value: bytes) -> str:
    return f'"{json_uuid(value)}"'


def _text_bool(value: bool) -> str:
    return "true" if value else "false"


def _text_float(value: float) -> str:
    """json's float rendering (allow_nan): ``repr``, with NaN and the infinities spelled as JavaScript does."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _text_int(value: int) -> str:
    return int.__repr__(value)


def _text_ints(values: list[int] | None) -> str:
    return "null" if values is None else repr(values)  # a list of ints: what json writes, separators included


def _text_struct(value: str | None) -> str:
    return "null" if value is None else value


def _text_list(render: Callable[[Any], str]) -> Callable[[list | None], str]:
    def text(values: list | None) -> str:
        return "null" if values is None else "[" + ", ".join(map(render, values)) + "]"
    return text


def _text_texts(values: list[str] | None) -> str:
    return "null" if values is None else "[" + ", ".join(values) + "]"


_ELEMENT_TEXT: dict[type, Callable[[Any], str]] = {
    Bool: _text_list(_text_bool), KString: _text_list(encode_basestring), KBytes: _text_list(_text_bytes),
    KUuid: _text_list(_text_uuid), KStruct: _text_texts,
}
_BOOLS = ("false", "true")


def _unknown_after_fields(unknown: list[str]) -> str:
    return f', "{UNKNOWN_ALIAS}": [{", ".join(unknown)}]'


def _unknown_alone(unknown: list[str]) -> str:
    return f'"{UNKNOWN_ALIAS}": [{", ".join(unknown)}]'


def _call(render: Callable[[Any], str]) -> Callable[[CodeWriter, str], str]:
    return lambda em, expr: f"{em.const(render, '_tx')}({expr})"


def _member_text(member: Any) -> tuple[Callable[[Any], str], Callable[[CodeWriter, str], str]]:
    """How a member's value becomes text: a function for values known when generating (defaults), and the
    expression for those read (an int is left as it is: ``%s`` writes it as json does)."""
    kind, con = member.kind, member.con
    nullable = con is None or getattr(con, "nullable", not isinstance(con, KStruct))  # a Marked struct may be null
    if kind == "bool":
        return _text_bool, lambda em, expr: f"{em.const(_BOOLS, '_tbool')}[{expr}]"
    if kind == "float64":
        return _text_float, _call(_text_float)
    if kind == "string":
        return _text_str, _call(_text_str if nullable else encode_basestring)
    if kind == "bytes":
        return _text_bytes, _call(_text_bytes)
    if kind == "uuid":
        return _text_uuid, _call(_text_uuid)
    if kind == "struct":  # already text, or None for a null struct
        return _text_struct, _call(_text_struct) if nullable else lambda em, expr: expr
    if kind == "array":
        element = con.element if isinstance(con, KArray) else None
        if isinstance(element, Fixed) and element.kind != "float64":
            return _text_ints, _call(_text_ints) if nullable else lambda em, expr: f"repr({expr})"
        # an absent array has no element: its default is an empty list or null
        if isinstance(element, Fixed):
            return _text_list(_text_float), _call(_text_list(_text_float))
        render = _ELEMENT_TEXT.get(type(element), _text_texts)
        return render, _call(render)
    return _text_int, lambda em, expr: expr


_NOT_CONSTANT = object()


def _constant(expr: str) -> Any:
    """The value of an expression that is a literal (a default the generator wrote out), else a marker."""
    try:
        return ast.literal_eval(expr)
    except (ValueError, SyntaxError):
        return _NOT_CONSTANT


class JsonTextMode(JsonMode):
    """Generated decoders producing each struct as its JSON text (see the module docstring). Leaves stay plain
    values; a struct's text is built from them by one ``%`` of a template holding everything known when the
    decoder is generated (names, separators, the text of fields the version lacks)."""

    name = "json-text"

    def make_bytes(self, em: CodeWriter, bytes_expr: str) -> str:
        return bytes_expr

    def make_uuid(self, em: CodeWriter, bytes_expr: str) -> str:
        return bytes_expr

    def make_unknown(self, em: CodeWriter, struct: Any, tag_expr: str, data_expr: str) -> str:
        return f"'{{\"tag\": %d, \"data\": %s}}' % ({tag_expr}, {em.const(_text_bytes, '_tb')}({data_expr}))"

    def default_value(self, member: Any) -> Any:
        return member.default  # plain: made text with the member's other values

    def make_struct(self, em: CodeWriter, struct: Any, items: list[tuple[str, str]]) -> str:
        members = {m.py: m for m in struct.members}
        template: list[str] = []
        args: list[str] = []
        unknown = None
        for key, expr in items:
            if key == UNKNOWN_KEY:
                unknown = expr
                continue
            member = members[key]
            render, runtime = _member_text(member)
            name = encode_basestring(member.json).replace("%", "%%")
            value = _constant(expr)
            if value is not _NOT_CONSTANT:  # known now: written into the template
                template.append(f"{name}: {render(value).replace('%', '%%')}")
            else:
                template.append(f"{name}: %s")
                args.append(runtime(em, expr))
        body = ", ".join(template)
        if unknown is not None and unknown != "[]":
            body += "%s"
            suffix = em.const(_unknown_after_fields if template else _unknown_alone, "_tu")
            args.append(f"({suffix}({unknown}) if {unknown} else '')")
        text = "{" + body + "}"
        if not args:
            return repr(text.replace("%%", "%"))
        return f"{em.const(text, '_tt')} % ({', '.join(args)},)"


JSON_TEXT = JsonTextMode()


def renders_alike(fmt: Any) -> bool:
    """Whether ``fmt``'s JSON decoders give exactly its models' ``to_json_dict(every_field=True)``: its models are
    generated from its spec, on a message base that adds no fields and no way of serializing them (derived views,
    computed fields, are allowed: ``to_json_dict`` leaves them out)."""
    base = getattr(fmt, "model_base", None)
    if not (isinstance(base, type) and issubclass(base, Message)) or base.model_fields:
        return False
    ours, plain = base.__pydantic_decorators__, Message.__pydantic_decorators__
    if ours.model_serializers.keys() != plain.model_serializers.keys() or ours.field_serializers:
        return False
    return isinstance(getattr(fmt, "models", None), ModelSet)
