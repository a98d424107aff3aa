"""The exchange rows the timeline's builders read: captured request/response pairs (the capture reader's
``Exchange.to_dict()`` contract) in a shape that cannot trip them.

Rows may come from anywhere (a capture, Spark, a JSON file someone edited), so every field the builders read
is brought to the type the contract gives it (a wrong type becomes None, a list keeps its well-formed items),
and a row without a usable time is set aside with the reason. A row that passes is in the contract's shape,
:class:`~kafka_meta.protocol.shapes.ExchangeRow`, with every key present (:func:`conform`), and the builders
are typed with it: they read its keys by name, and a key the contract does not declare is a type error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from kafka_meta.analysis.timeline import LAST_SECOND, Evidence
from kafka_meta.protocol.shapes import EXCHANGE_KEYS, ExchangeRow, ExchangeSource


def as_dict(exchange: Any) -> dict[str, Any]:
    """An exchange as its contract dict, whether given as a dict, an ``Exchange`` or a pydantic model."""
    if isinstance(exchange, Mapping):
        return dict(exchange)
    for method in ("to_dict", "model_dump"):
        if hasattr(exchange, method):
            return dict(getattr(exchange, method)())
    raise TypeError(f"not an exchange: {type(exchange).__name__}")


NOWHERE: ExchangeSource = {"file": None, "frame": None}  # the source of an exchange that names none


def evidence(ex: ExchangeRow) -> Evidence:
    source = ex["source"] or NOWHERE
    return Evidence(file=source.get("file"), frame=source.get("frame"), ts=ex["ts"])


def shape_error(ex: Mapping[str, Any]) -> str | None:
    """What makes an exchange unusable here (rows from JSON files can hold anything), or None."""
    if not isinstance(ex.get("ts"), int | float) or isinstance(ex.get("ts"), bool):
        return "no numeric ts"
    for name in ("ts", "responseTs"):
        if isinstance(ex.get(name), int | float) and not 0 <= ex[name] < LAST_SECOND:
            return f"{name} {ex[name]} is not a time"
    for name in ("request", "response", "source"):
        if ex.get(name) is not None and not isinstance(ex[name], Mapping):
            return f"{name} is not an object"
    if ex.get("responseTs") is not None and not isinstance(ex["responseTs"], int | float):
        return "responseTs is not a number"
    group = ex.get("groupId")
    return None if group is None or isinstance(group, str) else "groupId is not a string"


INT_FIELDS = ("generationId", "errorCode", "memberEpoch", "generationIdOrMemberEpoch", "stream", "apiKey",
              "apiVersion", "correlationId", "frame")
STR_FIELDS = ("memberId", "leader", "protocolName", "protocolType", "groupId", "clientId", "client", "broker",
              "apiName", "name", "file", "reason", "groupInstanceId")
LIST_FIELDS = ("protocols", "members", "assignments", "topics", "partitions", "topicPartitions",
               "assignedPartitions", "ownedPartitions", "subscribedTopicNames")


def clean(value: Any, depth: int = 0) -> Any:
    """The exchange with every field this module reads in the type the contract gives it: a wrong type
    becomes None (a list keeps only its well-formed items), so nothing later trips over it. (Plain ``dict``
    checks, not ``Mapping``: this runs over every body, and JSON and the readers give dicts.)"""
    if depth > 12 or not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, v in value.items():
        if key in INT_FIELDS:
            v = v if isinstance(v, int) and not isinstance(v, bool) else None
        elif key in STR_FIELDS:
            v = v if isinstance(v, str) else None
        elif key in ("ts", "responseTs"):
            v = v if isinstance(v, int | float) and not isinstance(v, bool) else None
        elif key in LIST_FIELDS:
            v = _clean_list(v, depth) if isinstance(v, list) else None
        elif isinstance(v, dict):
            v = clean(v, depth + 1)
        out[key] = v
    return out


def conform(ex: dict[str, Any]) -> ExchangeRow:
    """A row that passed :func:`shape_error` (and, for the rows the builders read, :func:`clean`) with every key
    of the contract present, None where the row had none (a JSON row may leave keys out): from here on the
    row is an :class:`ExchangeRow` and is read as one. ``ex`` is the caller's own copy (:func:`as_dict`)."""
    for key in EXCHANGE_KEYS:
        ex.setdefault(key, None)
    return cast(ExchangeRow, ex)


def _clean_list(items: list[Any], depth: int) -> list[Any]:
    """A list of objects (cleaned), of integers (partition numbers) or of strings (topic names): whichever
    the list holds; items of another kind are dropped."""
    objects = [clean(i, depth + 1) for i in items if isinstance(i, dict)]
    numbers = [i for i in items if isinstance(i, int) and not isinstance(i, bool)]
    if objects and not numbers:
        return objects
    if numbers:
        return numbers
    return [i for i in items if isinstance(i, str)]


def group_of(ex: ExchangeRow) -> str | None:
    group = ex["groupId"] or (ex["request"] or {}).get("groupId")
    return group if isinstance(group, str) and group else None


def frame(ex: ExchangeRow) -> int:
    frame = (ex["source"] or NOWHERE).get("frame")
    return frame if isinstance(frame, int) else 0


def where(ex: Mapping[str, Any], n: int) -> str:
    """An exchange's place, for messages about it (it may be a row that failed :func:`shape_error`)."""
    found = ex.get("source")
    source: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    if source.get("file") is not None:
        return f"{source['file']} packet {source.get('frame')}"
    return f"exchange {n}"


def capture_ends(rows: Iterable[ExchangeRow]) -> dict[str | None, float]:
    """Per capture file, the last moment it recorded anything (any api: fetches and heartbeats keep coming
    while clients run), which tells a round the capture cut off from one that never finished."""
    ends: dict[str | None, float] = {}
    for ex in rows:
        source = ex["source"]
        file = source.get("file") if isinstance(source, Mapping) else None
        if not isinstance(file, str | None):
            continue
        last = max(t for t in (ex["ts"], ex["responseTs"]) if isinstance(t, int | float))
        ends[file] = max(ends.get(file, last), last)
    return ends
