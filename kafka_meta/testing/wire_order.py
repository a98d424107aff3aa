"""A struct's members drawn in wire order, for both makers of values (hypothesis's and the conformance sampler's).

Members that later members refer to are drawn first in the order the wire holds them and bound, so that a
dictionary's references and a dispatched body's key and version resolve; the dispatched bodies' (key, version)
pairs are chosen before anything else, as a reader meets the key before the body it selects. What differs between
the two makers is only how a choice is made: they pass their own ``choose``, ``draw`` and ``unknown``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from kafka_meta.codec.dispatch import Dispatch
from kafka_meta.wire.codegen import UNKNOWN_KEY
from kafka_meta.wire.composite import KStruct
from kafka_meta.wire.dictionary import Dictionary

Bindings = dict[str, Any]


def _never() -> bool:
    return False


def struct_in_wire_order(con: KStruct, bindings: Bindings, choose: Callable[[list[Any]], tuple[Any, Any]],
                         draw: Callable[[Any, Bindings], Any], unknown: Callable[[KStruct], list[Any]],
                         leave_tagged: Callable[[], bool] = _never) -> dict[str, Any]:
    """A plain value of ``con``: absent members at their defaults, a tagged member at its default where
    ``leave_tagged()`` says so, the others drawn by ``draw(construct, bindings so far)`` (a dispatched body's key
    and version by ``choose(choices)``), and the unknown tagged fields of a flexible struct by ``unknown``."""
    local = dict(bindings)
    preset: dict[str, Any] = {}
    for m in con.members:
        if isinstance(m.con, Dispatch) and m.role == "inline":
            preset[m.con.key], preset[m.con.version] = choose(m.con.choices())
    out: dict[str, Any] = {}
    for m in con.members:
        if m.role == "absent" or (m.role == "tagged" and leave_tagged()):
            out[m.py] = copy.deepcopy(m.default)
            continue
        binds = getattr(m.con, "binds", None)
        value = preset[binds] if binds in preset else draw(m.con, local)
        out[m.py] = value
        if isinstance(m.con, Dictionary):
            local[m.con.binds] = [entry[m.con.value.py] for entry in value]
        elif binds is not None:
            local[binds] = value
    if con.shape.unknown_key:
        out[UNKNOWN_KEY] = unknown(con) if con.flexible else []
    return out


__all__ = ["Bindings", "struct_in_wire_order"]
