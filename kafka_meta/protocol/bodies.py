"""Request and response bodies: the bulk decoder, then Kafka's field names.

Bodies are decoded with :func:`kafka_meta.decode_plain` (plain dicts with snake_case keys, every field of
every version) and then renamed to Kafka's JSON names keeping only the fields the version carries, so an
exchange shows what was on the wire under the names Kafka's documentation uses. The renaming plan is
computed once per (type, version) from the spec, so the per-body cost is one dict build per struct.

Traffic repeats itself: heartbeats, metadata answers, offset fetches and most group bodies of a connection
are byte for byte those of the previous round. So decoded bodies are kept in a bounded LRU keyed by (type,
version, bytes), small bodies only (big ones rarely repeat and would make the cache's memory follow the
input), and each caller gets its own copy of the tree (see :mod:`kafka_meta.protocol.tree_cache`).
"""

from __future__ import annotations

import copy
import threading
import uuid
from typing import Any

import kafka_meta as km
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import ForwardPolicy, Unframed
from kafka_meta.errors import UnknownTypeError
from kafka_meta.protocol.tree_cache import TreeCache
from kafka_meta.spec.model import FieldSpec, MessageSpec

UNKNOWN_TAGGED = "_unknown_tagged_fields"
UNKNOWN_TAGGED_JSON = "_unknownTaggedFields"

# how a value is converted besides its key
PLAIN, STRUCT, STRUCT_ARRAY, UUID = range(4)


class WireUuid(uuid.UUID):
    """A uuid read from the wire. A plain :class:`uuid.UUID` to every reader; only JSON encoders that write
    uuids themselves (orjson, in their 8-4-4-4-12 form) see a type they do not know, and so ask the face's
    ``default`` for it, which writes Kafka's form (URL-safe base64)."""

    __slots__ = ()


def wire_uuids(value: Any) -> Any:
    """``value`` with every plain uuid in its dicts and lists made a :class:`WireUuid` (in place)."""
    if type(value) is dict:
        for k, v in value.items():
            if isinstance(v, (dict, list, uuid.UUID)):
                value[k] = wire_uuids(v)
    elif type(value) is list:
        for i, v in enumerate(value):
            if isinstance(v, (dict, list, uuid.UUID)):
                value[i] = wire_uuids(v)
    elif type(value) is uuid.UUID:
        return WireUuid(int=value.int)
    return value


CACHED_BODIES = 4096  # distinct bodies kept decoded: a capture's repeating heartbeats, metadata, fetches...
CACHED_BODY_BYTES = 4096  # bodies bigger than this are decoded every time (memory bounded by count x size)

Plan = list[tuple[str, str, int, Any]]  # (snake name, Kafka name, kind, nested plan)


def _kind(f: FieldSpec) -> int:
    if f.type.is_struct_array:
        return STRUCT_ARRAY
    if f.type.is_struct:
        return STRUCT
    return UUID if f.type.kind == "uuid" else PLAIN


def build_plan(fields: list[FieldSpec], version: int) -> Plan:
    """The fields present at ``version``, in wire order, each with its nested plan."""
    plan: Plan = []
    for f in fields:
        if not f.present(version):
            continue
        nested = build_plan(f.struct.fields, version) if f.struct is not None else None
        plan.append((f.py_name, f.json_name, _kind(f), nested))
    return plan


def rename(plain: dict[str, Any], plan: Plan) -> dict[str, Any]:
    """A plain (snake_case) struct as a dict keyed by Kafka's names, holding only the planned fields."""
    out: dict[str, Any] = {}
    for snake, name, kind, nested in plan:
        value = plain[snake]
        if value is not None:
            if kind == STRUCT_ARRAY:
                value = [rename(item, nested) for item in value]
            elif kind == STRUCT:
                value = rename(value, nested)
            elif kind == UUID:
                value = WireUuid(bytes=value)
        out[name] = value
    unknown = plain.get(UNKNOWN_TAGGED)
    if unknown:
        out[UNKNOWN_TAGGED_JSON] = unknown
    return out


