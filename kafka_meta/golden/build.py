"""Build (or rebuild) the golden corpus:
``python -m kafka_meta.golden.build [--out DIR] [--shared DIR] [--vectors FILE ...]``.

For every subject the registry offers (each type, and each key + value record):

1. every vector of the shared golden set (bytes from Kafka's Java code and other clients), and of the
   vector files given (by default ``fixtures/lab/vectors.jsonl``: bytes Kafka 4.4.0's broker, Java clients
   and Kafka Streams wrote in the lab's recordings), whose type is registered becomes a case, kept only if
   it decodes and, unless it is decode-only, re-encodes to the same bytes;
2. every version with no such vector gets cases written by our own encoder from realistic values
   (:mod:`kafka_meta.golden.samples`): a typical message, the all-defaults message, and in flexible
   versions one carrying a tagged field no version knows; records also get a tombstone.

Cases this script wrote carry ``"generatedBy"``; a rebuild replaces them and removes those it no longer
writes, and never touches cases added by hand. Re-run it whenever types are added.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_meta.codec.registry import Registry
from kafka_meta.errors import KafkaMetaError
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.golden import samples
from kafka_meta.golden.layout import CaseRef, find_cases
from kafka_meta.golden.sources import Vector, shared_vectors, vector_file
from kafka_meta.golden.store import add_from_bytes
from kafka_meta.golden.subjects import CaseBytes, RecordSubject, Subject, decode_message, subjects
from kafka_meta.wire.composite import KStruct

MARKER = "kafka_meta.golden.build"
LAB_VECTORS = Path("fixtures/lab/vectors.jsonl")  # bytes from the lab's recordings of Kafka (docs/lab.md)
OWN_SOURCE = "kafka_meta's encoder (realistic values; no other implementation's bytes for this version)"


@dataclass
class BuildReport:
    written: list[CaseRef] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # vectors or versions that could not become cases
    removed: list[Path] = field(default_factory=list)
    unregistered: dict[str, int] = field(default_factory=dict)  # shared vectors whose type is not registered

    def summary(self) -> str:
        lines = [f"wrote {len(self.written)} cases, removed {len(self.removed)} stale files"]
        if self.unregistered:
            waiting = ", ".join(f"{k} ({v})" for k, v in sorted(self.unregistered.items()))
            lines.append(f"vectors waiting for types that are not registered: {waiting}")
        lines += [f"skipped: {s}" for s in self.skipped]
        return "\n".join(lines)


def _construct(fmt: Any, version: int) -> KStruct:
    build = getattr(fmt, "construct", None)
    if build is None:
        raise KafkaMetaError(f"{fmt.name} declares no construct tree, so no sample can be generated")
    return build(version)  # type: ignore[no-any-return]


def _samples(fmt: Any, version: int) -> list[tuple[str, bytes]]:
    con = _construct(fmt, version)
    typical = samples.typical(con, fmt.name)
    values = [("typical", typical), ("defaults", samples.defaults(con))]
    unknown = samples.with_unknown_tag(typical, con)
    if unknown is not None:
        values.append(("unknown-tagged-field", unknown))
    # a self-versioned message (Kafka Streams) carries its own version as its first field
    own = next((m for m in con.members if m.json == "version" and m.role == "inline"), None)
    out = []
    for label, value in values:
        if own is not None:
            value[own.py] = version
        out.append((label, fmt.encode(value, version)))
    return out


def _key(subject: RecordSubject) -> bytes:
    key_fmt = subject.key_fmt
    key_version = key_fmt.versions.high  # type: ignore[attr-defined]
    return key_fmt.encode(samples.typical(_construct(key_fmt, key_version), key_fmt.name), key_version)


def _generated(subject: Subject, layout: Any, version: int) -> list[tuple[str, CaseBytes]]:
    """Cases of one layout at one version, written by that layout's own encoder."""
    if isinstance(subject, RecordSubject):
        key = _key(subject)
        return [(label, CaseBytes(value, key)) for label, value in _samples(layout, version)]
    return [(label, CaseBytes(body)) for label, body in _samples(layout, version)]


def _route(vector: Vector, known: dict[str, Subject]) -> Subject | None:
    """The subject of a vector: the one it names, or for a record the one whose key reads its key bytes (the
    vector's name may be an older name of the record type)."""
    named = known.get(vector.subject)
    if vector.blob.key is None:
        return named
    candidates = [named] if isinstance(named, RecordSubject) else []
    candidates += [s for s in known.values() if isinstance(s, RecordSubject) and s is not named]
    for subject in candidates:
        try:
            decode_message(subject.key_fmt, vector.blob.key, None)
        except KafkaMetaError:
            continue
        return subject
    return named


