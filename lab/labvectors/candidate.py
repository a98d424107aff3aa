"""One vector as it will be written, and what tells it apart from the others of its type and version.

A recording holds the same kind of bytes hundreds of times (a heartbeat a second, a commit per poll); the
golden corpus wants each kind once or a few times. A candidate's ``shape`` says which kind it is: the
field paths its value fills (a field at its zero, -1, empty or null value fills nothing), the error codes
it carries, and the few values that make a different case of the same fields (which assignor, which
feature). Candidates with the same type, version, writer and shape are the same case for the corpus.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass, field
from typing import Any

# values that make a different case of the same fields, per type (paths as ``shape`` writes them): which
# feature a level is for, which assignor a group or member uses, which coordinator is looked for, whether a
# transaction ends in a commit, which versions a Streams member says it supports (version probing)
NAMING_FIELDS: dict[str, frozenset[str]] = {
    "FeatureLevelRecord": frozenset({"name"}),
    "GroupMetadata": frozenset({"protocolType", "protocol"}),
    "JoinGroupRequest": frozenset({"protocolType", "protocols[].name"}),
    "JoinGroupResponse": frozenset({"protocolType", "protocolName"}),
    "SyncGroupRequest": frozenset({"protocolType", "protocolName"}),
    "SyncGroupResponse": frozenset({"protocolType", "protocolName"}),
    "DescribeGroupsResponse": frozenset({"groups[].protocolType", "groups[].protocolData"}),
    "FindCoordinatorRequest": frozenset({"keyType"}),
    "EndTxnRequest": frozenset({"committed"}),
    "SubscriptionInfo": frozenset({"version", "latestSupportedVersion"}),
    "AssignmentInfo": frozenset({"version", "commonlySupportedVersion"}),
}


class Unreadable(Exception):
    """Bytes of a recording that kafka_meta does not read: the recording and the project disagree, and no
    vector file is written until they agree."""


@dataclass
class Candidate:
    """A vector of the lab's file: the shared golden set's keys (``family``, ``type``, ``version``, ``hex``,
    ``keyVersion``/``keyHex`` for a record, ``apiKey``/``frameVersion`` for a framed metadata record, ``note``,
    ``source``), plus its shape and its place in the recording (for the note)."""

    family: str
    type: str
    version: int | None
    data: bytes | None
    note: str
    source: str
    key: bytes | None = None
    key_version: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    shape: tuple[str, ...] = ()

    @property
    def identity(self) -> tuple[Any, ...]:
        """What makes two candidates the same case of the corpus."""
        return self.type, self.version, self.key_version, self.source.split(" (")[0], self.shape

    @property
    def size(self) -> int:
        return len(self.data or b"") + len(self.key or b"")

    def line(self) -> dict[str, Any]:
        out: dict[str, Any] = {"family": self.family, "type": self.type, "version": self.version,
                               "hex": None if self.data is None else self.data.hex()}
        if self.key is not None:
            out.update(keyVersion=self.key_version, keyHex=self.key.hex())
        out.update(self.extra)
        out.update(note=self.note, source=self.source)
        return out


def shape(type_name: str, value: Any) -> tuple[str, ...]:
    """The field paths ``value`` (a ``type_name`` decoded as JSON-like data) fills, sorted; error codes and
    the type's naming fields with their values."""
    found: set[str] = set()
    _walk(value, "", NAMING_FIELDS.get(type_name, frozenset()), found)
    return tuple(sorted(found))


def _walk(value: Any, path: str, naming: frozenset[str], found: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _walk(item, f"{path}.{key}" if path else str(key), naming, found)
        return
    if isinstance(value, list | tuple):
        for item in value:
            _walk(item, f"{path}[]", naming, found)
        return
    if path in naming or path.rsplit(".", 1)[-1].lower().endswith("errorcode"):
        found.add(f"{path}={_text(value)}")
    elif not _empty(value):
        found.add(path)


def _empty(value: Any) -> bool:
    """Zero, -1 (Kafka's usual "none"), empty and null values fill nothing."""
    if value is None:
        return True
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value in (0, -1)
    if isinstance(value, str | bytes | bytearray):
        return len(value) == 0
    return False


def _text(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, uuid.UUID):
        return str(value)
    return str(value)


def writer_of(software: tuple[str, str] | None, client_id: str | None) -> str:
    """Who wrote a request, from what its connection's ApiVersions request said (KIP-511: the client's
    software name and version) and its client id (a Streams application's threads are named in it)."""
    if software is None:
        return "an unidentified client"
    name, version = software
    if client_id and "-StreamThread-" in client_id:
        return f"Kafka Streams {version}"
    if name == "apache-kafka-java":
        return f"Apache Kafka {version} Java client"
    return f"{name} {version}"
