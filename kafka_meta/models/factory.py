"""Build the pydantic models of a message spec, and the typed value mode the code generator uses.

One model per struct type holds the union of the fields of every version, so a message read at any
version is the same class; fields a version lacks hold their defaults. Decoding builds instances without
validation (the bytes already fixed every type), through :func:`fast_maker`; validation runs when users
build or load models themselves.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Optional

from pydantic import AliasChoices, BaseModel, Field, StrictBool, StrictFloat, StrictStr, create_model
from pydantic_core import PydanticUndefined

from kafka_meta.models.base import KafkaModel, Message, UnknownTaggedField
from kafka_meta.models.json_form import UNKNOWN_ALIAS
from kafka_meta.models.values import KafkaBytes, KafkaUuid, int_type
from kafka_meta.spec.model import EMPTY_STRUCT, FieldSpec, FieldType, MessageSpec, StructSpec
from kafka_meta.wire.codegen import UNKNOWN_KEY, CodeWriter, DecodeEmitter, ValueMode, load_function
from kafka_meta.wire.primitives import INT_BOUNDS

UNKNOWN_FIELD = "unknown_tagged_fields"


# A decoded model is what ``model_construct`` makes of every field: its ``__dict__`` the values, its
# ``__pydantic_fields_set__`` every field name (a set of its own), ``__pydantic_extra__`` None (or an empty dict
# where a model allows extra fields) and ``__pydantic_private__`` its private attributes' defaults. These four are
# the attributes pydantic documents on every instance, and BaseModel declares them as its ``__slots__``; the
# constructor stores them as ``model_construct`` does, through the setters of those slots (what
# ``object.__setattr__`` finds for them, without looking the name up each time), minus its per-field loop.
_SLOT = vars(BaseModel)
_SLOT_SETTERS: dict[str, Any] = {
    "_m_new": object.__new__, "_m_dict": _SLOT["__dict__"].__set__,
    "_m_fields": _SLOT["__pydantic_fields_set__"].__set__, "_m_extra": _SLOT["__pydantic_extra__"].__set__,
    "_m_private": _SLOT["__pydantic_private__"].__set__,
}


def fast_maker(cls: type[KafkaModel]) -> Callable[[dict[str, Any]], KafkaModel]:
    """A constructor that trusts its input: what ``model_construct`` does, minus its per-field loop.

    The dict must hold every field of ``cls`` (decoders always produce such dicts, of the right types: the
    bytes fixed them) and becomes the instance's ``__dict__`` as it is. Nothing is validated on creation;
    the class is the user's own, so assigning a field later validates as usual (``validate_assignment``).

    Why generated: a typed decode builds one instance per struct it reads, and in a message of small
    structs building them costs as much as reading the bytes. So the function is written per class: the
    private defaults as a dict display (when they are literals), and the four attributes stored as
    ``model_construct`` stores them. Generated decoders write the same statements inline
    (:meth:`TypedMode.emit_struct`).
    """
    namespace: dict[str, Any] = {"_cls": cls, "_names": field_names(cls), **_SLOT_SETTERS}
    private_expr = literal_private(cls)
    if private_expr is None:  # factories, or defaults that are no literals: made per instance as pydantic makes them
        namespace["_private"] = _private_defaults(cls)
        private_expr = "_private(values)"
    source = "\n".join((
        "def make(values):",
        "    " + construction(cls, "m", "_cls", "values", "_names", private_expr),
        "    return m",
    )) + "\n"
    return load_function(source, namespace, "make", f"constructor {cls.__qualname__}")


def field_names(cls: type[BaseModel]) -> set[str]:
    """Every field name of ``cls``: what a decoded instance's fields set holds (each gets a copy of its own)."""
    return set(cls.model_fields)


def construction(cls: type[BaseModel], target: str, cls_name: str, values_expr: str, names_expr: str,
                 private_expr: str) -> str:
    """One line of source leaving in ``target`` a new instance of ``cls`` (named ``cls_name``) whose
    ``__dict__`` is ``values_expr``, whose fields set is a set of the names in ``names_expr``, whose extra
    fields are none (None, or an empty dict for a model that allows them, as ``model_construct`` gives) and
    whose private attributes are ``private_expr`` (names from :data:`_SLOT_SETTERS`)."""
    extra = "{}" if cls.model_config.get("extra") == "allow" else "None"
    return "; ".join((f"{target} = _m_new({cls_name})", f"_m_dict({target}, {values_expr})",
                      f"_m_fields({target}, {names_expr}.copy())", f"_m_extra({target}, {extra})",
                      f"_m_private({target}, {private_expr})"))


