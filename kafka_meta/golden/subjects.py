"""What a golden case is a case *of*: one registered type, or a key + value record.

A subject turns case bytes into the case's JSON document and back:

* :class:`MessageSubject`: one type from the registry. The document is what ``kafka-meta decode`` prints:
  ``{"type", "version", "data"}`` (Kafka's field names), plus ``unknownTrailing`` (base64 of bytes that
  follow the last known field, as a newer writer leaves them) when there are any.
* :class:`RecordSubject`: a ``__consumer_offsets``-style record, a key type and a value type of one family
  named ``<Record>Key`` / ``<Record>Value``. The document is ``{"type", "keyVersion", "key", "version",
  "value"}``; a tombstone has ``"version": null, "value": null``.

A record's value type may have several layouts (a :class:`~kafka_meta.codec.variants.VariantFormat`: Kafka
changed some without a version bump); its document then names the one that read the bytes (``"variant"``).

Subjects are found in the registry (:func:`subjects`), so every type that lands in it, and every spec a
user loads, can have golden cases with no code here. Records come from the format plugins' ``records(registry)``
hooks, asked through the catalogue (``__consumer_offsets`` record types), and from any other
``<Record>Key`` / ``<Record>Value`` pair of one family.
"""

from __future__ import annotations

import base64
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from kafka_meta.codec.framing import Unframed
from kafka_meta.codec.registry import Format, Registry
from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.formats import catalogue
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.models.base import Message
from kafka_meta.models.json_form import version_fields
from kafka_meta.wire.composite import KStruct

KEY_SUFFIX = "Key"
VALUE_SUFFIX = "Value"


@dataclass(frozen=True)
class CaseBytes:
    """The bytes of a case: a message (``body``), or a record's value (``body``, None for a tombstone)
    and key."""

    body: bytes | None
    key: bytes | None = None


class Subject(ABC):
    name: str
    is_record: bool = False

    def versions(self) -> list[int]:
        """The versions a corpus should cover (value versions for records): every layout's versions."""
        return sorted({v for _, f in self.layouts() for v in f.versions})

    @abstractmethod
    def layouts(self) -> list[tuple[str | None, Any]]:
        """``(variant label, format)`` of each layout of the message (of a record's value)."""

    @abstractmethod
    def read(self, blob: CaseBytes, version: int | None) -> dict[str, Any]:
        """Decode a case's bytes into its JSON document; raises DecodeError."""

    @abstractmethod
    def write(self, doc: dict[str, Any]) -> CaseBytes:
        """Encode a case's JSON document; raises EncodeError (or DecodeError for a malformed document)."""


def _needs_version(fmt: Format) -> bool:
    """Whether the version is not on the wire, so the case's version directory must supply it."""
    return isinstance(getattr(fmt, "framing", None), Unframed)


def layouts_of(fmt: Any) -> list[tuple[str | None, Any]]:
    """The layouts a type reads with: ``(label, format)`` per variant, or ``(None, fmt)``."""
    variants = getattr(fmt, "variants", None)
    if not variants:
        return [(None, fmt)]
    return list(dict.fromkeys((v.label, v.format) for v in variants))


def _layout_format(fmt: Any, message: Message) -> Any:
    for label, layout in layouts_of(fmt):
        if label == message.variant and type(message) is layout.model:
            return layout
    return fmt


def decode_message(fmt: Format, data: bytes, version: int | None) -> tuple[Message, KStruct | None]:
    """The message, and the construct that read it (when the format exposes one)."""
    version = version if _needs_version(fmt) else None
    message = fmt.decode(data, version=version)
    layout: KStruct | None = None
    used = _layout_format(fmt, message)
    header, construct = getattr(used, "header", None), getattr(used, "construct", None)
    if header is not None and construct is not None:
        layout = construct(header(data, message.version).layout_version)
    return message, layout


def present_only(value: Any, con: Any) -> Any:
    """Kafka's JSON at one version: only the fields that version has (as Kafka's JSON converters write
    it), and unknown tagged fields only when there are some (the production rule,
    :func:`~kafka_meta.models.json_form.version_fields`). Tagged fields at their default stay, which a
    converter leaves out: a case's document says everything its bytes hold."""
    return version_fields(value, con)


def message_document(name: str, decoded: tuple[Message, KStruct | None]) -> dict[str, Any]:
    message, layout = decoded
    data = message.to_json_dict(every_field=True)
    if layout is not None:
        data = present_only(data, layout)
    doc: dict[str, Any] = {"type": name, "version": message.version, "data": data}
    if message.variant is not None:
        doc["variant"] = message.variant
    if message.unknown_trailing:
        doc["unknownTrailing"] = base64.b64encode(message.unknown_trailing).decode()
    return doc


