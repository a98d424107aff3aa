"""Checking golden cases: the ``.bin`` decodes to the ``.json``, and the ``.json`` encodes to the ``.bin``.

Every problem is reported (both directions, every differing field), never just the first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_meta.codec.registry import Registry
from kafka_meta.errors import KafkaMetaError
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.golden.diff import bytes_diff, json_diff
from kafka_meta.golden.layout import CaseRef, find_cases
from kafka_meta.golden.subjects import CaseBytes, Subject, subject_for, subjects

# keys of a case document that describe the case rather than its content
METADATA_KEYS = frozenset({"source", "note", "decodeOnly", "generatedBy"})


@dataclass
class CaseResult:
    case: CaseRef
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def report(self) -> str:
        lines = [f"{self.case.id}: {'ok' if self.ok else 'FAILED'}"]
        lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)


@dataclass
class VerifyReport:
    results: list[CaseResult]
    layout_problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.layout_problems and all(r.ok for r in self.results)

    @property
    def failed(self) -> list[CaseResult]:
        return [r for r in self.results if not r.ok]


def content(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in METADATA_KEYS}


def load_document(case: CaseRef) -> dict[str, Any]:
    doc = json.loads(case.json_path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict):
        raise ValueError("the .json must hold an object")
    return doc


def read_bytes(case: CaseRef) -> CaseBytes:
    body = case.body_path.read_bytes() if case.body_path.exists() else None
    key = case.key_path.read_bytes() if case.key_path.exists() else None
    return CaseBytes(body, key)


def _check_files(case: CaseRef, subject: Subject, blob: CaseBytes) -> list[str]:
    problems = []
    if subject.is_record and blob.key is None:
        problems.append(f"{case.key_path.name} is missing (a {subject.name} case is a key and a value)")
    if not subject.is_record and blob.key is not None:
        problems.append(f"{case.key_path.name}: {subject.name} is not a key + value record")
    if subject.is_record and case.version is None and blob.body is not None:
        problems.append(f"{case.body_path.name}: a tombstone case has no value bytes")
    if (case.version is not None or not subject.is_record) and blob.body is None:
        problems.append(f"{case.body_path.name} is missing")
    return problems


def verify_case(case: CaseRef, subject: Subject | None = None, registry: Registry = REGISTRY) -> CaseResult:
    result = CaseResult(case)
    problems = result.problems
    try:
        doc = load_document(case)
    except (OSError, ValueError) as e:
        problems.append(f"{case.json_path.name} is not readable JSON: {e}")
        return result
    if doc.get("type", case.subject) != case.subject:
        problems.append(f"the .json says type {doc.get('type')!r}, the directory says {case.subject}")
    if doc.get("version") != case.version:
        problems.append(f"the .json says version {doc.get('version')!r}, the directory says {case.version}")
    try:
        subject = subject or subject_for(case.subject, registry)
    except KafkaMetaError as e:
        problems.append(str(e))
        return result
    blob = read_bytes(case)
    file_problems = _check_files(case, subject, blob)
    if file_problems:
        problems += file_problems
        return result
    expected = content(doc)

    decoded: dict[str, Any] | None = None
    try:
        decoded = subject.read(blob, case.version)
    except KafkaMetaError as e:
        problems.append(f"decoding the bytes fails: {e}")
    if decoded is not None:
        problems += [f"decoded bytes differ from the .json: {d}" for d in json_diff(expected, content(decoded))]

    if doc.get("decodeOnly"):
        return result
    try:
        encoded = subject.write(doc)
    except KafkaMetaError as e:
        problems.append(f"encoding the .json fails: {e}")
        return result
    for what, want, got in (("value" if subject.is_record else "message", blob.body, encoded.body),
                            ("key", blob.key, encoded.key)):
        if want == got:
            continue
        if want is None or got is None:
            problems.append(f"encoding the .json gives {'no' if got is None else 'a'} {what} where the case has "
                            f"{'none' if want is None else 'one'}")
            continue
        problems.append(f"encoding the .json gives other {what} bytes: {bytes_diff(want, got)}")
        try:
            again = subject.read(encoded, case.version)
        except KafkaMetaError as e:
            problems.append(f"  and those bytes do not decode: {e}")
            continue
        if decoded is not None:
            problems += [f"  field that differs: {d}" for d in json_diff(content(decoded), content(again))]
    return result


def verify_directory(root: str | Path, registry: Registry = REGISTRY) -> VerifyReport:
    cases, layout_problems = find_cases(Path(root))
    known = subjects(registry)
    results = []
    for case in cases:
        subject = known.get(case.subject)
        results.append(verify_case(case, subject, registry))
    return VerifyReport(results, layout_problems)
