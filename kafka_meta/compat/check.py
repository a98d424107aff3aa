"""The matrix checked against real bytes: bytes written at W, decoded by a reader limited to R.

For each golden case of version W and each reader version R, the limited reader
(:func:`~kafka_meta.compat.readers.limited_reader`) decodes the bytes. What it gets is compared with what
the full reader gets: a decode error or a differing value of a field both have is a failure (a misread),
writer fields it does not have (holding values other than their defaults) are lost. The observation must
agree with the computed cell: a computed failure must show on at least one case, and no case may fail or
lose a field the cell does not name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_meta.codec.framing import Unframed
from kafka_meta.codec.probe import VersionProbe
from kafka_meta.codec.registry import Registry
from kafka_meta.compat.matrix import Matrix, Outcome, matrix_of, resolve
from kafka_meta.compat.readers import limited_reader, writer_layout
from kafka_meta.errors import KafkaMetaError
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.models.factory import to_plain
from kafka_meta.wire.codegen import UNKNOWN_KEY
from kafka_meta.wire.composite import KArray, KStruct, Marked


@dataclass
class Observation:
    """What one reader made of one case."""

    case: str
    failure: str | None = None
    lost: list[str] = field(default_factory=list)
    probed: bool = False


@dataclass
class CellCheck:
    writer: int
    reader: int
    expected: Outcome
    observations: list[Observation] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)


def _struct_of(con: Any) -> KStruct | None:
    if isinstance(con, Marked):
        return con.struct
    if isinstance(con, KArray) and isinstance(con.element, KStruct):
        return con.element
    return con if isinstance(con, KStruct) else None


def _compare(reader: KStruct, writer: KStruct, got: Any, want: Any, path: str, obs: Observation) -> None:
    """Walk the writer's fields: each must read back equal, or be one the reader does not have."""
    readable = {m.py: m for m in reader.members if m.role != "absent"}
    for m in writer.members:
        if m.role == "absent":
            continue
        here = f"{path}.{m.json}" if path else m.json
        r = readable.get(m.py)
        if r is None:
            if want.get(m.py) != m.default:
                obs.lost.append(f"{here} (tag {m.tag})" if m.role == "tagged" else here)
            continue
        a, b = got.get(m.py), want.get(m.py)
        ws, rs = _struct_of(m.con), _struct_of(r.con)
        if ws is not None and rs is not None and a is not None and b is not None:
            if isinstance(m.con, KArray):
                if len(a) != len(b):
                    obs.failure = obs.failure or f"{here}: {len(a)} elements read, {len(b)} written"
                    continue
                for x, y in zip(a, b, strict=True):
                    _compare(rs, ws, x, y, here + "[]", obs)
            else:
                _compare(rs, ws, a, b, here, obs)
        elif a != b:
            obs.failure = obs.failure or f"{here}: read {a!r}, written {b!r}"
    if writer.flexible and reader.flexible:
        known = {m.tag for m in writer.tagged}
        theirs = {t for t, _ in got.get(UNKNOWN_KEY) or []}
        extra = {t for t, _ in want.get(UNKNOWN_KEY) or []}
        if not (theirs - extra) <= known:
            obs.failure = obs.failure or f"{path or 'the message'}: unexpected unknown tags {sorted(theirs - extra)}"


def observe(fmt: Any, reader_fmt: Any, data: bytes, case: str, version: int) -> Observation:
    """Decode one case with the full reader and with a limited one (the version is handed over only to
    types that do not carry it on the wire)."""
    obs = Observation(case)
    given = version if isinstance(getattr(fmt, "framing", None), Unframed) else None
    want_msg = fmt.decode(data, version=given)
    try:
        got_msg = reader_fmt.decode(data, version=given)
    except KafkaMetaError as e:
        obs.failure = f"decode error: {e}"
        return obs
    if isinstance(got_msg, VersionProbe):  # read only as far as its version fields
        obs.probed = True
        return obs
    writer = writer_layout(fmt, want_msg.version)
    header = reader_fmt.header(data, given)
    _compare(writer_layout(reader_fmt, header.layout_version), writer, to_plain(got_msg), to_plain(want_msg), "", obs)
    return obs