def _add_vector(out: Path, subject: Subject, name: str, blob: CaseBytes, version: int | None,
                metadata: dict[str, Any]) -> CaseRef:
    """A vector marked decode-only (no writer produces it) is still checked both ways when it round-trips."""
    if metadata.get("decodeOnly"):
        try:
            return add_from_bytes(out, subject, name, blob, version, **{**metadata, "decodeOnly": None})
        except KafkaMetaError:
            pass
    return add_from_bytes(out, subject, name, blob, version, **metadata)


def _vectors(shared: Path | None, files: Sequence[Path]) -> Iterator[Vector]:
    """The shared set's vectors, then those of each file."""
    if shared is not None and shared.is_dir():
        yield from shared_vectors(shared)
    for path in files:
        yield from vector_file(path)


def build(out: Path, shared: Path | None, registry: Registry = REGISTRY, vectors: Sequence[Path] = ()
          ) -> BuildReport:
    """Write the corpus under ``out`` from the shared set under ``shared`` (None: none), the vector files
    ``vectors`` and, for the versions no vector covers, our encoder."""
    report = BuildReport()
    known = subjects(registry)
    covered: set[tuple[str, str | None, int | None]] = set()
    meta = {"generatedBy": MARKER}
    for vector in _vectors(shared, vectors):
        subject = _route(vector, known)
        if subject is None:
            report.unregistered[vector.subject] = report.unregistered.get(vector.subject, 0) + 1
            continue
        try:
            case = _add_vector(out, subject, vector.name, vector.blob, vector.version, {**vector.metadata, **meta})
        except KafkaMetaError as e:
            report.skipped.append(f"{vector.metadata.get('source')}: {e}")
            continue
        report.written.append(case)
        covered.add((case.subject, _variant_of(case), case.version))
    for name, subject in known.items():
        jobs: list[tuple[int | None, str, CaseBytes]] = []
        layouts = subject.layouts()
        labels = {label for label, _ in layouts}
        try:
            for variant, layout in layouts:
                prefix = f"generated-{variant}-" if len(labels) > 1 else "generated-"
                for version in layout.versions:
                    if (name, variant, version) not in covered:
                        cases = _generated(subject, layout, version)
                        jobs += [(version, prefix + label, blob) for label, blob in cases]
            if isinstance(subject, RecordSubject) and not any(c[0] == name and c[2] is None for c in covered):
                jobs.append((None, "generated-tombstone", CaseBytes(None, _key(subject))))
        except KafkaMetaError as e:
            report.skipped.append(f"{name}: {e}")
            continue
        for version, label, blob in jobs:
            try:
                report.written.append(add_from_bytes(out, subject, label, blob, version, source=OWN_SOURCE, **meta))
            except KafkaMetaError as e:
                report.skipped.append(f"{name} v{version} {label}: {e}")
    report.removed = _remove_stale(out, {c.id for c in report.written})
    return report


def _variant_of(case: CaseRef) -> str | None:
    doc = json.loads(case.json_path.read_text(encoding="utf-8"))
    return doc.get("variant") if isinstance(doc, dict) else None


def _remove_stale(out: Path, written: set[str]) -> list[Path]:
    removed = []
    cases, _ = find_cases(out)
    for case in cases:
        if case.id in written:
            continue
        try:
            doc = json.loads(case.json_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("generatedBy") == MARKER:
            for path in case.files():
                path.unlink()
                removed.append(path)
    for directory in sorted(out.glob("*/*"), reverse=True):
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
    for directory in sorted(out.glob("*")):
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
    return removed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kafka_meta.golden.build", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="fixtures/golden", help="the corpus directory (default: %(default)s)")
    parser.add_argument("--shared", default="../shared/golden",
                        help="vectors from other implementations (default: %(default)s; skipped if absent)")
    parser.add_argument("--vectors", action="append", type=Path,
                        help=f"a vector file of the same shape, repeatable (default: {LAB_VECTORS}, if present)")
    args = parser.parse_args(argv)
    shared = Path(args.shared)
    if not shared.is_dir():
        print(f"{shared} not found: no shared vectors", file=sys.stderr)
    files = args.vectors if args.vectors is not None else [p for p in [LAB_VECTORS] if p.is_file()]
    report = build(Path(args.out), shared if shared.is_dir() else None, vectors=files)
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
