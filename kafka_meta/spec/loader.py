"""Read message specs written in Kafka's JSON dialect and check them against the dialect's rules.

Every problem is reported as a :class:`~kafka_meta.errors.SpecError` naming the file, the field path
and the rule, worded so that the spec author knows what to change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kafka_meta.errors import SpecError
from kafka_meta.spec import jsonc
from kafka_meta.spec.model import FieldSpec, FieldType, MessageSpec, StructSpec, parse_default
from kafka_meta.spec.versions import NONE, Versions

MESSAGE_TYPES = frozenset(
    {"request", "response", "header", "data", "metadata", "coordinator-key", "coordinator-value"}
)
MESSAGE_KEYS = frozenset(
    {
        "apiKey", "type", "name", "validVersions", "flexibleVersions", "fields", "commonStructs",
        "listeners", "latestVersionUnstable", "deprecatedVersions", "about",
    }
)
FIELD_KEYS = frozenset(
    {
        "name", "type", "versions", "nullableVersions", "taggedVersions", "tag", "default", "ignorable",
        "mapKey", "entityType", "about", "zeroCopy", "flexibleVersions", "fields",
    }
)
STRUCT_KEYS = frozenset({"name", "versions", "fields", "about"})


def _as_bool(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise ValueError(f"{what} must be true or false, not {value!r}")


def _non_negative_int(value: Any) -> bool:
    """An integer of at least 0; JSON's ``true`` is no integer here, though Python's bool is one."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _none_or_open_ended(versions: Versions) -> bool:
    """Flexible versions, once reached, stay: the only ranges allowed are ``none`` and ``N+``."""
    return versions.empty or versions.open_ended