def _agree(check: CellCheck, predicted_lost: list[str]) -> None:
    failures = [o for o in check.observations if o.failure]
    probed = [o for o in check.observations if o.probed]
    if (check.expected is Outcome.PROBING) != (len(probed) == len(check.observations)):
        if check.expected is Outcome.PROBING:
            check.disagreements += [f"computed probing, but {o.case} was read as a message" for o in
                                    check.observations if not o.probed and not o.failure]
        else:
            check.disagreements += [f"computed {check.expected.value}, but {o.case} was read as a version probe"
                                    for o in probed]
    if check.expected is Outcome.FAILS:
        if check.observations and not failures:
            check.disagreements.append("computed to fail, but every case read back correctly")
        return
    for o in failures:
        check.disagreements.append(f"computed {check.expected.value}, but {o.case} fails: {o.failure}")
    allowed = {p.split(" (tag")[0] for p in predicted_lost}
    for o in check.observations:
        for lost in o.lost:
            if lost.split(" (tag")[0] not in allowed:
                check.disagreements.append(f"{o.case} loses {lost}, which the cell does not name")


def check_matrix(m: Matrix, fmt: Any, cases: dict[int, list[tuple[str, bytes]]]) -> list[CellCheck]:
    """Check every cell whose writer version has cases (``{version: [(case id, bytes)]}``)."""
    out = []
    readers = {r: limited_reader(fmt, r, m.forward) for r in m.versions}
    for (w, r), cell in m.cells.items():
        check = CellCheck(w, r, cell.outcome)
        for name, data in cases.get(w, []):
            check.observations.append(observe(fmt, readers[r], data, name, w))
        if check.observations:
            _agree(check, cell.lost)
            out.append(check)
    return out


def _wanted(known: dict[str, Any], type_name: str) -> dict[str, tuple[str, str | None]]:
    """Which golden subjects hold bytes of ``type_name``, which part of their cases, and of which layout
    variant (None: any)."""
    from kafka_meta.golden.subjects import RecordSubject

    wanted: dict[str, tuple[str, str | None]] = {}
    for name, subject in known.items():
        layouts = subject.layouts()
        if isinstance(subject, RecordSubject) and subject.key_fmt.name == type_name:
            wanted[name] = ("key", None)
        for label, layout in layouts:
            if layout.name == type_name or (name == type_name and (label, layout) == layouts[0]):
                wanted[name] = ("value" if subject.is_record else "body", label)
                break
    return wanted


def _key_version(subject: Any, data: bytes) -> int:
    header = getattr(subject.key_fmt, "header", None)
    return header(data).wire_version if header is not None else 0  # type: ignore[no-any-return]


def golden_bytes(root: Path, type_name: str, registry: Registry = REGISTRY) -> dict[int, list[tuple[str, bytes]]]:
    """The bytes of a type in a golden directory, by version: its own cases (of its layout, when its type
    has several), or the values (keys) of the records whose value (key) it is."""
    from kafka_meta.golden.layout import find_cases
    from kafka_meta.golden.subjects import subjects
    from kafka_meta.golden.verify import load_document

    known = subjects(registry)
    wanted = _wanted(known, type_name)
    out: dict[int, list[tuple[str, bytes]]] = {}
    for case in find_cases(root)[0]:
        part, label = wanted.get(case.subject, (None, None))
        if part is None or case.version is None:
            continue
        if label is not None and load_document(case).get("variant") not in (None, label):
            continue
        path = case.key_path if part == "key" else case.body_path
        if path.exists():
            data = path.read_bytes()
            version = case.version if part != "key" else _key_version(known[case.subject], data)
            out.setdefault(version, []).append((case.id, data))
    return out


def verify(type_name: str, root: str | Path, registry: Registry = REGISTRY) -> tuple[Matrix, list[CellCheck]]:
    """The matrix of a type and its check against the golden cases under ``root``."""
    fmt = resolve(type_name, registry)
    m = matrix_of(fmt)
    return m, check_matrix(m, fmt, golden_bytes(Path(root), type_name, registry))
