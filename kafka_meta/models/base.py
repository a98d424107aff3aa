"""Base classes of the typed models that users see.

Attributes are snake_case; each field also answers to Kafka's JSON name (``generationId``), which is what
``model_dump(by_alias=True)`` and the CLI print, and to the spec's own name (``GenerationId``) on input.
A message remembers the version it was read at (``.version``), and bytes that followed the last field it
knows (``.unknown_trailing``, kept so that re-encoding reproduces the input exactly).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import (
    AliasGenerator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StrictInt,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from kafka_meta.models.json_form import message_form
from kafka_meta.models.values import KafkaBytes

MODEL_CONFIG = ConfigDict(
    alias_generator=AliasGenerator(serialization_alias=to_camel),  # hand-written models; spec fields set their own
    validate_by_name=True,
    validate_by_alias=True,
    extra="forbid",
    revalidate_instances="never",
    validate_assignment=True,
)


class KafkaModel(BaseModel):
    """A struct of a Kafka message (also the base of whole messages)."""

    model_config = MODEL_CONFIG

    @model_validator(mode="before")
    @classmethod
    def _drop_derived(cls, data: Any) -> Any:
        """Derived views (computed fields) appear in dumps; accept such dumps back by ignoring them."""
        computed = cls.__pydantic_decorators__.computed_fields
        if computed and isinstance(data, dict):
            names = set(computed) | {to_camel(n) for n in computed}
            data = {k: v for k, v in data.items() if k not in names}
        return data

    @model_serializer(mode="wrap")
    def _quiet_json(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        """In JSON, leave out an empty unknown-tagged-fields list, as Kafka's JSON converters do."""
        data = handler(self)
        if info.mode_is_json() and isinstance(data, dict):
            for key in ("_unknownTaggedFields", "unknown_tagged_fields"):
                if data.get(key) == []:
                    del data[key]
        return data

    @classmethod
    def polymorphic_fields(cls) -> dict[str, dict[str, type[Message]]]:
        """Fields holding a message whose type depends on other fields (e.g. a metadata record chosen by
        its apiKey): field name -> {type name: model}. Columnar outputs give each possible type its own
        column."""
        return {}

    def to_json_dict(self, views: bool = False, *, every_field: bool = False) -> dict[str, Any]:
        """The struct's JSON: Kafka field names, bytes as base64, uuids in Kafka's base64 form, every field it has
        (a struct alone has no version to choose among them, so ``every_field`` changes nothing here; a
        :class:`Message` has one, and its own rule).

        ``views`` adds the derived views (such as ``clientView``) beside the wire fields, also those of
        nested messages (a metadata-log record's body).
        """
        exclude = None if views else _views_of(self) or None
        return self.model_dump(mode="json", by_alias=True, exclude=exclude)


def _views_of(model: KafkaModel) -> dict[Any, Any]:
    """pydantic ``exclude`` spec of every computed field in ``model`` and the models nested in it."""
    out: dict[Any, Any] = dict.fromkeys(type(model).__pydantic_decorators__.computed_fields, True)
    for name, value in model.__dict__.items():
        if isinstance(value, KafkaModel):
            nested = _views_of(value)
        elif isinstance(value, list) and value and isinstance(value[0], KafkaModel):
            nested = {i: sub for i, item in enumerate(value) if (sub := _views_of(item))}
        else:
            continue
        if nested:
            out[name] = nested
    return out


class UnknownTaggedField(KafkaModel):
    """A tagged field this version of kafka_meta does not know; kept so it is written back unchanged."""

    tag: StrictInt = Field(ge=0, le=0xFFFFFFFF)
    data: KafkaBytes


class Message(KafkaModel):
    """A whole decoded message. ``version`` is the version on the wire (None until read or set)."""

    kafka_type: ClassVar[str] = ""
    newest_version: ClassVar[int] = -1
    # version -> the construct tree a message of this class is written with (None: the newest), which decides the
    # fields its JSON has; set by the format that owns the class (kafka_meta.codec), None for a class no format owns
    _json_layout: ClassVar[Callable[[int | None], Any] | None] = None

    _version: int | None = PrivateAttr(default=None)
    _trailing: bytes = PrivateAttr(default=b"")
    _variant: str | None = PrivateAttr(default=None)
    _problem: str | None = PrivateAttr(default=None)

    # Private attributes are read from pydantic's dict directly: going through pydantic's __getattr__ would
    # cost more than encoding a small message.
    @property
    def version(self) -> int | None:
        return self.__pydantic_private__["_version"]  # type: ignore[index]

    @version.setter
    def version(self, value: int | None) -> None:
        self.__pydantic_private__["_version"] = value  # type: ignore[index]

    @property
    def unknown_trailing(self) -> bytes:
        """Bytes after the last known field (a newer writer's additions); written back when re-encoding at
        the same version."""
        return self.__pydantic_private__["_trailing"]  # type: ignore[index]

    @property
    def variant(self) -> str | None:
        """Which layout read the bytes, for types Kafka wrote in more than one way (None when only one)."""
        return self.__pydantic_private__["_variant"]  # type: ignore[index]

    @property
    def decode_problem(self) -> str | None:
        """Why the bytes could not be read, when a lenient reader fell back to Kafka's default value."""
        return self.__pydantic_private__["_problem"]  # type: ignore[index]

    @property
    def read_forward(self) -> bool:
        """True when the wire version is newer than any this library knows (read with the newest layout)."""
        version = self.version
        return version is not None and version > self.newest_version

    def to_json_dict(self, views: bool = False, *, every_field: bool = False) -> dict[str, Any]:
        """The message as Kafka's generated JSON converter writes it at the message's version
        (``XJsonConverter.write(message, version)``): only the fields that version has, a tagged field only when it
        differs from its default, no unknown tagged fields; Kafka's field names in the spec's order, bytes as
        base64, uuids in Kafka's base64 form. A message without a version is written at the newest, as
        :func:`kafka_meta.encode` would write it; a nested message (a metadata-log record in its frame) at its own.
        An unknown version raises :class:`~kafka_meta.errors.EncodeError`, as encoding at it does.

        ``views`` adds the derived views (such as ``clientView``) beside the wire fields, also those of nested
        messages. ``every_field`` gives the model's whole dump instead: every field of every version (absent ones
        at their defaults) and the unknown tagged fields (``_unknownTaggedFields``, when there are some), which is
        what bulk printing shows (``kafka-meta log --decode``: the same JSON its generated readers produce).
        """
        data = super().to_json_dict(views)
        if every_field:
            return data
        return message_form(self, data, views)

    def with_version(self, version: int) -> Message:
        """A copy carrying ``version``, e.g. to re-encode a message at another version."""
        copy = self.model_copy(deep=True)
        private = copy.__pydantic_private__
        private.update(_version=version, _trailing=b"", _variant=None, _problem=None)  # type: ignore[union-attr]
        return copy
