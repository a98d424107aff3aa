"""Writing golden cases: from bytes (decoded to make the ``.json``) or from JSON (encoded to make the
``.bin``). A case is written only when it passes :func:`~kafka_meta.golden.verify.verify_case`, so the
corpus never holds a case that fails on arrival."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kafka_meta.errors import KafkaMetaError
from kafka_meta.golden.layout import TOMBSTONE_DIR, UNVERSIONED_DIR, CaseRef, check_case_name
from kafka_meta.golden.subjects import CaseBytes, RecordSubject, Subject
from kafka_meta.golden.verify import METADATA_KEYS, verify_case


class GoldenError(KafkaMetaError):
    """A case that cannot be written (it does not decode, encode or round-trip)."""


def _render(value: Any, indent: str) -> str:
    """JSON with one member per line, except that lists of scalars stay on one line (partition lists)."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_render(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(f"{inner}{_render(v, inner)}" for v in value) + f"\n{indent}]"
    return json.dumps(value, ensure_ascii=False)


def dump_document(doc: dict[str, Any]) -> str:
    return _render(doc, "") + "\n"


def _no_version_dir(subject: Subject) -> str:
    return TOMBSTONE_DIR if subject.is_record else UNVERSIONED_DIR


def _write(case: CaseRef, doc: dict[str, Any], blob: CaseBytes) -> None:
    case.directory.mkdir(parents=True, exist_ok=True)
    for path in case.files():
        path.unlink()
    case.json_path.write_text(dump_document(doc), encoding="utf-8")
    if blob.body is not None:
        case.body_path.write_bytes(blob.body)
    if blob.key is not None:
        case.key_path.write_bytes(blob.key)


def _finish(case: CaseRef, subject: Subject, doc: dict[str, Any], blob: CaseBytes,
            metadata: dict[str, Any]) -> CaseRef:
    doc = {**doc, **{k: v for k, v in metadata.items() if k in METADATA_KEYS and v is not None}}
    _write(case, doc, blob)
    result = verify_case(case, subject)
    if not result.ok:
        for path in case.files():
            path.unlink()
        raise GoldenError(f"{case.id} would not pass verification:\n" + "\n".join(result.problems))
    return case


def add_from_bytes(root: Path, subject: Subject, name: str, blob: CaseBytes, version: int | None = None,
                   **metadata: Any) -> CaseRef:
    """A case from real bytes; the ``.json`` is their decoding. ``version`` is needed only for types that
    do not carry it on the wire, and is otherwise checked against the bytes."""
    doc = subject.read(blob, version)
    if version is not None and doc["version"] != version:
        raise GoldenError(f"the bytes carry version {doc['version']}, not {version}")
    if not metadata.get("decodeOnly") and subject.write(doc) != blob:
        raise GoldenError("the bytes decode, but encoding the result does not give them back (not in the form "
                          "Kafka writes); add the case as decode-only if that is intended")
    case = CaseRef(root, subject.name, doc["version"], check_case_name(name), _no_version_dir(subject))
    return _finish(case, subject, doc, blob, metadata)


def document_from_json(subject: Subject, payload: Any, version: int | None) -> dict[str, Any]:
    """A full case document from what a user hands over: a whole document, or just the message's fields
    (for records: ``{"key": ..., "value": ...}``)."""
    if not isinstance(payload, dict):
        raise GoldenError("the JSON must be an object")
    doc = dict(payload)
    if subject.is_record:
        if "key" not in doc:
            raise GoldenError(f"a {subject.name} case needs a 'key' object (and a 'value', null for a tombstone)")
        doc.setdefault("value", None)
        if doc.get("keyVersion") is None and isinstance(subject, RecordSubject):
            doc["keyVersion"] = subject.key_fmt.versions.high  # type: ignore[attr-defined]
    elif "data" not in doc:
        doc = {"data": doc}
    doc["type"] = subject.name
    if version is not None:
        if doc.get("version") not in (None, version):
            raise GoldenError(f"the JSON says version {doc['version']}, not {version}")
        doc["version"] = version
    if doc.get("version") is None and not (subject.is_record and doc.get("value") is None):
        raise GoldenError("say which version to write (--version)")
    return doc


def add_from_json(root: Path, subject: Subject, name: str, payload: Any, version: int | None = None,
                  **metadata: Any) -> CaseRef:
    """A case from JSON; the ``.bin`` is its encoding, and the ``.json`` is what those bytes decode to
    (so defaults left out of the input are written out)."""
    doc = document_from_json(subject, payload, version)
    blob = subject.write(doc)
    decoded = subject.read(blob, doc.get("version"))
    case = CaseRef(root, subject.name, decoded["version"], check_case_name(name), _no_version_dir(subject))
    return _finish(case, subject, decoded, blob, metadata)
