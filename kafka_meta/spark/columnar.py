"""Decode a whole batch of blobs straight into column builders: the fastest path into Arrow.

The same construct trees and emitter as every other decoder, with a value mode that, instead of
building a dict per struct, appends each field to its column list (``ColumnarMode``). One generated
function per format decodes a batch: per row it reads the framing, dispatches on the layout version to
that version's inlined body, and appends ``_version``/``_error``. A row that fails half-way is undone
(its partial appends truncated) and becomes an error row; versions without a compiled body (read
forward) go through the dict-row decoder. Rows out = rows in.

Layouts of numbers, strings, bytes and arrays of those go faster still, a column at a time
(:mod:`kafka_meta.spark.columnar_vector`, through :meth:`BatchProgram.decode_array`); the rows that path
cannot vouch for come back here.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pyarrow as pa

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.registry import REGISTRY
from kafka_meta.errors import DecodeError, KafkaMetaError
from kafka_meta.spark.columnar_vector import VectorProgram
from kafka_meta.spark.columns import UTF8, Column, FixedLeaf, Leaf, ListColumn, StructColumn
from kafka_meta.spark.rows import UNKNOWN_ALIAS, dispatched_row_decoder, kafka_uuid, model_row, row_default
from kafka_meta.spark.schema import ERROR_FIELD, VERSION_FIELD, message_row_type
from kafka_meta.wire.codegen import UNKNOWN_KEY, CodeWriter, DecodeEmitter, ValueMode, base_namespace, load_function
from kafka_meta.wire.composite import KArray, KStruct
from kafka_meta.wire.primitives import Fixed, KString

PRESENT = type("Present", (), {"__repr__": lambda self: "PRESENT"})()  # a struct was decoded and appended
ABSENT = type("Absent", (), {"__repr__": lambda self: "ABSENT"})()  # a struct field took no bytes: default


def preorder(column: Column) -> list[Column]:
    out = [column]
    if isinstance(column, StructColumn):
        for child in column.fields.values():
            out += preorder(child)
    elif isinstance(column, ListColumn):
        out += preorder(column.child)
    return out


def leaf_kinds(struct: KStruct, path: tuple[str, ...] = (), out: dict | None = None) -> dict[tuple[str, ...], str]:
    """Which leaves hold UTF-8 bytes or raw fixed-width numbers, from a version's constructs."""
    out = {} if out is None else out
    for m in struct.members:
        here = (*path, m.json)
        if m.kind == "string":
            out[here] = UTF8
        elif isinstance(m.con, KArray):
            element = m.con.element
            if isinstance(element, KString):
                out[(*here, "[]")] = UTF8
            elif isinstance(element, Fixed):
                out[(*here, "[]")] = element.kind
        if m.struct is not None:
            leaf_kinds(m.struct, (*here, "[]") if m.kind == "array" else here, out)
    return out


