"""Hypothesis strategies for plain message values, derived from the same construct trees the codecs use.

``values_for(construct)`` draws values that the construct can encode and that decode back unchanged
(absent fields at their defaults, unknown tagged fields sorted by tag, no NaN), which is exactly what
a round-trip property needs. Requires ``hypothesis`` (the ``test`` extra).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from kafka_meta.wire.codegen import UNKNOWN_KEY
from kafka_meta.wire.composite import KArray, KStruct, Marked
from kafka_meta.wire.primitives import INT_BOUNDS, Bool, Fixed, KBytes, KString, KUuid, UVarInt

SMALL = 4  # collection sizes: enough to exercise loops, small enough to keep examples fast


def values_for(con: Any) -> st.SearchStrategy[Any]:
    if isinstance(con, Fixed):
        if con.kind == "float64":
            return st.floats(allow_nan=False)
        low, high = INT_BOUNDS[con.kind]
        return st.integers(low, high)
    if isinstance(con, Bool):
        return st.booleans()
    if isinstance(con, UVarInt):
        return st.integers(0, 2**32 - 1)
    if isinstance(con, KUuid):
        return st.binary(min_size=16, max_size=16)
    if isinstance(con, KString):
        return _nullable(con.nullable, st.text(max_size=12))
    if isinstance(con, KBytes):
        return _nullable(con.nullable, st.binary(max_size=12))
    if isinstance(con, KArray):
        return _nullable(con.nullable, st.lists(values_for(con.element), max_size=SMALL))
    if isinstance(con, Marked):
        return st.none() | values_for(con.struct)
    if isinstance(con, KStruct):
        return _struct(con)
    raise TypeError(f"no strategy for {con!r}")


def _nullable(nullable: bool, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy if nullable else strategy


def _struct(con: KStruct) -> st.SearchStrategy[dict[str, Any]]:
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for m in con.members:
        fields[m.py] = values_for(m.con) if m.role != "absent" else st.just(m.default)
    if con.shape.unknown_key:
        fields[UNKNOWN_KEY] = _unknown_tags(con) if con.flexible else st.just([])
    return st.fixed_dictionaries(fields)


def _unknown_tags(con: KStruct) -> st.SearchStrategy[list[tuple[int, bytes]]]:
    known = set(con.by_tag)
    tags = st.lists(st.integers(0, 300).filter(lambda t: t not in known), max_size=2, unique=True)
    return tags.flatmap(lambda ts: st.tuples(*(st.tuples(st.just(t), st.binary(max_size=6)) for t in sorted(ts)))
                        .map(list))
