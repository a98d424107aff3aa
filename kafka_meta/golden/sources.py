"""Vectors from other implementations (the shared golden set: JSON Lines of hex bytes with notes; and files of
the same shape, such as the vectors taken from recordings of Kafka itself), as candidate golden cases.

Each line names its type (Java vectors: ``type``; other clients: ``kind``). A ``keyHex`` makes it a key +
value record, whose value may be null (a tombstone).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_meta.golden.subjects import CaseBytes

# other clients' kinds, by the type that reads them; kinds not listed (e.g. the non-conforming version stamps
# that Kafka itself cannot read) are no golden cases
CLIENT_KINDS = {
    "consumer-subscription": "ConsumerProtocolSubscription",
    "consumer-assignment": "ConsumerProtocolAssignment",
    "sticky-userdata": "StickyAssignorUserData",
    "sticky-userdata-version-prefixed": "StickyAssignorUserData",  # kafka-python 3: an int16 version first
}
# vectors whose type is a framing around a registered type: the prefix before "/" names the framed type
FRAMED_TYPES = {"MetadataRecordFrame": "MetadataRecord"}
SOURCE_NAMES = {"java": "Apache Kafka (Java), trunk 2024-10", "java-2026": "Apache Kafka (Java), trunk 2026-08"}


@dataclass
class Vector:
    """One line of a vector file, as a candidate case."""

    subject: str
    version: int | None
    name: str
    blob: CaseBytes
    metadata: dict[str, Any] = field(default_factory=dict)


def describe(note: str) -> str:
    """The part of a vector's note that tells cases apart: after ``Case:`` if present, else its first sentence."""
    if "Case:" in note:
        return note.rsplit("Case:", 1)[1]
    return note.split(". ", 1)[0]


def slug(text: str, limit: int = 48) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return words[:limit].rstrip("-") or "case"


def _type_of(case: dict[str, Any]) -> str | None:
    name = case.get("type")
    if isinstance(name, str):
        head, _, _ = name.partition("/")
        return FRAMED_TYPES.get(head, name) if "/" in name else name
    return CLIENT_KINDS.get(case.get("kind", ""))


def _blob(case: dict[str, Any]) -> CaseBytes | None:
    body = bytes.fromhex(case["hex"]) if case.get("hex") else None
    key = bytes.fromhex(case["keyHex"]) if case.get("keyHex") else None
    if body is None and key is None:
        return None  # e.g. absent user data: nothing to decode
    return CaseBytes(body, key)


def read_vectors(path: Path, origin: str, prefix: str | None = None) -> Iterator[Vector]:
    """The vectors of one file; ``origin`` (e.g. ``java``) names the writer of lines that do not name theirs
    (``source``), and starts every case name, unless a line names its writer or ``prefix`` is given."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        case = json.loads(line)
        subject, blob = _type_of(case), _blob(case)
        if subject is None or blob is None:
            continue
        source = case.get("source") or SOURCE_NAMES.get(origin, origin)
        start = prefix or slug(source.split()[0] if case.get("source") else origin, 16)
        name = f"{start}-{number:03d}-{slug(describe(case.get('note') or ''))}"
        metadata = {"source": f"{source} ({path.parent.name}/{path.name} line {number})", "note": case.get("note")}
        if case.get("decodeOnly"):
            metadata["decodeOnly"] = True
        version = case.get("version") if isinstance(case.get("version"), int) else None
        if "/" in str(case.get("type")):  # a framed record: the frame's version is the framed type's version
            version = case.get("frameVersion") if isinstance(case.get("frameVersion"), int) else None
        yield Vector(subject, version, name, blob, metadata)


def shared_vectors(root: Path) -> Iterator[Vector]:
    """Every vector under a shared golden directory (``java/``, ``java-2026/``, ``clients/`` ...)."""
    for path in sorted(root.glob("*/*.jsonl")):
        yield from read_vectors(path, path.parent.name)


def vector_file(path: Path) -> Iterator[Vector]:
    """The vectors of one more file of the same shape outside the shared set (``fixtures/lab/vectors.jsonl``:
    bytes taken from recordings of Kafka's broker and clients); its cases are named after its directory
    (``lab-012-...``), each line naming its writer (``source``)."""
    yield from read_vectors(path, path.parent.name, prefix=slug(path.parent.name, 16))