class ColumnarMode(ValueMode):
    """Value mode whose struct 'values' are appends to the column tree (see the module docstring)."""

    name = "columnar"

    def __init__(self, template: StructColumn) -> None:
        self.index = {id(c): i for i, c in enumerate(preorder(template))}
        self.nodes: dict[int, StructColumn] = {}
        self.bindings: dict[str, str] = {}  # local name -> line that binds it at the start of a batch

    def attach(self, struct: KStruct, node: StructColumn) -> None:
        """Pair a struct construct (one version's) with its column node, recursively."""
        self.nodes[id(struct)] = node
        for m in struct.members:
            if m.struct is None:
                continue
            child = node.fields[m.json]
            self.attach(m.struct, child.child if isinstance(child, ListColumn) else child)

    def bind(self, prefix: str, column: Column, expr: str) -> str:
        name = f"{prefix}{self.index[id(column)]}"
        self.bindings.setdefault(name, f"{name} = cols[{self.index[id(column)]}]{expr}")
        return name

    # ----------------------------------------------------------------- decoding hooks
    def make_struct(self, em: CodeWriter, struct: Any, items: list[tuple[str, str]]) -> str:
        node = self.nodes[id(struct)]
        members = {m.py: m for m in struct.members}
        for key, expr in items:
            member = members.get(key)
            child = node.fields[UNKNOWN_ALIAS if key == UNKNOWN_KEY else member.json]
            if isinstance(child, Leaf):
                em.line(f"{self.bind('_a', child, '.values.append')}({expr})")
            elif isinstance(child, ListColumn):
                v = em.var("c")
                em.line(f"{v} = {expr}")
                em.line(f"if {v} is None: {self.bind('_n', child, '.append_null')}()")
                with em.block("else:"):
                    if isinstance(child.child, FixedLeaf):  # raw big-endian bytes of the whole array
                        em.line(f"{self.bind('_l', child, '.lengths.append')}(len({v}) // {child.child.size})")
                        em.line(f"{self.bind('_x', child.child, '.raw.extend')}({v})")
                    else:
                        em.line(f"{self.bind('_l', child, '.lengths.append')}(len({v}))")
                        if isinstance(child.child, Leaf):
                            em.line(f"{self.bind('_x', child.child, '.values.extend')}({v})")
            else:
                v = em.var("c")
                em.line(f"{v} = {expr}")
                em.line(f"if {v} is None: {self.bind('_n', child, '.append_null')}()")
                default = em.const(row_default(member.default, member)) if member is not None else "None"
                em.line(f"elif {v} is _ABSENT: {self.bind('_d', child, '.append_value')}({default})")
                em.line(f"elif {v} is not _PRESENT: {self.bind('_d', child, '.append_value')}({v})")
        if not node.fields:
            em.line(f"{self.bind('_s', node, '')}.count += 1")
        return "_PRESENT"

    def make_uuid(self, em: CodeWriter, bytes_expr: str) -> str:
        return f"{em.const(kafka_uuid, '_kuuid')}({bytes_expr})"

    def make_string(self, em: CodeWriter, bytes_expr: str) -> str:
        return bytes_expr  # validated as UTF-8 by Arrow, a column at a time

    def make_fixed_array(self, em: CodeWriter, kind: str, fmt: str, size: int, n: str) -> str:
        return f"buf[pos:pos + {n} * {size}]"

    def inner_decoder(self, fmt: Any, layout: int, strict: bool) -> Callable:
        return dispatched_row_decoder(fmt, layout, strict)  # a whole row, appended by make_struct

    def make_unknown(self, em: CodeWriter, struct: Any, tag_expr: str, data_expr: str) -> str:
        pair = self.nodes[id(struct)].fields[UNKNOWN_ALIAS].child
        assert isinstance(pair, StructColumn)
        name = f"_unk{self.index[id(pair)]}"
        if name not in self.bindings:
            tag = self.bind("_a", pair.fields["tag"], ".values.append")
            data = self.bind("_a", pair.fields["data"], ".values.append")
            self.bindings[name] = f"def {name}(t, d): {tag}(t); {data}(d); return _PRESENT"
        return f"{name}({tag_expr}, {data_expr})"

    def fresh_default(self, em: CodeWriter, member: Any) -> str:
        if member.kind == "struct" and isinstance(member.default, dict):
            return "_ABSENT"
        value = row_default(member.default, member)
        if isinstance(value, list):
            return "[]"
        if isinstance(value, str):
            value = value.encode()  # strings travel as UTF-8 bytes in this mode
        return em.literal(value)


class BatchBuilder:
    """The columns of one batch, and what to do with rows that are null or fail."""

    def __init__(self, program: BatchProgram) -> None:
        self.program = program
        self.root = Column.of(program.row_type, program.leaf_kinds)
        assert isinstance(self.root, StructColumn)
        self.columns = preorder(self.root)

    def null_row(self) -> None:
        self.root.append_null()

    def fail(self, done: int, buf: bytes, exc: BaseException) -> None:
        """Undo the partial row ``done`` and append an error row (or raise, in FAILFAST mode)."""
        self.root.truncate(done)
        error = exc if isinstance(exc, KafkaMetaError) else self.program.explain(buf, exc)
        if self.program.failfast:
            raise error
        for name, child in self.root.fields.items():
            child.append_value(str(error)) if name == ERROR_FIELD else child.append_null()

    def slow_row(self, buf: bytes) -> None:
        """A row without a compiled body (a version read forward, a version probe): the typed decoder."""
        program = self.program
        row = model_row(program.fmt, buf, program.version, program.strict)
        row[ERROR_FIELD] = None
        self.root.append_value(row)

    def finish(self) -> pa.Array:
        return self.root.finish(self.program.row_type)


