"""What Kafka's generated JsonConverter writes for a message, derived from what kafka_meta prints.

kafka_meta's JSON holds every field of every version (absent ones at their defaults: the models hold the
union of the versions), and the unknown tagged fields it keeps. Kafka's generated `*JsonConverter.write(
message, version)` writes only the fields present in that version, leaves out a tagged field holding its
default (the generated code tests `!= default` before writing it: `javap -c` on
`ConsumerGroupMetadataValueJsonConverter` and `ConsumerGroupMemberMetadataValueJsonConverter` in the lab's
4.4 jars shows the test), and never writes unknown tagged fields (Kafka keeps them only for re-writing).

`kafka_view(ours, struct_fields, version)` applies exactly those rules, with Kafka's own spec of the
message (`kafka_spec(name)`, from ../shared/kafka-spec, the newer snapshot first), and checks on the way
that every field it leaves out does hold its default, so nothing kafka_meta decoded differently can hide
in a field Kafka does not print.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from functools import cache
from typing import Any

from conftest import SPEC_DIR

from kafka_meta.spec import load_spec
from kafka_meta.spec.model import EMPTY_STRUCT, FieldSpec, MessageSpec

UNKNOWN_TAGGED = "_unknownTaggedFields"
# where kafka_meta prints something other than the field's JSON value (nested decoding): the caller maps it
Nested = Callable[[str, FieldSpec, Any], Any]


class NotKafkas(AssertionError):
    """kafka_meta printed something Kafka's converter could not have written from the same message."""


@cache
def kafka_spec(name: str) -> MessageSpec:
    """Kafka's spec of a message: the newer snapshot of ../shared/kafka-spec (Kafka 4.4's files are the
    same, see its SOURCE.md), else the 2024 one."""
    for directory in (SPEC_DIR / "newer", SPEC_DIR):
        found = sorted(directory.glob(f"*/{name}.json"))
        if found:
            return load_spec(found[0])
    raise LookupError(f"no Kafka spec of {name} under {SPEC_DIR}")


def uuid_json(raw: bytes) -> str:
    """Kafka's Uuid.toString(): URL-safe base64 without padding (kafka_meta prints uuids the same way)."""
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def default_json(field: FieldSpec) -> Any:
    """The field's default as JSON, as kafka_meta prints it (a struct default: every field at its default)."""
    value = field.default_value()
    if value is EMPTY_STRUCT:
        return {f.json_name: default_json(f) for f in field.struct.fields}
    if field.type.kind == "uuid":
        return uuid_json(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


def kafka_view(ours: dict[str, Any], fields: list[FieldSpec], version: int, *, path: str = "",
               nested: Nested | None = None) -> dict[str, Any]:
    """`ours` (one struct of kafka_meta's JSON) as Kafka's converter writes it at `version`."""
    names = {f.json_name for f in fields}
    extra = set(ours) - names - {UNKNOWN_TAGGED}
    if extra:
        raise NotKafkas(f"{path or 'the message'}: fields Kafka's spec does not have: {sorted(extra)}")
    out: dict[str, Any] = {}
    for field in fields:
        where = f"{path}.{field.json_name}" if path else field.json_name
        if field.json_name not in ours:
            raise NotKafkas(f"{where}: kafka_meta did not print it")
        value = ours[field.json_name]
        if version not in field.versions or (field.tagged(version) and value == default_json(field)):
            if value != default_json(field):
                raise NotKafkas(f"{where}: Kafka leaves it out at version {version}, but kafka_meta read "
                                f"{value!r}, not the default {default_json(field)!r}")
            continue
        out[field.json_name] = _value(field, value, version, where, nested)
    return out


def _value(field: FieldSpec, value: Any, version: int, where: str, nested: Nested | None) -> Any:
    if nested is not None and field.type.kind == "bytes" and not (value is None or isinstance(value, str)):
        return nested(where, field, value)
    if value is None or field.struct is None:
        return value
    if field.type.is_array:
        return [kafka_view(item, field.struct.fields, version, path=f"{where}[{i}]", nested=nested)
                for i, item in enumerate(value)]
    return kafka_view(value, field.struct.fields, version, path=where, nested=nested)


def upper_snake(name: str) -> str:
    """FeatureLevelRecord -> FEATURE_LEVEL_RECORD, the names of Kafka's MetadataRecordType constants."""
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and (not name[i - 1].isupper() or (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(ch.upper())
    return "".join(out)
