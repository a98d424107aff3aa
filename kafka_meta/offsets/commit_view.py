"""Offset commits read for counting: the few fields a timeline needs, without building the typed record.

A broker's ``__consumer_offsets`` is almost all OffsetCommit records, and what a timeline or a report needs of
each is its group, topic, partition and offset (and the topic id newer values carry), whether it is a
tombstone and whether its value was read forward. Building the typed :class:`CoordinatorRecord` (two pydantic
messages and the record around them) costs several times what reading the bytes does, so
:func:`read_commit` reads them with the formats' own generated plain readers and keeps the answer in a
:class:`CommitView` with the same attributes the readers of records use (``record_type``, ``record_name``,
``group_id``, ``key.topic``, ``value.offset``...).

It reads only what the typed path would read the same way: the optimistic plain readers refuse anything
they are not sure of (damage, a version newer than known, trailing bytes, a layout other than the first),
and then :func:`read_commit` returns None and the caller reads the record the careful way, which also says
where damage is. The plain and typed readers are generated from the same layouts, and a test holds this
view to :func:`~kafka_meta.offsets.reader.decode_record` for every version.
"""

from __future__ import annotations

import struct
import uuid
from typing import Any

from kafka_meta.offsets.catalog import OFFSETS, catalog

COMMIT_TYPES = (0, 1)  # LegacyOffsetCommit (written before 0.9's group coordinator) and OffsetCommit
_TOPIC_IDS: dict[bytes, uuid.UUID] = {}  # a log names few topics: each id made a UUID once


class CommitKey:
    """An offset commit's key: the group, topic and partition it commits for."""

    __slots__ = ("group", "partition", "topic")

    def __init__(self, group: str, topic: str, partition: int) -> None:
        self.group, self.topic, self.partition = group, topic, partition


class CommitValue:
    """An offset commit's value: the offset, the topic id (all zeros before KIP-848's commits), the version."""

    __slots__ = ("offset", "topic_id", "version")

    def __init__(self, offset: int, topic_id: uuid.UUID, version: int) -> None:
        self.offset, self.topic_id, self.version = offset, topic_id, version


class CommitView:
    """An OffsetCommit record as counted: the attributes of a
    :class:`~kafka_meta.offsets.records.CoordinatorRecord` that readers of commits use."""

    __slots__ = ("key", "record_name", "record_type", "value")

    read_forward = False  # a value of a newer version than known is never read here
    members = None
    classic_protocols = None

    def __init__(self, record_type: int, record_name: str, key: CommitKey, value: CommitValue | None) -> None:
        self.record_type, self.record_name, self.key, self.value = record_type, record_name, key, value

    @property
    def group_id(self) -> str:
        return self.key.group

    @property
    def tombstone(self) -> bool:
        return self.value is None

    @property
    def value_version(self) -> int | None:
        return None if self.value is None else self.value.version


def read_commit(key: bytes, value: bytes | None) -> CommitView | None:
    """The commit in ``key`` and ``value`` (None: a tombstone), or None when this is not an offset commit or
    the plain readers are not sure of it (read it with :func:`~kafka_meta.offsets.reader.decode_record`)."""
    if len(key) < 2 or key[0] != 0:
        return None
    readers = _READERS.get(key[1]) or _readers(key[1])
    if readers is None:
        return None
    name, read_key, read_value, newest = readers
    try:
        fields, _, trailing = read_key(key)
        if trailing:
            return None
        commit_key = CommitKey(fields["group"], fields["topic"], fields["partition"])
        if value is None:
            return CommitView(key[1], name, commit_key, None)
        body, version, trailing = read_value(value)
    except Exception:  # noqa: BLE001 - the optimistic readers refuse by raising: the careful path reads it
        return None
    raw_id = body.get("topic_id")
    if trailing or version > newest or type(raw_id) is not bytes:  # a newer version: read forward, typed
        return None
    topic_id = _TOPIC_IDS.get(raw_id) or _topic_id(raw_id)
    return CommitView(key[1], name, commit_key, CommitValue(body["offset"], topic_id, version))


_READERS: dict[int, tuple[str, Any, Any, int] | None] = {}


