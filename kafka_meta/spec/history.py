"""A message spec as it read when a given version was the newest: the spec an older Kafka release shipped.

Kafka's specs only ever grow at the top: a field is introduced open-ended (``"3+"``) and is closed
(``"3-5"``) only when a later version drops it; the same holds for nullable, tagged and flexible versions.
So the spec of a release whose newest version was ``R`` is the current one with

* ``validVersions`` cut at ``R``;
* every range that starts after ``R`` gone (the field, or its nullability, did not exist yet);
* every range still open at ``R`` (it ends at ``R`` or later) open-ended again, as it was written then;
* ranges that ended before ``R`` unchanged.

The compatibility matrix builds "a Kafka reader limited to R" from this.
"""

from __future__ import annotations

import copy

from kafka_meta.spec.model import FieldSpec, MessageSpec, StructSpec
from kafka_meta.spec.versions import MAX_VERSION, NONE, Versions


def range_as_of(versions: Versions, newest: int) -> Versions:
    """One range as it was written when ``newest`` was the newest version."""
    if versions.empty or versions.low > newest:
        return NONE
    if versions.high >= newest:
        return Versions(versions.low, MAX_VERSION)
    return versions


def _field_as_of(f: FieldSpec, newest: int, structs: dict[str, StructSpec]) -> FieldSpec | None:
    versions = range_as_of(f.versions, newest)
    if versions.empty:
        return None
    g = copy.copy(f)
    g.versions = versions
    g.nullable_versions = range_as_of(f.nullable_versions, newest)
    g.tagged_versions = range_as_of(f.tagged_versions, newest)
    if g.tagged_versions.empty:
        g.tag = None
    if f.flexible_versions is not None:
        g.flexible_versions = range_as_of(f.flexible_versions, newest)
    if f.struct is not None:
        g.struct = structs[f.struct.name]
    return g


def _fields_as_of(fields: list[FieldSpec], newest: int, structs: dict[str, StructSpec]) -> list[FieldSpec]:
    return [g for g in (_field_as_of(f, newest, structs) for f in fields) if g is not None]


def spec_as_of(spec: MessageSpec, newest: int) -> MessageSpec:
    """The spec a reader whose newest version is ``newest`` was generated from."""
    if newest not in spec.valid_versions:
        raise ValueError(f"{spec.name}: version {newest} is not in validVersions {spec.valid_versions}")
    # copy the struct definitions first (without fields) so that struct references can be re-pointed
    structs = {name: StructSpec(s.name, range_as_of(s.versions, newest) if s.common else s.versions, [], s.common)
               for name, s in spec.structs.items()}
    for name, s in spec.structs.items():
        structs[name].fields = _fields_as_of(s.fields, newest, structs)
    for name, s in structs.items():
        if not s.common:  # an inline struct lives exactly as long as the field that declares it
            s.versions = range_as_of(spec.structs[name].versions, newest)
    return MessageSpec(
        name=spec.name,
        type=spec.type,
        valid_versions=Versions(spec.valid_versions.low, newest),
        flexible_versions=range_as_of(spec.flexible_versions, newest),
        fields=_fields_as_of(spec.fields, newest, structs),
        api_key=spec.api_key,
        common_structs=[structs[s.name] for s in spec.common_structs],
        structs=structs,
        source=f"{spec.source} (as of version {newest})",
        raw=spec.raw,
    )
