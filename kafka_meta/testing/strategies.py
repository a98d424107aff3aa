"""Hypothesis strategies for plain message values, derived from the same construct trees the codecs use.

``values_for(construct)`` draws values that the construct can encode and that decode back unchanged
(absent fields at their defaults, unknown tagged fields sorted by tag, no NaN), which is exactly what
a round-trip property needs. Constructs that depend on values read before them (a dictionary and the
references into it, a record chosen by its apiKey, see :mod:`kafka_meta.wire.bindings`) are drawn in wire
order with the same bindings, so references always resolve. Requires ``hypothesis`` (the ``test`` extra).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from kafka_meta.codec.dispatch import Dispatch
from kafka_meta.testing.wire_order import struct_in_wire_order
from kafka_meta.wire.bindings import Bind
from kafka_meta.wire.checked import UVARINT_BOUNDS, Bounded, LayoutVersion
from kafka_meta.wire.codegen import UNKNOWN_KEY
from kafka_meta.wire.composite import KArray, KStruct, Marked
from kafka_meta.wire.dictionary import Dictionary, DictRef
from kafka_meta.wire.javaio import ModifiedUtf8, Utf16Chars
from kafka_meta.wire.primitives import INT_BOUNDS, Bool, Fixed, KBytes, KString, KUuid, UVarInt

SMALL = 4  # collection sizes: enough to exercise loops, small enough to keep examples fast
Bindings = dict[str, Any]


_MADE: dict[int, tuple[Any, st.SearchStrategy[Any]]] = {}


def values_for(con: Any, bindings: Bindings | None = None) -> st.SearchStrategy[Any]:
    """Values ``con`` encodes and decodes back unchanged, given the values read before it (``bindings``).

    A construct with nothing bound gets the same strategy object every time it is asked for: hypothesis then
    works out each strategy's properties (and a lambda's description) once, not once per example."""
    if bindings:
        return _values_for(con, bindings)
    made = _MADE.get(id(con))
    if made is None or made[0] is not con:  # the construct kept with its strategy, so its id is not reused
        made = _MADE[id(con)] = (con, _values_for(con, {}))
    return made[1]


def _values_for(con: Any, bindings: Bindings) -> st.SearchStrategy[Any]:
    if isinstance(con, Fixed):
        if con.kind == "float64":
            return st.floats(allow_nan=False)
        low, high = INT_BOUNDS[con.kind]
        return st.integers(low, high)
    if isinstance(con, Bool):
        return st.booleans()
    if isinstance(con, UVarInt):
        return st.integers(*UVARINT_BOUNDS)
    if isinstance(con, LayoutVersion):
        return st.just(con.version)
    if isinstance(con, Bounded):
        return st.integers(con.low, con.high)
    if isinstance(con, Bind):
        return values_for(con.inner, bindings)
    if isinstance(con, KUuid):
        return st.binary(min_size=16, max_size=16)
    if isinstance(con, KString):
        return _nullable(con.nullable, st.text(max_size=12))
    if isinstance(con, ModifiedUtf8):
        return st.text(max_size=12)
    if isinstance(con, Utf16Chars):
        return st.none() | st.text(min_size=1, max_size=8)  # "" is written as "none", like Java
    if isinstance(con, KBytes):
        return _nullable(con.nullable, st.binary(max_size=12))
    if isinstance(con, Dictionary):
        return _dictionary(con)
    if isinstance(con, DictRef):
        names = bindings.get(con.dictionary)
        return st.sampled_from(names) if names else st.nothing()
    if isinstance(con, Dispatch):
        fmt = con.formats()[bindings[con.key]]
        return values_for(fmt.construct(bindings[con.version]))
    if isinstance(con, KArray):
        return _nullable(con.nullable, st.lists(values_for(con.element, bindings), max_size=SMALL))
    if isinstance(con, Marked):
        return st.none() | values_for(con.struct, bindings)
    if isinstance(con, KStruct):
        return _struct(con, bindings) if _depends(con) else _independent_struct(con)
    raise TypeError(f"no strategy for {con!r}")


def _nullable(nullable: bool, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy if nullable else strategy


def _independent_struct(con: KStruct) -> st.SearchStrategy[dict[str, Any]]:
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for m in con.members:
        fields[m.py] = values_for(m.con) if m.role != "absent" else st.just(m.default)
    if con.shape.unknown_key:
        fields[UNKNOWN_KEY] = _unknown_tags(con) if con.flexible else st.just([])
    return st.fixed_dictionaries(fields)


def _struct(con: KStruct, bindings: Bindings) -> st.SearchStrategy[dict[str, Any]]:
    """Members drawn in wire order, binding what later members refer to."""

    @st.composite
    def draw_struct(draw: Any) -> dict[str, Any]:
        return struct_in_wire_order(con, bindings, lambda choices: draw(st.sampled_from(choices)),
                                    lambda member, local: draw(values_for(member, local)),
                                    lambda struct: draw(_unknown_tags(struct)))

    return draw_struct()


def _depends(con: Any) -> bool:
    """Whether drawing ``con`` involves bindings (it binds or reads a value)."""
    if getattr(con, "binds", None) is not None or getattr(con, "reads", None):
        return True
    if isinstance(con, KStruct):
        return any(m.con is not None and _depends(m.con) for m in con.members)
    if isinstance(con, KArray):
        return _depends(con.element)
    if isinstance(con, Marked):
        return _depends(con.struct)
    return False


def _dictionary(con: Dictionary) -> st.SearchStrategy[list[dict[str, Any]]]:
    key, value = con.key.py, con.value.py
    low, high = INT_BOUNDS["int32"]
    pairs = st.lists(st.tuples(st.integers(low, high), st.text(max_size=12)), max_size=SMALL,
                     unique_by=(lambda p: p[0], lambda p: p[1]))

    def entries(ps: list[tuple[int, str]]) -> list[dict[str, Any]]:
        return [{**con.element.default_plain(), key: k, value: v} for k, v in ps]

    return pairs.map(entries)


def _unknown_tags(con: KStruct) -> st.SearchStrategy[list[tuple[int, bytes]]]:
    known = set(con.by_tag)
    # up to two tags the struct does not know, each once, sorted by tag (one strategy: no flatmap, which makes
    # new strategies for every example)
    tag = st.integers(0, 300).filter(lambda t: t not in known)
    fields = st.lists(st.tuples(tag, st.binary(max_size=6)), max_size=2, unique_by=lambda field: field[0])
    return fields.map(lambda drawn: sorted(drawn, key=lambda field: field[0]))