def message_from_json(fmt: Format, data: Any, version: Any, trailing: str | None = None,
                      variant: str | None = None) -> Message:
    """A model of ``fmt`` from Kafka-named JSON, carrying ``version`` (and unknown trailing bytes, and the
    layout variant that wrote it)."""
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise EncodeError(f"the document's version must be an integer, not {version!r}", type_name=fmt.name)
    cls = fmt.model  # type: ignore[attr-defined]
    # a variant names the layout; one that is no layout (e.g. bytes read as Kafka's default) is left to the
    # format's encoder to handle or refuse
    found = [layout for label, layout in layouts_of(fmt) if label == variant]
    if variant is not None and found:
        cls = found[0].model
    try:
        message = cls.model_validate_json(json.dumps(data))
    except ValueError as e:
        raise EncodeError(f"the JSON does not fit {fmt.name}: {e}", type_name=fmt.name, version=version) from None
    message.version = version
    if trailing:
        message._trailing = base64.b64decode(trailing)
    if variant is not None:
        message._variant = variant
    return message  # type: ignore[no-any-return]


class MessageSubject(Subject):
    def __init__(self, fmt: Format) -> None:
        self.fmt = fmt
        self.name = fmt.name

    def layouts(self) -> list[tuple[str | None, Any]]:
        return layouts_of(self.fmt)

    def read(self, blob: CaseBytes, version: int | None) -> dict[str, Any]:
        if blob.body is None:
            raise DecodeError("a message case needs its .bin", type_name=self.name)
        return message_document(self.name, decode_message(self.fmt, blob.body, version))

    def write(self, doc: dict[str, Any]) -> CaseBytes:
        message = message_from_json(self.fmt, doc.get("data"), doc.get("version"), doc.get("unknownTrailing"),
                                    doc.get("variant"))
        return CaseBytes(self.fmt.encode(message))


class RecordSubject(Subject):
    is_record = True

    def __init__(self, name: str, key_fmt: Format, value_fmt: Format) -> None:
        self.name = name
        self.key_fmt = key_fmt
        self.value_fmt = value_fmt

    def layouts(self) -> list[tuple[str | None, Any]]:
        return layouts_of(self.value_fmt)

    def read(self, blob: CaseBytes, version: int | None) -> dict[str, Any]:
        if blob.key is None:
            raise DecodeError("a record case needs its .key.bin", type_name=self.name)
        key = message_document(self.key_fmt.name, decode_message(self.key_fmt, blob.key, None))
        doc: dict[str, Any] = {"type": self.name, "keyVersion": key["version"], "key": key["data"]}
        if blob.body is None:
            doc.update(version=None, value=None)
            return doc
        value = message_document(self.value_fmt.name, decode_message(self.value_fmt, blob.body, version))
        doc["version"] = value["version"]
        for extra in ("variant", "unknownTrailing"):
            if extra in value:
                doc[extra] = value[extra]
        doc["value"] = value["data"]
        return doc

    def write(self, doc: dict[str, Any]) -> CaseBytes:
        key = message_from_json(self.key_fmt, doc.get("key"), doc.get("keyVersion"))
        key_bytes = self.key_fmt.encode(key)
        if doc.get("value") is None:
            return CaseBytes(None, key_bytes)
        value = message_from_json(self.value_fmt, doc["value"], doc.get("version"), doc.get("unknownTrailing"),
                                  doc.get("variant"))
        return CaseBytes(self.value_fmt.encode(value), key_bytes)


def record_pairs(formats: list[Format]) -> dict[str, tuple[Format, Format]]:
    """``<Record>Key`` / ``<Record>Value`` types of one family, by record name."""
    by_name = {f.name: f for f in formats}
    pairs = {}
    for name, fmt in by_name.items():
        if not name.endswith(KEY_SUFFIX):
            continue
        record = name[: -len(KEY_SUFFIX)]
        value = by_name.get(record + VALUE_SUFFIX)
        if record and value is not None and getattr(value, "family", None) == getattr(fmt, "family", None):
            pairs[record] = (fmt, value)
    return pairs


def hooked_records(registry: Registry) -> dict[str, tuple[Format, Format]]:
    """Records declared by the format plugins' ``records(registry)`` hooks."""
    return catalogue.records(registry)


def subjects(registry: Registry = REGISTRY) -> dict[str, Subject]:
    """Every subject a registry offers: records for key/value pairs, messages for the other types."""
    formats = list(registry.formats())
    out: dict[str, Subject] = {}
    paired: set[str] = set()
    records = record_pairs(formats)
    records.update(hooked_records(registry))
    for record, (key, value) in records.items():
        out[record] = RecordSubject(record, key, value)
        paired.update((key.name, value.name, *(f.name for _, f in layouts_of(value))))
    for fmt in formats:
        if fmt.name not in paired:
            out[fmt.name] = MessageSubject(fmt)
    return dict(sorted(out.items()))


def subject_for(name: str, registry: Registry = REGISTRY) -> Subject:
    """The subject a golden directory is named after: a record, or any registered type."""
    found = subjects(registry).get(name)
    return found if found is not None else MessageSubject(registry.get(name))
