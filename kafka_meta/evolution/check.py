"""Compare specs: two files, two directories (messages matched by name, coordinator records by record
type), or an ordered list of snapshots (``transitive``: every snapshot against every later one)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from pathlib import Path

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding, EvolutionReport, Level, Severity, finding
from kafka_meta.evolution.records import Record, is_old_convention_value, key_version_pairs, split_records
from kafka_meta.evolution.rules import run_rules
from kafka_meta.evolution.wire import compatible, message_layout
from kafka_meta.spec.loader import load_specs
from kafka_meta.spec.model import MessageSpec

WIRE, JSON, PY = Severity.WIRE, Severity.JSON_NAMES, Severity.PYTHON_API


def _identity(old: MessageSpec, new: MessageSpec) -> list[tuple[int, int]]:
    return [(v, v) for v in old.valid_versions if v in new.valid_versions]


def _tagged_only(spec: MessageSpec, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(spec.name, p) for p in patterns)


def compare_pair(old: MessageSpec, new: MessageSpec, subject: str | None = None, tagged_only: bool = False,
                 versions: list[tuple[int, int]] | None = None) -> list[EvolutionFinding]:
    """Every finding between two specs of one message."""
    renumbered = versions is not None
    cmp = Comparison(old, new, versions if versions is not None else _identity(old, new), subject or new.name,
                     tagged_only=tagged_only, renumbered=renumbered)
    out = run_rules(cmp)
    if old.name != new.name:
        out.append(cmp.finding("message-renamed", Level.RISKY, (JSON, PY), new.name,
                               f"{old.name} is now called {new.name}: the type name users decode by changes"))
    return out


def compare_specs(old: MessageSpec, new: MessageSpec, tagged_only: Sequence[str] = ()) -> list[EvolutionFinding]:
    """Two spec files of one message; recognises a coordinator key or value that moved to the apiKey
    convention."""
    out: list[EvolutionFinding] = []
    key_pairs = key_version_pairs(old, new)
    if key_pairs is not None:
        out.append(_convention(f"record {new.api_key} key", old, new))
        return out + compare_pair(old, new, f"record {new.api_key} key", versions=key_pairs)
    coordinator_value = new.type == "coordinator-value" or is_old_convention_value(new)
    if old.type == "data" and new.type == "coordinator-value":
        out.append(_convention(f"record {new.api_key} value", old, new))
    subject = f"record {new.api_key} value" if new.type == "coordinator-value" else new.name
    return out + compare_pair(old, new, subject, coordinator_value or _tagged_only(new, tagged_only))


def _convention(subject: str, old: MessageSpec, new: MessageSpec) -> EvolutionFinding:
    return finding("coordinator-convention", Level.INFO, WIRE, subject, new.name,
                   f"{old.name} moved from \"type\": \"{old.type}\" (validVersions {old.valid_versions}) to \"type\": "
                   f"\"{new.type}\" with apiKey {new.api_key} (validVersions {new.valid_versions}); the record type "
                   "still leads the key on the wire, so the bytes are unchanged")


def _not_compared(subject: str, name: str) -> EvolutionFinding:
    return finding("not-compared", Level.INFO, WIRE, subject, name,
                   f"{name} is not in the new snapshot, which holds only changed files: assumed unchanged")


def _records(old: dict[int, Record], new: dict[int, Record], partial: bool = False) -> list[EvolutionFinding]:
    out: list[EvolutionFinding] = []
    for number in sorted(set(old) | set(new)):
        a, b = old.get(number), new.get(number)
        subject = f"record {number}"
        if b is None:
            assert a is not None
            if partial:
                out.append(_not_compared(subject, a.name))
                continue
            out.append(finding("record-type-removed", Level.BREAKING, WIRE, subject, a.name,
                               f"record type {number} ({a.name}) is gone: readers of the new specs skip its records "
                               "as unknown"))
            continue
        if a is None:
            out.append(finding("record-type-added", Level.INFO, WIRE, subject, b.name,
                               f"record type {number} ({b.name}) is new"))
            continue
        out += _record(a, b)
    if new:
        known = set(new) | set(old)  # a gap the old specs filled is reported above
        old_top = max(old, default=-1)
        for gap in range(min(known), max(new)):
            if gap not in known and gap > old_top:  # a hole the old numbering already had is no change
                out.append(finding("record-type-removed", Level.RISKY, WIRE, f"record {gap}", f"record type {gap}",
                                   f"record type {gap} is not defined although later ones are: a retired number "
                                   "(readers of the new specs skip its records as unknown); it must never be reused"))
    return out


def _record(a: Record, b: Record) -> list[EvolutionFinding]:
    """One record type in both sets: the switch of convention, the key (at its record type's version),
    the value (always tagged-only)."""
    number = a.number
    out: list[EvolutionFinding] = []
    if not a.coordinator_convention and b.coordinator_convention:
        spec = b.key or b.value
        assert spec is not None
        out.append(finding("coordinator-convention", Level.INFO, WIRE, f"record {number}", spec.name,
                           f"record type {number} moved from {a.name}Key/Value as \"data\" specs (record type = key "
                           f"version {a.key_version}) to \"coordinator-key\"/\"coordinator-value\" specs with apiKey "
                           f"{number} (key version {b.key_version}); the key still starts with the int16 record type, "
                           "so the bytes are unchanged"))
    if a.key is not None and b.key is not None:
        pairs = [(a.key_version, b.key_version)]
        same_key = compatible(message_layout(a.key, a.key_version),  # type: ignore[arg-type]
                              message_layout(b.key, b.key_version))  # type: ignore[arg-type]
        if a.name != b.name and not same_key:
            out.append(finding("record-type-reused", Level.BREAKING, WIRE, f"record {number}", b.name,
                               f"record type {number} was {a.name} and is now {b.name} with another key layout: old "
                               "records of this type are misread"))
            return out
        out += compare_pair(a.key, b.key, f"record {number} key", versions=pairs)  # type: ignore[arg-type]
    if a.value is not None and b.value is not None:
        out += compare_pair(a.value, b.value, f"record {number} value", tagged_only=True)
    elif a.value is not None:
        out.append(finding("message-removed", Level.BREAKING, WIRE, f"record {number} value", a.value.name,
                           f"record type {number} has no value spec any more"))
    return out


def _messages(old: list[MessageSpec], new: list[MessageSpec], tagged_only: Sequence[str],
              partial: bool = False) -> list[EvolutionFinding]:
    out: list[EvolutionFinding] = []
    new_by_name = {s.name: s for s in new}
    new_by_key = {(s.type, s.api_key): s for s in new if s.api_key is not None}
    matched: set[str] = set()
    for a in old:
        b = new_by_name.get(a.name)
        if b is None and a.api_key is not None:
            b = new_by_key.get((a.type, a.api_key))
            if b is not None and b.name in {s.name for s in old}:
                out.append(finding("api-key-reused", Level.BREAKING, WIRE, a.name, a.name,
                                   f"{a.type} apiKey {a.api_key} was {a.name} and is now {b.name}, which also "
                                   "existed before"))
                b = None
        if b is None:
            out.append(_not_compared(a.name, a.name) if partial else finding(
                "message-removed", Level.BREAKING, WIRE, a.name, a.name, f"{a.name} is gone from the new specs"))
            continue
        matched.add(b.name)
        out += compare_specs(a, b, tagged_only)
    for b in new:
        if b.name not in matched:
            out.append(finding("message-added", Level.INFO, WIRE, b.name, b.name, f"{b.name} is new"))
    return out


def compare_sets(old: list[MessageSpec], new: list[MessageSpec], tagged_only: Sequence[str] = (),
                 partial: bool = False) -> list[EvolutionFinding]:
    """Two sets of specs (directories): messages matched by name (or apiKey), records by record type.
    ``partial``: the new set holds only what changed, so what it lacks is not compared."""
    old_records, old_rest = split_records(old)
    new_records, new_rest = split_records(new)
    return (_records(old_records, new_records, partial)
            + _messages(old_rest, new_rest, tagged_only, partial))


def load(path: Path, exclude: Path | None = None) -> list[MessageSpec]:
    """The specs of a file or directory, leaving out a directory nested inside it (a newer snapshot kept
    beside the older one, e.g. ``kafka-spec/newer``)."""
    if path.is_dir() and exclude is not None and exclude.resolve().is_relative_to(path.resolve()):
        keep = exclude.resolve()
        return [s for s in load_specs(path) if not Path(s.source).resolve().is_relative_to(keep)]
    return load_specs(path)


def compare_paths(old: str | Path, new: str | Path, tagged_only: Sequence[str] = (),
                  partial: bool = False) -> EvolutionReport:
    """Two spec files (compared as one message, whatever their names) or two directories."""
    report = EvolutionReport(str(old), str(new))
    old_p, new_p = Path(old), Path(new)
    if old_p.is_file() and new_p.is_file():
        report.add(compare_specs(load(old_p)[0], load(new_p)[0], tagged_only))
    else:
        report.add(compare_sets(load(old_p, exclude=new_p), load(new_p, exclude=old_p), tagged_only, partial))
    return report


def transitive(paths: Iterable[str | Path], tagged_only: Sequence[str] = (),
               partial: bool = False) -> list[EvolutionReport]:
    """Every snapshot against every later one (oldest first)."""
    items = list(paths)
    return [compare_paths(a, b, tagged_only, partial) for i, a in enumerate(items) for b in items[i + 1:]]