NULLABLE_KINDS = ("string", "bytes", "array")


def lenient_spec(spec: MessageSpec) -> MessageSpec:
    """A copy of ``spec`` in which every string, bytes and array field may be null at every version.

    Some implementations write null where Kafka does not allow it (librdkafka's mock broker answers a
    failed SyncGroup with a null assignment); the Java client would refuse such a body, but its other
    fields (the error code) are what a reader of traffic wants. Nullability changes no other layout.
    """
    lenient = copy.deepcopy(spec)
    seen: set[int] = set()

    def widen(fields: list[FieldSpec]) -> None:
        for f in fields:
            if f.type.kind in NULLABLE_KINDS:
                f.nullable_versions = f.versions
            if f.struct is not None and id(f.struct) not in seen:
                seen.add(id(f.struct))
                widen(f.struct.fields)

    widen(lenient.fields)
    return lenient


class BodyReader:
    """Decodes the bodies of the types in ``schemas/protocol`` (and any spec registered under the same name)."""

    def __init__(self) -> None:
        self._plans: dict[tuple[str, int], Plan] = {}
        self._lenient: dict[str, SpecFormat] = {}
        self._known: dict[str, bool] = {}
        self._lock = threading.Lock()
        self.cache = TreeCache(CACHED_BODIES)

    def clear_cache(self) -> None:
        """Forget the decoded bodies (benchmarks start each pass cold)."""
        self.cache.clear()

    def has_spec(self, type_name: str) -> bool:
        """Cached: a miss costs the registry a did-you-mean search, and most traffic (Fetch, Metadata...)
        has no spec here."""
        known = self._known.get(type_name)
        if known is None:
            try:
                km.get_format(type_name)
                known = True
            except UnknownTypeError:
                known = False
            self._known[type_name] = known
        return known

    def plan(self, type_name: str, version: int) -> Plan:
        key = (type_name, version)
        plan = self._plans.get(key)
        if plan is None:
            spec = km.get_format(type_name).spec  # type: ignore[attr-defined]
            plan = build_plan(spec.fields, version)
            with self._lock:
                self._plans[key] = plan
        return plan

    def decode(self, type_name: str, body: bytes, version: int, *, shared: bool = False) -> dict[str, Any]:
        """The body as a dict of Kafka's names, the caller's own copy; with ``shared``, possibly the cache's
        own tree, which the caller must not change. Raises :class:`~kafka_meta.errors.DecodeError`
        (failures are not cached: bad bytes are rare)."""
        body = bytes(body)
        if len(body) > CACHED_BODY_BYTES:
            return self._decode_uncached(type_name, body, version)
        key = (type_name, version, body)
        tree = self.cache.get_shared(key) if shared else self.cache.get(key)
        if tree is None:
            tree = self.cache.put(key, self._decode_uncached(type_name, body, version))
        return tree

    def _decode_uncached(self, type_name: str, body: bytes, version: int) -> dict[str, Any]:
        plain, wire_version = km.decode_plain(type_name, body, version=version)
        return rename(plain, self.plan(type_name, wire_version))

    def decode_lenient(self, type_name: str, body: bytes, version: int) -> dict[str, Any]:
        """Like :meth:`decode`, accepting null in every string, bytes and array field (see
        :func:`lenient_spec`); for bodies the strict reading refused."""
        fmt = self._lenient.get(type_name)
        if fmt is None:
            spec = lenient_spec(km.get_format(type_name).spec)  # type: ignore[attr-defined]
            fmt = SpecFormat(spec, Unframed(ForwardPolicy.REFUSE), name=type_name, family="protocol")
            with self._lock:
                self._lenient[type_name] = fmt
        plain, wire_version = fmt.decode_plain(body, version=version)
        return rename(plain, self.plan(type_name, wire_version))


BODIES = BodyReader()