def _default_text(value: Any) -> str | None:
    """Kafka reads ``default`` as text: ``-1`` and ``"-1"`` mean the same, JSON ``null`` means none given."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _SpecReader:
    def __init__(self, raw: dict[str, Any], source: str) -> None:
        self.raw = raw
        self.source = source
        self.structs: dict[str, StructSpec] = {}
        self.pending: list[FieldSpec] = []  # struct-typed fields that reference a struct by name

    def fail(self, reason: str, path: str = "", rule: str = "") -> SpecError:
        return SpecError(reason, source=self.source, path=path, rule=rule)

    def known_keys(self, raw: dict[str, Any], allowed: frozenset[str], path: str) -> None:
        """Refuse attributes the dialect does not define: a misspelt one would otherwise be ignored silently."""
        unknown = set(raw) - allowed
        if unknown:
            where = "" if path else "top-level "
            raise self.fail(f"unknown {where}attribute(s) {sorted(unknown)}", path, "unknown-attribute")

    def read(self) -> MessageSpec:
        raw = self.raw
        if not isinstance(raw, dict):
            raise self.fail("a spec must be a JSON object", rule="shape")
        self.known_keys(raw, MESSAGE_KEYS, "")
        name = raw.get("name")
        if not isinstance(name, str) or not name.isidentifier():
            raise self.fail("'name' must be an identifier such as OffsetCommitValue", rule="name")
        mtype = raw.get("type")
        if mtype not in MESSAGE_TYPES:
            raise self.fail(f"'type' must be one of {sorted(MESSAGE_TYPES)}, not {mtype!r}", name, "message-type")
        valid = self.versions(raw.get("validVersions"), name, "validVersions", required=True)
        if valid.empty:
            raise self.fail("validVersions must not be 'none'", name, "valid-versions")
        flexible = self.versions(raw.get("flexibleVersions"), name, "flexibleVersions", required=True)
        if not _none_or_open_ended(flexible):
            raise self.fail("flexibleVersions must be 'none' or open-ended like '4+'", name, "flexible-versions")
        api_key = raw.get("apiKey")
        if api_key is not None and not _non_negative_int(api_key):
            raise self.fail(f"apiKey must be a non-negative integer, not {api_key!r}", name, "api-key")
        self.flexible = flexible
        self.valid = valid

        common: list[StructSpec] = []
        for i, raw_struct in enumerate(raw.get("commonStructs") or []):
            common.append(self.common_struct(raw_struct, f"{name}.commonStructs[{i}]"))
        fields = self.fields(raw.get("fields"), name, valid)
        for f in self.pending:
            struct_name = f.type.struct_ref
            if struct_name not in self.structs:
                raise self.fail(f"type {f.type} names a struct that is not defined", f.path, "undefined-struct")
            f.struct = self.structs[struct_name]
        return MessageSpec(name, mtype, valid, flexible, fields, api_key=api_key, common_structs=common,
                           structs=dict(self.structs), source=self.source, raw=raw)

    def versions(self, value: Any, path: str, attr: str, required: bool = False) -> Versions:
        if value is None:
            if required:
                raise self.fail(f"'{attr}' is required", path, "missing-attribute")
            return NONE
        try:
            return Versions.parse(value)
        except ValueError as e:
            raise self.fail(f"'{attr}': {e}", path, "version-range") from None

    def define(self, struct: StructSpec, path: str) -> None:
        if struct.name in self.structs:
            raise self.fail(f"struct {struct.name} is defined more than once", path, "duplicate-struct")
        self.structs[struct.name] = struct

    def common_struct(self, raw: Any, path: str) -> StructSpec:
        if not isinstance(raw, dict):
            raise self.fail("a common struct must be an object", path, "shape")
        self.known_keys(raw, STRUCT_KEYS, path)
        name = raw.get("name")
        if not isinstance(name, str) or not name[:1].isupper() or not name.isidentifier():
            raise self.fail("a struct name must start with a capital letter", path, "name")
        versions = self.versions(raw.get("versions"), f"{path} ({name})", "versions", required=True)
        struct = StructSpec(name, versions, [], common=True)
        self.define(struct, path)
        struct.fields = self.fields(raw.get("fields"), name, versions)
        return struct

    def fields(self, raw: Any, parent: str, parent_versions: Versions) -> list[FieldSpec]:
        if raw is None:
            raw = []
        if not isinstance(raw, list):
            raise self.fail("'fields' must be a list", parent, "shape")
        out: list[FieldSpec] = []
        names: set[str] = set()
        tags: dict[int, str] = {}
        for raw_field in raw:
            f = self.field(raw_field, parent, parent_versions)
            if f.name in names:
                raise self.fail(f"field {f.name} appears twice", f.path, "duplicate-field")
            names.add(f.name)
            if f.tag is not None:
                if f.tag in tags:
                    raise self.fail(f"tag {f.tag} is already used by {tags[f.tag]}", f.path, "duplicate-tag")
                tags[f.tag] = f.name
            out.append(f)
        return out

    def field(self, raw: Any, parent: str, parent_versions: Versions) -> FieldSpec:
        if not isinstance(raw, dict):
            raise self.fail("a field must be an object", parent, "shape")
        name = raw.get("name")
        path = f"{parent}.{name}"
        if not isinstance(name, str) or not name[:1].isalpha() or not name.isidentifier():
            raise self.fail(f"field name {name!r} must be an identifier", parent, "name")
        self.known_keys(raw, FIELD_KEYS, path)
        try:
            ftype = FieldType.parse(raw.get("type"))
        except ValueError as e:
            raise self.fail(str(e), path, "field-type") from None
        if ftype.kind == "records" or (ftype.element is not None and ftype.element.kind == "records"):
            raise self.fail("the 'records' type is not supported by kafka_meta", path, "records-unsupported")
        tagged = self.versions(raw.get("taggedVersions"), path, "taggedVersions")
        if "versions" in raw:
            versions = self.versions(raw["versions"], path, "versions")
        elif not tagged.empty:
            versions = tagged  # Kafka's rule: a tagged field without 'versions' exists in its tagged versions
        else:
            raise self.fail("'versions' is required (or 'taggedVersions' for a tagged field)", path,
                            "missing-attribute")
        nullable = self.versions(raw.get("nullableVersions"), path, "nullableVersions")
        if not nullable.empty and not ftype.nullable_kind:
            raise self.fail(f"type {ftype} cannot be nullable", path, "nullable-type")
        try:
            ignorable = _as_bool(raw.get("ignorable", False), "ignorable")
            map_key = _as_bool(raw.get("mapKey", False), "mapKey")
            zero_copy = _as_bool(raw.get("zeroCopy", False), "zeroCopy")
        except ValueError as e:
            raise self.fail(str(e), path, "boolean-attribute") from None
        tag = raw.get("tag")
        if tag is not None:
            if not _non_negative_int(tag):
                raise self.fail(f"tag must be a non-negative integer, not {tag!r}", path, "tag")
            if tagged.empty:
                raise self.fail("a field with a 'tag' needs 'taggedVersions'", path, "tag-without-versions")
        if not tagged.empty:
            if tag is None:
                raise self.fail("a field with 'taggedVersions' needs a 'tag'", path, "tag-missing")
            if not tagged.open_ended:
                raise self.fail(f"taggedVersions {tagged} must be open-ended like '0+'", path, "tagged-versions")
            if not versions.contains_range(tagged):
                raise self.fail(f"taggedVersions {tagged} lies outside versions {versions}", path, "tagged-versions")
            if not self.flexible.contains_range(tagged):
                raise self.fail(
                    f"taggedVersions {tagged} lies outside the message's flexibleVersions {self.flexible}",
                    path, "tagged-versions",
                )
            both = tagged.intersect(nullable)
            if not both.empty and both != tagged:
                raise self.fail("a tagged field must be nullable in all of its tagged versions or none", path,
                                "tagged-nullability")
            if map_key:
                raise self.fail("a tagged field cannot be a mapKey", path, "tagged-map-key")
        field_flexible = None
        if "flexibleVersions" in raw:
            if ftype.kind not in ("string", "bytes"):
                raise self.fail("only string and bytes fields may override flexibleVersions", path,
                                "field-flexible-versions")
            field_flexible = self.versions(raw["flexibleVersions"], path, "flexibleVersions")
            if not _none_or_open_ended(field_flexible):
                raise self.fail("a field's flexibleVersions must be 'none' or open-ended", path,
                                "field-flexible-versions")
        default = _default_text(raw.get("default"))
        try:
            parse_default(ftype, default, nullable=not nullable.empty)
        except ValueError as e:
            raise self.fail(f"invalid default: {e}", path, "default") from None
        f = FieldSpec(name, ftype, versions, nullable_versions=nullable, tagged_versions=tagged, tag=tag,
                      default=default, ignorable=ignorable, map_key=map_key, entity_type=raw.get("entityType"),
                      about=raw.get("about"), zero_copy=zero_copy, flexible_versions=field_flexible, path=path)
        struct_name = ftype.struct_ref
        if "fields" in raw:
            if struct_name is None:
                raise self.fail(f"type {ftype} is not a struct, so it cannot have 'fields'", path,
                                "fields-on-primitive")
            struct = StructSpec(struct_name, versions, [])
            self.define(struct, path)
            struct.fields = self.fields(raw["fields"], f"{path}", versions)
            f.struct = struct
        elif struct_name is not None:
            self.pending.append(f)
        return f


def spec_from_dict(raw: dict[str, Any], source: str = "<dict>") -> MessageSpec:
    """A spec from already-parsed JSON (e.g. shipped to another process)."""
    return _SpecReader(raw, source).read()


def load_spec_text(text: str, source: str = "<string>") -> MessageSpec:
    try:
        raw = jsonc.loads(text)
    except json.JSONDecodeError as e:
        raise SpecError(f"not valid JSON: {e}", source=source, rule="json") from None
    return _SpecReader(raw, source).read()


def load_spec(path: str | Path) -> MessageSpec:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", source=str(path), rule="io") from None
    except UnicodeDecodeError as e:
        raise SpecError(f"not UTF-8 text (byte {e.start}): a spec is a JSON file", source=str(path),
                        rule="json") from None
    return load_spec_text(text, str(path))


def iter_spec_files(root: str | Path) -> Iterable[Path]:
    root = Path(root)
    if root.is_file():
        yield root
        return
    yield from sorted(p for p in root.rglob("*.json") if p.is_file())


def load_specs(root: str | Path) -> list[MessageSpec]:
    """Every spec under a directory (recursively) or in one file."""
    return [load_spec(p) for p in iter_spec_files(root)]
