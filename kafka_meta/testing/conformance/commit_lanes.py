"""The offset commits' fast lanes held to the typed reader on every case the harness draws.

``kafka-meta report`` reads most of ``__consumer_offsets`` through two lanes that skip the typed record: the
view of the plain readers (:func:`~kafka_meta.offsets.commit_view.read_commit`) and the counting lane over the
bytes (:func:`~kafka_meta.offsets.commit_view.commit_key`, :func:`~kafka_meta.offsets.commit_view.commit_value`).
Each may decline a record (the typed reader then reads it), never read it otherwise: the same group, topic,
partition, offset, topic id and value version, and nothing read where the typed reader refuses. The harness
compares the typed reader with Kafka's serde; this compares the lanes with the typed reader on the same bytes,
intact and damaged, so a lane gone wrong is a disagreement the harness counts, not a report quietly off.
"""

from __future__ import annotations

import uuid
from typing import Any

from kafka_meta.offsets.commit_view import NO_TOPIC_ID, commit_key, commit_value, read_commit, view_of


def _typed(record: Any) -> tuple[Any, ...] | None:
    """What the lanes read of a typed commit record (None: not an offset commit)."""
    if record is None or getattr(record, "record_type", None) not in (0, 1):
        return None
    view = view_of(record)
    value = view.value
    return (view.key.group, view.key.topic, view.key.partition,
            None if value is None else (value.offset, value.topic_id, value.version))


def disagreement(key: bytes, value: bytes | None, record: Any) -> str | None:
    """How a lane reads ``key`` and ``value`` otherwise than the typed reader did (``record``; None when it
    refused them), or None when every lane agrees or declines."""
    typed = _typed(record)
    view = read_commit(key, value)
    if view is not None:
        lane = (view.key.group, view.key.topic, view.key.partition,
                None if view.value is None else (view.value.offset, view.value.topic_id, view.value.version))
        if lane != typed:
            return f"the commit view reads {lane!r} where the typed reader reads {typed!r}"
    fields = commit_key(key)
    if fields is None:
        return None
    read = commit_value(value) if value is not None else None
    if value is not None and read is None:
        return None  # the lane takes a commit only when it reads both: this one goes the typed way
    if typed is None or fields[1:4] != typed[:3]:
        return f"the counting lane reads the key as {fields[1:4]!r} where the typed reader reads {typed!r}"
    if read is None:
        return None
    version, offset, raw = read
    topic_id = None if raw == NO_TOPIC_ID else uuid.UUID(bytes=raw)
    want = typed[3]
    if want is None or (offset, version) != (want[0], want[2]) or (topic_id is not None and topic_id != want[1]):
        return (f"the counting lane reads the value as {(offset, topic_id, version)!r} where the typed reader "
                f"reads {want!r}")
    return None