def literal_private(cls: type[KafkaModel], given: Mapping[str, str] | None = None) -> str | None:
    """Source of the private attributes of a new instance of ``cls``: ``None`` when it has none, a dict display
    when their defaults are literals (``given``: source expressions of some of them instead of their defaults);
    None (no source) when they take a factory or a default of another kind."""
    private = cls.__private_attributes__
    if not private:
        return "None"
    given = given or {}
    if all(attr.default_factory is None and _is_literal(attr.default) for attr in private.values()):
        items = (f"{name!r}: {given.get(name, repr(attr.default))}" for name, attr in private.items())
        return "{" + ", ".join(items) + "}"
    return None


def _private_defaults(cls: type[KafkaModel]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """``fn(values)``: the private attributes of a new instance, as pydantic gives them to a model it builds."""
    attrs = list(cls.__private_attributes__.items())

    def defaults(values: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, attr in attrs:
            if getattr(attr, "default_factory_takes_validated_data", False):  # pydantic 2.12+ only
                value = attr.get_default(call_default_factory=True, validated_data={**values, **out})
            elif attr.default_factory is not None:
                value = attr.default_factory()
            else:  # a copy of the default, as pydantic gives each instance (2.11's get_default takes no arguments)
                value = copy.deepcopy(attr.default)
            if value is not PydanticUndefined:
                out[name] = value
        return out

    return defaults


def _is_literal(value: Any) -> bool:
    """Whether ``repr(value)`` is source text evaluating to an equal immutable value."""
    return value is None or type(value) in (bool, int, str, bytes)


def _uuid_from_bytes(raw: bytes) -> uuid.UUID:
    return uuid.UUID(bytes=raw)


class ModelSet:
    """The model classes of one message spec: ``root`` (a :class:`Message`) and one class per struct."""

    def __init__(self, spec: MessageSpec, kafka_type: str | None = None, newest_version: int | None = None,
                 root_base: type[Message] = Message) -> None:
        self.spec = spec
        self.root_base = root_base
        self.unknown = spec.ever_flexible
        self.classes: dict[str, type[KafkaModel]] = {}
        self.kafka_type = kafka_type or spec.name
        self.newest_version = spec.valid_versions.high if newest_version is None else newest_version
        self.root: type[Message] = self._model(spec.root, root=True)  # type: ignore[assignment]

    def _model(self, struct: StructSpec, root: bool = False) -> type[KafkaModel]:
        if struct.name in self.classes:
            return self.classes[struct.name]
        fields: dict[str, Any] = {}
        for f in struct.fields:
            fields[f.py_name] = self._field(f)
        if self.unknown:
            fields[UNKNOWN_FIELD] = (list[UnknownTaggedField], Field(default_factory=list, alias=UNKNOWN_ALIAS))
        base = self.root_base if root else KafkaModel
        cls = create_model(struct.name, __base__=base, __module__="kafka_meta.models", **fields)
        cls.__qualname__ = struct.name if root else f"{self.spec.name}.{struct.name}"
        cls.__doc__ = f"{'Message' if root else 'Struct'} {cls.__qualname__} (versions {struct.versions})."
        if root:
            cls.kafka_type = self.kafka_type
            cls.newest_version = self.newest_version
        self.classes[struct.name] = cls
        return cls

    def _python_type(self, ftype: FieldType) -> Any:
        kind = ftype.kind
        if kind in INT_BOUNDS:
            return int_type(kind)
        if kind == "bool":
            return StrictBool
        if kind == "float64":
            return StrictFloat
        if kind == "string":
            return StrictStr
        if kind == "bytes":
            return KafkaBytes
        if kind == "uuid":
            return KafkaUuid
        if kind == "array":
            assert ftype.element is not None
            return list[self._python_type(ftype.element)]  # type: ignore[misc]
        if kind == "struct":
            return self._model(self.spec.structs[ftype.struct_name])  # type: ignore[index]
        raise ValueError(f"no Python type for {ftype}")

    def _field(self, f: FieldSpec) -> tuple[Any, Any]:
        ann = self._python_type(f.type)
        if f.ever_nullable:
            ann = Optional[ann]  # noqa: UP045 - built at run time
        default = f.default_value()
        names = AliasChoices(f.json_name, f.name)
        kwargs: dict[str, Any] = {"serialization_alias": f.json_name, "validation_alias": names}
        if f.about:
            kwargs["description"] = f.about
        if default is EMPTY_STRUCT:
            return ann, Field(default_factory=self._python_type(f.type), **kwargs)
        if isinstance(default, list):
            return ann, Field(default_factory=list, **kwargs)
        if f.type.kind == "uuid" and default is not None:
            default = uuid.UUID(bytes=default)
        return ann, Field(default=default, **kwargs)

    def class_for(self, struct_name: str) -> type[KafkaModel]:
        return self.classes[struct_name]


class TypedMode(ValueMode):
    """Code-generation mode producing and consuming pydantic models (see :class:`ValueMode`)."""

    name = "typed"
    pure = True  # models are built by expressions

    def __init__(self, models: ModelSet) -> None:
        self.models = models
        self._makers: dict[str, Callable] = {}
        self._unknown_maker: Callable | None = None

    def maker(self, struct_name: str) -> Callable:
        if struct_name not in self._makers:
            self._makers[struct_name] = fast_maker(self.models.class_for(struct_name))
        return self._makers[struct_name]

    def make_struct(self, em: CodeWriter, struct: Any, items: list[tuple[str, str]]) -> str:
        make = em.const(self.maker(struct.shape.name), "_mk")
        return f"{make}({_values_display(items)})"

    def emit_struct(self, em: CodeWriter, struct: Any, items: list[tuple[str, str]], target: str) -> None:
        """The statements of :func:`fast_maker`'s constructor, written where the struct is read: one call
        less per instance, which counts in a message of many small structs (private defaults that are no
        literals still go through the constructor). The message's own state (see ``DecodeEmitter``) is
        built with its private attributes."""
        cls = self.models.class_for(struct.shape.name)
        state: dict[str, str] = {}
        if isinstance(em, DecodeEmitter) and struct is em.message_root:
            state, em.message_root = em.message_state, None  # built here: the format checks that it was
        private_expr = literal_private(cls, state)
        if private_expr is None:
            super().emit_struct(em, struct, items, target)
            for name, expr in state.items():
                em.line(f"{target}.__pydantic_private__[{name!r}] = {expr}")
            return
        for name, value in _SLOT_SETTERS.items():
            em.namespace.setdefault(name, value)
        names = em.const(field_names(cls), "_names")
        em.line(construction(cls, target, em.const(cls, "_cls"), _values_display(items), names, private_expr))

    def make_uuid(self, em: CodeWriter, bytes_expr: str) -> str:
        return f"{em.const(_uuid_from_bytes, '_uuid')}({bytes_expr})"

    def make_unknown(self, em: CodeWriter, struct: Any, tag_expr: str, data_expr: str) -> str:
        if self._unknown_maker is None:
            self._unknown_maker = fast_maker(UnknownTaggedField)
        make = em.const(self._unknown_maker, "_mku")
        return f"{make}({{'tag': {tag_expr}, 'data': {data_expr}}})"

    def default_value(self, member: Any) -> Any:
        value = member.default
        if value is None:
            return None
        if member.kind == "uuid":
            return uuid.UUID(bytes=value)
        if member.kind == "struct":
            return self.models.class_for(member.struct.shape.name)()
        return value

    def get(self, obj: str, member: Any) -> str:
        return f"{obj}.{member.py}"

    def get_unknown(self, obj: str) -> str:
        return f"{obj}.{UNKNOWN_FIELD}"

    def uuid_bytes(self, expr: str) -> str:
        return f"{expr}.bytes"

    def unknown_pairs(self, expr: str) -> str:
        return f"[(_u.tag, _u.data) for _u in {expr}]"


def _values_display(items: list[tuple[str, str]]) -> str:
    """Source of a decoded struct's ``__dict__``: a dict display of its fields' expressions."""
    body = ", ".join(f"{(UNKNOWN_FIELD if k == UNKNOWN_KEY else k)!r}: {v}" for k, v in items)
    return f"{{{body}}}"


def to_plain(value: Any) -> Any:
    """A typed value as the plain values the wire layer works with (dicts, lists, uuid bytes)."""
    if isinstance(value, KafkaModel):
        out = {}
        for name, item in value.__dict__.items():
            if name == UNKNOWN_FIELD:
                out[UNKNOWN_KEY] = [(u.tag, u.data) for u in item]
            else:
                out[name] = to_plain(item)
        return out
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, uuid.UUID):
        return value.bytes
    return value


def from_plain(cls: type[KafkaModel], value: dict[str, Any]) -> KafkaModel:
    """Validate plain values (as a bulk decode returns them) into a model."""
    return cls.model_validate(_rename_unknown(copy.copy(value)))


def _rename_unknown(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == UNKNOWN_KEY:
                out[UNKNOWN_FIELD] = [{"tag": t, "data": d} for t, d in v]
            else:
                out[k] = _rename_unknown(v)
        return out
    if isinstance(value, list):
        return [_rename_unknown(v) for v in value]
    return value
