"""Where golden cases live on disk.

::

    <root>/<TypeName>/v<N>/<case>.bin        the bytes, framed as the type frames them on the wire
    <root>/<TypeName>/v<N>/<case>.json       what they decode to (Kafka's field names)
    <root>/<Record>/v<N>/<case>.key.bin      a key + value record (``__consumer_offsets``): the key ...
    <root>/<Record>/v<N>/<case>.bin          ... and the value, at value version N
    <root>/<Record>/tombstone/<case>.key.bin a record whose value is null (no value file)
    <root>/<TypeName>/unversioned/<case>.bin  bytes no version of the type reads, which Kafka replaces by
                                              its default value (e.g. unreadable assignor user data)

``N`` is the version on the wire. A case is found through its ``.json``; a ``.bin`` without one is
reported, never silently ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

TOMBSTONE_DIR = "tombstone"
UNVERSIONED_DIR = "unversioned"
NO_VERSION_DIRS = (TOMBSTONE_DIR, UNVERSIONED_DIR)
_VERSION_DIR = re.compile(r"^v(\d+)$")
_CASE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class LayoutError(ValueError):
    """A path or name that does not fit the golden layout."""


@dataclass(frozen=True)
class CaseRef:
    """One golden case: its subject (type or record name), version directory and name."""

    root: Path
    subject: str
    version: int | None  # None: a tombstone, or unversioned bytes
    name: str
    no_version_dir: str = TOMBSTONE_DIR  # where a case without a version lives

    @property
    def directory(self) -> Path:
        return self.root / self.subject / self.version_dir

    @property
    def json_path(self) -> Path:
        return self.directory / f"{self.name}.json"

    @property
    def body_path(self) -> Path:
        return self.directory / f"{self.name}.bin"

    @property
    def key_path(self) -> Path:
        return self.directory / f"{self.name}.key.bin"

    @property
    def version_dir(self) -> str:
        return self.no_version_dir if self.version is None else f"v{self.version}"

    @property
    def id(self) -> str:
        return f"{self.subject}/{self.version_dir}/{self.name}"

    def files(self) -> list[Path]:
        return [p for p in (self.json_path, self.body_path, self.key_path) if p.exists()]


def check_case_name(name: str) -> str:
    if not _CASE_NAME.match(name) or name.endswith(".key"):
        raise LayoutError(f"case name {name!r} must be letters, digits, '.', '_' or '-' (and not end in .key)")
    return name


def find_cases(root: Path) -> tuple[list[CaseRef], list[str]]:
    """Every case under ``root`` (sorted), and the problems with files that are not part of a case."""
    cases: list[CaseRef] = []
    problems: list[str] = []
    if not root.is_dir():
        return [], [f"{root}: not a directory"]
    for subject_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        for vdir in sorted(p for p in subject_dir.iterdir() if p.is_dir()):
            match = _VERSION_DIR.match(vdir.name)
            if match is None and vdir.name not in NO_VERSION_DIRS:
                problems.append(f"{vdir}: a version directory must be named v<N>, {' or '.join(NO_VERSION_DIRS)}")
                continue
            version = int(match.group(1)) if match else None
            names = {p.name[: -len(".json")] for p in vdir.glob("*.json")}
            for name in sorted(names):
                cases.append(CaseRef(root, subject_dir.name, version, name, vdir.name if match is None
                                     else TOMBSTONE_DIR))
            for blob in sorted(vdir.glob("*.bin")):
                stem = blob.name[: -len(".key.bin")] if blob.name.endswith(".key.bin") else blob.stem
                if stem not in names:
                    problems.append(f"{blob}: no {stem}.json beside it, so it is not a golden case")
    return cases, problems

