"""A table of names written once and referred to by index afterwards (Streams AssignmentInfo v5+ topics).

:class:`Dictionary` is an array of ``{index, name}`` entries. Its value stays the list in wire order (Java
writes it in hash-map order, so only the list reproduces the bytes), and it *binds* two lookups for the
constructs after it: index -> name for reading (a later entry for the same index wins, as in Java's
``HashMap``) and name -> index for writing (the first entry for a name wins). :class:`DictRef` is a name
written as its int32 index; an index missing from the dictionary is a decode error (Java would go on with
a null topic and fail later). Strict reading refuses a dictionary that repeats an index or a name, which
no Kafka writer produces.
"""

from __future__ import annotations

from typing import Any

from kafka_meta.wire.bindings import bind, bound
from kafka_meta.wire.composite import KArray, KStruct, _parse_child
from kafka_meta.wire.errors import Fault
from kafka_meta.wire.primitives import Fixed, KafkaConstruct

READ, WRITE = "by_index", "by_name"


class Dictionary(KArray):
    """``i32 count | entry * count``, each entry a struct holding an int32 ``key`` and a string ``value``."""

    shown = ("element", "binds=")

    def __init__(self, entry: KStruct, key: str, value: str, binds: str) -> None:
        super().__init__(entry, compact=False, nullable=False)
        self.key = next(m for m in entry.members if m.py == key)
        self.value = next(m for m in entry.members if m.py == value)
        self.binds = binds

    # ---------------------------------------------------------------- interpreted
    def _parse_present(self, n: int, start: int, stream: Any, context: Any, path: str) -> list:
        self._check_count(n, stream, start)
        strict = bool(context.get("_strict"))
        entries, by_index, names = [], {}, set()
        for i in range(n):
            at = stream.tell()
            entry = _parse_child(self.element, stream, context, path, f"[{i}]")
            index, name = entry[self.key.py], entry[self.value.py]
            if strict and (index in by_index or name in names):
                what = f"index {index}" if index in by_index else f"name {name!r}"
                raise Fault(f"the dictionary repeats {what} (strict reading)", at).within(f"[{i}]")
            by_index[index] = name
            names.add(name)
            entries.append(entry)
        bind(context, self.binds, {READ: by_index})
        return entries

    def _build_present(self, obj: Any, stream: Any, context: Any, path: str) -> None:
        super()._build_present(obj, stream, context, path)
        by_name: dict[str, int] = {}
        for entry in obj:
            by_name.setdefault(entry[self.value.py], entry[self.key.py])
        bind(context, self.binds, {WRITE: by_name})

    # ---------------------------------------------------------------- generated
    def emit_decode(self, em: Any, target: str) -> None:
        n, item, lookup = em.var("n"), em.var("x"), em.var("dix")
        self.emit_length(em, n)
        self.emit_count_check(em, n)
        em.line(f"{target} = []; {lookup} = {{}}")
        if em.strict:
            names = em.var("dnames")
            em.line(f"{names} = set()")
        with em.block(f"for _ in range({n}):"):
            em.decode(self.element, item)
            k, v = em.var("k"), em.var("v")
            em.line(f"{k} = {em.mode.get(item, self.key)}; {v} = {em.mode.get(item, self.value)}")
            if em.strict:
                em.line(f"if {k} in {lookup} or {v} in {names}: raise _Bad('repeated entry')")
                em.line(f"{names}.add({v})")
            em.line(f"{lookup}[{k}] = {v}; {target}.append({item})")
        em.bind(f"{self.binds}.{READ}", lookup)

    def emit_encode(self, em: Any, expr: str) -> None:
        lst, lookup, item = em.var("l"), em.var("dnx"), em.var("x")
        em.line(f"{lst} = {expr}")
        self.emit_write_length(em, f"len({lst})")
        em.line(f"{lookup} = {{}}")
        with em.block(f"for {item} in {lst}:"):
            em.encode(self.element, item)
            em.line(f"{lookup}.setdefault({em.mode.get(item, self.value)}, {em.mode.get(item, self.key)})")
        em.bind(f"{self.binds}.{WRITE}", lookup)


class DictRef(KafkaConstruct):
    """A name written as its int32 index into the :class:`Dictionary` bound to ``dictionary``."""

    shown = ("dictionary",)

    def __init__(self, dictionary: str) -> None:
        super().__init__()
        self.dictionary = dictionary
        self.reads = (dictionary,)
        self.index = Fixed("int32")  # how the reference travels
        self.min_size = self.index.min_size

    def _parse(self, stream: Any, context: Any, path: str) -> str:
        start = stream.tell()
        index = self.index._parse(stream, context, path)
        name = bound(context, self.dictionary)[READ].get(index)
        if name is None:
            raise Fault(f"index {index} is not in the dictionary", start)
        return name

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        index = bound(context, self.dictionary)[WRITE].get(obj) if isinstance(obj, str) else None
        if index is None:
            raise Fault(f"{obj!r} is not in the dictionary, so it has no index to write")
        self.index._build(index, stream, context, path)
        return obj

    def emit_decode(self, em: Any, target: str) -> None:
        index = em.var("i")
        self.index.emit_decode(em, index)
        em.line(f"{target} = {em.bound(f'{self.dictionary}.{READ}')}.get({index})",
                f"if {target} is None: raise _Bad('index')")

    def emit_encode(self, em: Any, expr: str) -> None:
        index = em.var("i")
        em.line(f"{index} = {em.bound(f'{self.dictionary}.{WRITE}')}.get({expr})",
                f"if {index} is None: raise _Unwritable('not in dictionary')")
        self.index.emit_encode(em, index)