def _readers(number: int) -> tuple[str, Any, Any, int] | None:
    """The record type's name, its key's and value's optimistic plain readers and the newest value version
    known (None: not a commit type, or one whose value needs more than its first layout)."""
    rt = catalog(OFFSETS).get(number) if number in COMMIT_TYPES else None
    primary = rt.values.variants[0] if rt is not None else None
    found = None
    if rt is not None and primary is not None and primary.version is None and len(rt.values.variants) == 1:
        found = (rt.name, rt.key._reader(False, None), primary.format._reader(False, None),
                 primary.format.versions.high)
    _READERS[number] = found
    return found


def view_of(record: Any) -> CommitView:
    """A typed offset commit record (a :class:`~kafka_meta.offsets.records.CoordinatorRecord`) as the view of
    it: what a commit waiting for its transaction's marker needs to keep."""
    key, value = record.key, record.value
    view_value = None if value is None else CommitValue(value.offset, getattr(value, "topic_id", None),
                                                        record.value_version)
    return CommitView(record.record_type, record.record_name, CommitKey(key.group, key.topic, key.partition),
                      view_value)


def _topic_id(raw: bytes) -> uuid.UUID:
    if len(_TOPIC_IDS) > 100_000:  # a log naming more topics than that: start remembering again
        _TOPIC_IDS.clear()
    found = _TOPIC_IDS[raw] = uuid.UUID(bytes=raw)
    return found



# The counting lane: what a report's counting needs of a commit, read from its key and value bytes without a
# view object. A log names few keys (a group's partitions, committed again and again), so a key is read once
# (:func:`commit_key`) and its reading looked up after; only the value is read each time (:func:`commit_value`).

OFFSET_COMMIT = 1  # OffsetCommit: LegacyOffsetCommit (0) has two layouts, which the typed reader chooses between
_VALUE_HEAD = struct.Struct(">hq")  # every version: its number, then the offset
_SHORT = struct.Struct(">h")
NO_TOPIC_ID = bytes(16)  # the topic id a value that carries none reads as
CommitKeyFields = tuple[str, str, str, int, str]  # record name, group, topic, partition, "topic-partition"


def commit_key(key: bytes) -> CommitKeyFields | None:
    """An OffsetCommit key's record name, group, topic, partition and ``topic-partition``, read by the key's
    plain reader; None for any other key and for a key the plain reader is not sure of (the typed reader's)."""
    if len(key) < 2 or key[0] != 0 or key[1] != OFFSET_COMMIT:
        return None
    readers = _READERS.get(key[1]) or _readers(key[1])
    if readers is None:
        return None
    try:
        fields, _, trailing = readers[1](key)
    except Exception:  # noqa: BLE001 - the optimistic reader refuses by raising: the careful path reads it
        return None
    if trailing:
        return None
    group, topic, partition = fields["group"], fields["topic"], fields["partition"]
    return readers[0], group, topic, partition, f"{topic}-{partition}"


def commit_value(value: bytes) -> tuple[int, int, bytes] | None:
    """An OffsetCommit value's version, offset and topic id (:data:`NO_TOPIC_ID` where it carries none), read
    straight from its bytes for the layouts brokers write: versions 0 to 4, valid UTF-8 metadata, and at
    version 4 no tagged field but the topic id. None for anything else (damage, a newer version, bytes left
    over, another tagged field, a varint written long), which the plain and typed readers then read or refuse.
    A test holds it to the typed reader, damaged bytes included."""
    end = len(value)
    if end < 20:
        return None
    version, offset = _VALUE_HEAD.unpack_from(value, 0)
    if version == 4:  # flexible: leader epoch, compact metadata, commit time, tagged fields
        n = value[14] - 1  # the metadata's length + 1, as an unsigned varint of one byte
        if n < 0 or value[14] >= 0x80:
            return None
        at = 15 + n + 8
        if at >= end:
            return None
        if value[at] == 0:
            topic_id, at = NO_TOPIC_ID, at + 1
        elif value[at] == 1 and at + 19 == end and value[at + 1] == 0 and value[at + 2] == 16:
            topic_id, at = value[at + 3:end], end
        else:
            return None
        start = 15
    elif 0 <= version <= 3:
        start = 14 if version == 3 else 10  # version 3 has the leader epoch before the metadata
        (n,) = _SHORT.unpack_from(value, start)
        if n < 0:
            return None
        start += 2
        at = start + n + (16 if version == 1 else 8)  # commit time (and version 1's expiry time)
        topic_id = NO_TOPIC_ID
    else:
        return None
    if at != end:
        return None
    if n:
        try:
            value[start:start + n].decode("utf-8")
        except UnicodeDecodeError:
            return None
    return version, offset, topic_id
