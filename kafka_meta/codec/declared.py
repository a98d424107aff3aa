"""Formats declared by hand from kafka_meta.wire constructs, for layouts that no message spec describes.

A declaration lists, per struct, its fields in wire order with the versions that carry each one and a
function giving the field's construct at a version; :class:`DeclaredStruct` turns that table into the
same :class:`~kafka_meta.wire.composite.KStruct` trees a spec produces (fields a version lacks are
``absent``: read as their default, refused on write unless ``ignorable``), and :class:`DeclaredFormat`
runs them through the machinery every format shares (framing, generated codecs, precise errors, version
probing). The models are hand-written pydantic classes, one per struct shape.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kafka_meta.codec.format import MessageFormat
from kafka_meta.codec.framing import Framing
from kafka_meta.models.base import Message
from kafka_meta.spec.versions import Versions
from kafka_meta.wire.composite import KArray, KStruct, Marked, Member, StructShape


@dataclass(frozen=True)
class DeclaredField:
    """One field of a hand-declared struct: where it is on the wire and what it is when absent."""

    py: str
    json: str
    versions: Versions
    wire: Callable[[int], Any]  # the construct at a version in ``versions``
    default: Any = None
    kind: str = "int32"  # "int32", "int64", "string", "array", "struct"... (typed defaults need it)
    ignorable: bool = False  # a non-default value is dropped, not refused, by versions without the field


def nested_struct(con: Any) -> KStruct | None:
    """The struct a member holds, directly, as an array element or behind a null marker (``Member.struct``)."""
    if isinstance(con, KArray):
        con = con.element
    if isinstance(con, Marked):
        con = con.struct
    return con if isinstance(con, KStruct) else None


class DeclaredStruct:
    """A struct shape and its field table; :meth:`at` gives its construct at one version."""

    def __init__(self, owner: str, name: str, fields: Sequence[DeclaredField]) -> None:
        self.shape = StructShape(owner, name, unknown_key=False)
        self.fields = list(fields)

    def at(self, version: int) -> KStruct:
        members = []
        for f in self.fields:
            present = version in f.versions
            con = f.wire(version) if present else None
            nested = nested_struct(con)
            members.append(Member(py=f.py, json=f.json, role="inline" if present else "absent", kind=f.kind,
                                  default=copy.deepcopy(f.default), con=con, ignorable=f.ignorable, struct=nested))
        return KStruct(self.shape, version, members, flexible=False)


@dataclass(frozen=True)
class DeclaredModels:
    """The hand-written model classes of a declared format, by struct shape name."""

    root: type[Message]
    classes: dict[str, type]

    def class_for(self, struct_name: str) -> type:
        return self.classes[struct_name]


class DeclaredFormat(MessageFormat):
    """A registered type whose construct trees come from a declaration rather than a message spec."""

    def __init__(self, name: str, framing: Framing, versions: Versions, layout: Callable[[int], KStruct],
                 models: DeclaredModels, family: str = "") -> None:
        super().__init__(framing, name, family, models.root)
        self._versions = versions
        self._layout = layout
        self._declared_models = models
        self._trees: dict[int, KStruct] = {}
        self.adopt(models.root)  # hand-written classes exist before the format: adopted at once

    @property
    def versions(self) -> Versions:
        return self._versions

    def construct(self, version: int) -> KStruct:
        tree = self._trees.get(version)
        if tree is None:
            tree = self._layout(version)
            if version is None or version <= self.versions.high + 1:  # newer ones come from the input: not kept
                self._trees[version] = tree
        return tree

    def make_models(self) -> DeclaredModels:
        return self._declared_models

    def limited_to(self, newest: int) -> DeclaredFormat:
        """This format as read by a release whose newest version is ``newest`` (compatibility checks): a
        declared table's layouts do not depend on which version is the newest, so only the range is cut."""
        return DeclaredFormat(self.name, self.framing, Versions(self.versions.low, newest), self._layout,
                              self._declared_models, self.family)
