"""Turn a message spec at one version into a tree of kafka_meta constructs.

This is where the spec dialect's rules meet the wire: which fields a version has, which are tagged,
when strings and arrays are compact, where null markers go, and what a missing field defaults to.
Reading a version above ``validVersions`` evaluates every range at that version, as Kafka's generated
readers do: open-ended fields stay, bounded ones drop out (the newest known layout).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kafka_meta.spec.model import EMPTY_STRUCT, FieldSpec, MessageSpec
from kafka_meta.wire.composite import KArray, KStruct, Marked, Member, StructShape
from kafka_meta.wire.primitives import Bool, Fixed, KBytes, KString, KUuid

_FIXED_KINDS = frozenset({"int8", "int16", "int32", "int64", "uint16", "uint32", "float64"})


FieldHook = Callable[[str, int], Any]


class SpecBuilder:
    """Builds (and caches) the construct tree of each version of one message spec.

    ``field_hook(json_name, version)`` may supply the construct of a top-level field that the framing owns
    (a leading version field and its companions, see :class:`~kafka_meta.codec.framing.LeadingVersion`).
    """

    def __init__(self, spec: MessageSpec, field_hook: FieldHook | None = None) -> None:
        self.spec = spec
        self.field_hook = field_hook
        self._shapes: dict[str, StructShape] = {}
        self._built: dict[int, KStruct] = {}

    def shape(self, name: str) -> StructShape:
        if name not in self._shapes:
            self._shapes[name] = StructShape(self.spec.name, name, unknown_key=self.spec.ever_flexible)
        return self._shapes[name]

    def build(self, version: int) -> KStruct:
        """The construct for the message body at ``version`` (any version at or above the lowest)."""
        tree = self._built.get(version)
        if tree is None:
            tree = self.struct(self.spec.name, self.spec.fields, version, root=True)
            if version is None or version <= self.spec.valid_versions.high + 1:  # newer ones come from the input
                self._built[version] = tree
        return tree

    def struct(self, name: str, fields: list[FieldSpec], version: int, root: bool = False) -> KStruct:
        flexible = self.spec.flexible(version)
        members = [self.member(f, version, flexible, root) for f in fields]
        return KStruct(self.shape(name), version, members, flexible)

    def member(self, f: FieldSpec, version: int, flexible: bool, root: bool = False) -> Member:
        nested = self.struct(f.struct.name, f.struct.fields, version) if f.struct is not None else None
        default: Any = f.default_value()
        if default is EMPTY_STRUCT:
            default = nested.default_plain() if nested is not None else None
        if version not in f.versions:
            role, con = "absent", None
        elif flexible and version in f.tagged_versions:
            role, con = "tagged", self.construct(f, version, flexible, tagged=True, nested=nested)
        else:
            owned = self.field_hook(f.json_name, version) if root and self.field_hook else None
            if owned is None:
                owned = self.construct(f, version, flexible, tagged=False, nested=nested)
            role, con = "inline", owned
        return Member(
            py=f.py_name,
            json=f.json_name,
            role=role,
            kind=f.type.kind,
            default=default,
            con=con,
            tag=f.tag if role == "tagged" else None,
            ignorable=f.ignorable,
            struct=nested,
        )

    def construct(self, f: FieldSpec, version: int, flexible: bool, tagged: bool, nested: KStruct | None) -> Any:
        kind = f.type.kind
        nullable = version in f.nullable_versions
        if kind == "array":
            element = f.type.element
            assert element is not None
            if element.kind == "struct":
                assert nested is not None
                item: Any = nested
            else:
                item = self.primitive(element.kind, compact=flexible, nullable=False)
            return KArray(item, compact=flexible, nullable=nullable)
        if kind == "struct":
            assert nested is not None
            if nullable:
                return Marked(nested, "uvarint" if tagged else "int8")
            return nested
        compact = flexible if f.flexible_versions is None else version in f.flexible_versions
        return self.primitive(kind, compact=compact, nullable=nullable)

    @staticmethod
    def primitive(kind: str, compact: bool, nullable: bool) -> Any:
        if kind in _FIXED_KINDS:
            return Fixed(kind)
        if kind == "bool":
            return Bool()
        if kind == "uuid":
            return KUuid()
        if kind == "string":
            return KString(compact=compact, nullable=nullable)
        if kind == "bytes":
            return KBytes(compact=compact, nullable=nullable)
        raise ValueError(f"type {kind} has no wire form in kafka_meta")
