"""Values that a construct makes available to the constructs read or written after it.

Some layouts are not context-free: a Streams AssignmentInfo refers to topics by index into a dictionary
read earlier, a metadata-log record's body is chosen by the apiKey and version before it. The construct
that reads such a value *binds* it under a name; later constructs look it up by that name. Interpreted
constructs keep bindings in the parse/build context; generated code keeps them in local variables
(:meth:`~kafka_meta.wire.codegen.CodeWriter.bind`). A construct that binds says so in ``binds``; one that
reads a binding lists the names in ``reads`` (the hypothesis strategies use both).
"""

from __future__ import annotations

from typing import Any

from kafka_meta.wire.primitives import KafkaConstruct

BINDINGS_KEY = "_bindings"


def bind(context: Any, name: str, value: Any) -> None:
    bindings = context.get(BINDINGS_KEY)
    if bindings is None:
        bindings = context[BINDINGS_KEY] = {}
    bindings[name] = value


def bound(context: Any, name: str) -> Any:
    bindings = context.get(BINDINGS_KEY) or {}
    if name not in bindings:
        raise LookupError(f"nothing is bound to {name!r} before it is used")
    return bindings[name]


class Bind(KafkaConstruct):
    """Reads or writes ``inner`` and binds its value to ``name`` for the constructs that follow."""

    shown = ("inner", "binds")

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__()
        self.inner = inner
        self.binds = name
        self.min_size = inner.min_size

    def _parse(self, stream: Any, context: Any, path: str) -> Any:
        value = self.inner._parse(stream, context, path)
        bind(context, self.binds, value)
        return value

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        bind(context, self.binds, obj)
        return self.inner._build(obj, stream, context, path)

    def emit_decode(self, em: Any, target: str) -> None:
        self.inner.emit_decode(em, target)
        em.bind(self.binds, target)

    def emit_encode(self, em: Any, expr: str) -> None:
        v = em.var("bnd")
        em.line(f"{v} = {expr}")
        em.bind(self.binds, v)
        self.inner.emit_encode(em, v)
