"""The inputs fuzzing starts from: real bytes, from the golden corpus and the captures.

Golden directories (``<Name>/v<N>/<case>.bin`` with ``<case>.key.bin`` for records) and JSON Lines golden
files (``type`` or ``kind``, ``hex``, ``keyHex``) give blobs named by a type or a record; capture files
and log segments are found the way every verb finds its inputs: by the input registry
(:mod:`kafka_meta.inputs`), which recognises each file by its content, never its name. A name is resolved
to the type names it stands for: a record name to its key and value types, a golden file's ``kind`` to the
type it holds.
"""

from __future__ import annotations

import gzip
import json
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import kafka_meta

PROJECT = Path(kafka_meta.__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared"
KINDS = {  # golden files of client libraries name what they hold by kind
    "consumer-subscription": "ConsumerProtocolSubscription",
    "consumer-subscription-nonconforming": "ConsumerProtocolSubscription",
    "consumer-assignment": "ConsumerProtocolAssignment",
    "sticky-userdata": "StickyAssignorUserData",
    "sticky-userdata-version-prefixed": "StickyAssignorUserData",
}


@dataclass(frozen=True)
class Blob:
    """Real bytes: ``name`` is a type or record name, ``key`` a record's key, ``value`` its body (None for
    a tombstone), ``version`` the value's version when the corpus says it."""

    name: str
    key: bytes | None
    value: bytes | None
    version: int | None = None


def default_roots() -> list[Path]:
    """The project's golden corpus, and the shared golden vectors and captures when they sit beside it."""
    return [p for p in (PROJECT / "fixtures" / "golden", SHARED / "golden", SHARED / "captures",
                        PROJECT / "fixtures" / "captures", PROJECT / "fixtures" / "log") if p.is_dir()]


def golden_directory_blobs(root: Path) -> Iterator[Blob]:
    for key_or_body in sorted(root.rglob("*.bin")):
        if len(key_or_body.relative_to(root).parts) < 2:
            continue
        name = key_or_body.relative_to(root).parts[0]
        if key_or_body.name.endswith(".key.bin"):
            body = key_or_body.with_name(key_or_body.name[:-len(".key.bin")] + ".bin")
            if not body.exists():  # a tombstone: only the key
                yield Blob(name, key_or_body.read_bytes(), None)
            continue
        key = key_or_body.with_name(key_or_body.name[:-len(".bin")] + ".key.bin")
        folder = key_or_body.parent.name
        version = int(folder[1:]) if folder[:1] == "v" and folder[1:].isdigit() else None
        yield Blob(name, key.read_bytes() if key.exists() else None, key_or_body.read_bytes(), version)


def golden_lines_blobs(path: Path) -> Iterator[Blob]:
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            doc = json.loads(line)
            name = doc.get("type") or KINDS.get(doc.get("kind", ""))
            value = bytes.fromhex(doc["hex"]) if doc.get("hex") is not None else None
            key = bytes.fromhex(doc["keyHex"]) if doc.get("keyHex") else None
            version = doc.get("version") if isinstance(doc.get("version"), int) else None
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # not a golden line: seeds are best effort
        if name:
            yield Blob(name.split("/")[0].replace("MetadataRecordFrame", "MetadataRecord"), key, value, version)


def blobs(roots: Iterable[Path] | None = None) -> list[Blob]:
    found: list[Blob] = []
    for root in default_roots() if roots is None else roots:
        if root.is_dir():
            found += golden_directory_blobs(root)
            for path in sorted(root.rglob("*.jsonl")):
                found += golden_lines_blobs(path)
        elif root.suffix == ".jsonl":
            found += golden_lines_blobs(root)
    return found


def files(kind: str, roots: Iterable[Path] | None = None) -> list[bytes]:
    """Whole files of one input kind (``kafka_meta.inputs.CAPTURE``, ``SEGMENT``) under the roots, recognised
    by the registry as ``analyze`` and ``report`` recognise them; a partition directory gives its segments."""
    from kafka_meta.inputs import classify

    out: list[bytes] = []
    for root in default_roots() if roots is None else roots:
        sources, _ = classify(str(root))  # what is no input of any kind is no seed either
        for source in sources:
            if source.kind != kind:
                continue
            paths = sorted(source.path.glob("*.log")) if source.path.is_dir() else [source.path]
            out += [data for data in (p.read_bytes() for p in paths) if data]
    return out


def type_names(name: str, known: set[str]) -> list[str]:
    """The decodable types a blob's name stands for: itself, or a record's key and value types."""
    if name in known:
        return [name]
    return [t for t in sorted(known) if t.split("@")[0] in (f"{name}Key", f"{name}Value")]


def capture_parts(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    """(header, packet record) for each packet of a sound capture, the header being what a reader needs
    before that record: pcap's file header, or pcapng's section header and interface blocks so far."""
    from kafka_meta.capture.pcap import FILE_HEADER, MAGICS
    from kafka_meta.capture.pcapng import BYTE_ORDER_MAGIC, IDB, SECTION_HEADER

    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    magic = int.from_bytes(data[:4], "little")
    if magic in MAGICS:
        order, pos = MAGICS[magic][0], FILE_HEADER
        while pos + 16 <= len(data):
            end = pos + 16 + struct.unpack_from(order + "I", data, pos + 8)[0]
            yield data[:FILE_HEADER], data[pos:end]
            pos = end
        return
    header, pos, order = b"", 0, "<"
    while pos + 12 <= len(data):
        if int.from_bytes(data[pos:pos + 4], "little") == SECTION_HEADER:
            order = "<" if int.from_bytes(data[pos + 8:pos + 12], "little") == BYTE_ORDER_MAGIC else ">"
            header = b""
        block_type, length = struct.unpack_from(order + "II", data, pos)
        if length < 12:
            return
        block = data[pos:pos + length]
        if block_type in (SECTION_HEADER, IDB):
            header += block
        else:
            yield header, block
        pos += length


def capture_windows(data: bytes, size: int) -> list[bytes]:
    """A sound capture cut into captures of at most ``size`` bytes: each its headers and a run of
    consecutive packets, the runs covering the whole file in order. A whole-file reader's time grows with
    the file, so fuzzing inputs are bounded; windows rather than the first ``size`` bytes give every part
    of a conversation (joins, syncs, heartbeats) a seed."""
    windows: list[bytes] = []
    header, packets = b"", b""
    for head, packet in capture_parts(data):
        if packets and (head != header or len(header) + len(packets) + len(packet) > size):
            windows.append(header + packets)
            packets = b""
        header, packets = head, packets + packet
    if packets:
        windows.append(header + packets)
    return [w[:size] for w in windows]
