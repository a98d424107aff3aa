"""Field-by-field comparison of two specs of the same message.

Used to prove that our own specs say exactly what Kafka's say on the wire (names, types, version ranges,
nullability, tags, defaults, ignorable, mapKey), whatever their comments and wording.
"""

from __future__ import annotations

from kafka_meta.spec.model import FieldSpec, MessageSpec, parse_default


def _default(f: FieldSpec) -> object:
    try:
        return repr(parse_default(f.type, f.default, nullable=True))
    except ValueError:
        return f.default


def _field_facts(f: FieldSpec) -> dict[str, object]:
    return {
        "type": str(f.type),
        "versions": str(f.versions),
        "nullableVersions": str(f.nullable_versions),
        "taggedVersions": str(f.tagged_versions),
        "tag": f.tag,
        "default": _default(f),
        "ignorable": f.ignorable,
        "mapKey": f.map_key,
        "entityType": f.entity_type,
        "flexibleVersions": None if f.flexible_versions is None else str(f.flexible_versions),
    }


def _fields(ours: list[FieldSpec], theirs: list[FieldSpec], path: str, out: list[str]) -> None:
    our_names = [f.name for f in ours]
    their_names = [f.name for f in theirs]
    if our_names != their_names:
        out.append(f"{path}: fields {our_names} != {their_names}")
    theirs_by_name = {f.name: f for f in theirs}
    for f in ours:
        g = theirs_by_name.get(f.name)
        if g is None:
            continue
        a, b = _field_facts(f), _field_facts(g)
        for key in a:
            if a[key] != b[key]:
                out.append(f"{path}.{f.name}: {key} {a[key]!r} != {b[key]!r}")
        if f.struct is not None and g.struct is not None:
            _fields(f.struct.fields, g.struct.fields, f"{path}.{f.name}", out)


def structural_differences(ours: MessageSpec, theirs: MessageSpec, *, compare_versions: bool = True) -> list[str]:
    """Every wire-relevant difference, as readable lines (empty when the two specs agree)."""
    out: list[str] = []
    if ours.name != theirs.name:
        out.append(f"name {ours.name} != {theirs.name}")
    if compare_versions and str(ours.valid_versions) != str(theirs.valid_versions):
        out.append(f"validVersions {ours.valid_versions} != {theirs.valid_versions}")
    if str(ours.flexible_versions) != str(theirs.flexible_versions):
        out.append(f"flexibleVersions {ours.flexible_versions} != {theirs.flexible_versions}")
    _fields(ours.fields, theirs.fields, ours.name, out)
    return out