class BatchProgram:
    """The generated batch decoder of one format (all its versions), compiled once per process."""

    def __init__(self, fmt: SpecFormat, failfast: bool, version: int | None, strict: bool) -> None:
        self.fmt = fmt
        self.failfast = failfast
        self.version = version
        self.strict = strict
        self.row_type = message_row_type(fmt.model)
        self.leaf_kinds: dict[tuple[str, ...], str] = {}
        for layout in fmt.versions:
            leaf_kinds(fmt.construct(layout), (), self.leaf_kinds)
        self.function = self._compile()
        # FAILFAST stays row by row: which bad row it reports first must not depend on the path a row took
        vector = VectorProgram(fmt, self.row_type, version, strict) if VectorProgram.applies(fmt, version) else None
        self.vector = vector if vector is not None and vector.layouts and not failfast else None

    def _compile(self) -> Any:
        template = Column.of(self.row_type, self.leaf_kinds)
        assert isinstance(template, StructColumn)
        mode = ColumnarMode(template)
        ns = base_namespace(self.strict)
        ns.update(_PRESENT=PRESENT, _ABSENT=ABSENT)
        framing = CodeWriter(ns)  # the format's own header and trailing-bytes rule, read inline per row
        framing.level = 3
        self.fmt.emit_header(framing, self.version, self.strict)
        header = framing.lines
        framing.lines = []
        self.fmt.emit_trailing_check(framing, self.strict)
        trailing = framing.lines
        em = DecodeEmitter(ns, mode, self.strict)
        em.level = 3
        keyword = "if"
        for layout in self.fmt.versions:
            struct = self.fmt.construct(layout)
            mode.attach(struct, template)
            with em.block(f"{keyword} lv == {layout}:"):
                em.decode(struct, "result")
            keyword = "elif"
        body = em.lines
        version_leaf = mode.bind("_a", template.fields[VERSION_FIELD], ".values.append")
        error_leaf = mode.bind("_a", template.fields[ERROR_FIELD], ".values.append")
        lines = ["def decode_batch(blobs, cols, builder):",
                 *("    " + line for line in mode.bindings.values()),
                 "    i = 0",
                 "    for buf in blobs:",
                 "        if buf is None:",
                 "            builder.null_row(); i += 1",
                 "            continue",
                 "        try:",
                 "            blen = len(buf)",
                 *header,
                 *body,
                 "            else:",
                 "                builder.slow_row(buf); i += 1",
                 "                continue",
                 *trailing,
                 f"            {version_leaf}(wv); {error_leaf}(None)",
                 "        except Exception as exc:",
                 "            builder.fail(i, buf, exc)",
                 "        i += 1",
                 ]
        source = "\n".join(lines) + "\n"
        return load_function(source, ns, "decode_batch", f"columnar batch decoder {self.fmt.name}")

    def explain(self, buf: bytes, exc: BaseException) -> DecodeError:
        try:
            header = self.fmt.header(buf, self.version, self.strict)
        except DecodeError as e:
            return e
        return self.fmt.explain_decode(buf, header, self.strict, exc)

    def decode(self, blobs: list[bytes | None]) -> pa.Array:
        builder = BatchBuilder(self)
        self.function(blobs, builder.columns, builder)
        return builder.finish()

    def decode_array(self, blobs: pa.Array) -> pa.Array:
        """A binary array's rows: flat layouts a column at a time (:mod:`kafka_meta.spark.columnar_vector`),
        the other rows through :meth:`decode`."""
        if self.vector is None:
            return self.decode(blobs.to_pylist())
        return self.vector.decode(blobs, self.decode)


def batch_program(fmt: SpecFormat, failfast: bool, version: int | None, strict: bool) -> BatchProgram:
    return _batch_program(fmt, failfast, version, strict, REGISTRY.generation)


@cache
def _batch_program(fmt: SpecFormat, failfast: bool, version: int | None, strict: bool,
                   generation: int) -> BatchProgram:
    return BatchProgram(fmt, failfast, version, strict)
