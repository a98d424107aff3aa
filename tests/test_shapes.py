"""The typed contract between the readers and the analysis: a field renamed on one side fails here.

The shapes are declared once, as TypedDicts: the exchange (:class:`kafka_meta.protocol.shapes.ExchangeRow`),
the ``__consumer_offsets`` row (:mod:`kafka_meta.log.rows`) and what report.json says of each round
(:mod:`kafka_meta.analysis.timeline`). A rename can happen in four places, and each is caught:

* in a producer (``Exchange.to_dict``, the log's rows, a ``to_json``): the keys of rows it really produces,
  from the bundled captures and logs, are compared with the declaration, and their values with its types;
* in the Spark face: the capture source's columns are compared with the declaration, name for name, in order;
* in a reader: every key the analysis reads from an exchange by a literal name (``ex["ts"]``,
  ``ex.get("ts")``), found by walking its modules' syntax trees, must be declared; the same for the keys
  the timeline reads from ``__consumer_offsets`` rows;
* anywhere, by the type checker: mypy checks the modules that produce and read the shapes (the list in
  pyproject.toml's ``[tool.mypy]``), where a key a TypedDict does not declare, or one a dict literal leaves
  out, is an error. It needs mypy (the ``test`` and ``dev`` extras); without it that test is skipped and the
  others still catch a rename at run time.

A key renamed in the declaration itself fails all four: the producers still write the old name, and the
readers still read it.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import tempfile
import types
import typing
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kafka_meta.analysis import causes, timeline
from kafka_meta.analysis.rounds import build_timelines
from kafka_meta.capture import read_capture
from kafka_meta.log import rows as log_rows
from kafka_meta.protocol.shapes import EXCHANGE_KEYS, ExchangeRow, ExchangeSource

ROOT = Path(__file__).resolve().parents[1]
CAPTURES = sorted((ROOT / "fixtures" / "captures" / "pcap").glob("*.pcap*"))
ANALYSIS = ROOT / "kafka_meta" / "analysis"


def keys(shape: Any) -> tuple[frozenset[str], frozenset[str]]:
    """(required keys, all keys) of a TypedDict."""
    return shape.__required_keys__, shape.__required_keys__ | shape.__optional_keys__


def fits(value: Any, hint: Any, where: str = "") -> list[str]:
    """Where ``value`` is not of the declared type ``hint`` (TypedDicts checked key by key, recursively)."""
    if hint is Any:
        return []
    if typing.is_typeddict(hint):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not an object"]
        return conforms(value, hint, where)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [fits(value, h, where) for h in typing.get_args(hint)]
        return [] if any(not o for o in options) else min(options, key=len)
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r} is not None"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, not a list"]
        (item,) = typing.get_args(hint)
        return [p for i, v in enumerate(value) for p in fits(v, item, f"{where}[{i}]")]
    if origin is dict:
        return [] if isinstance(value, dict) else [f"{where}: {type(value).__name__}, not an object"]
    if hint is float:
        hint = (int, float)  # a number read from JSON may have no fraction
    if isinstance(value, bool) and hint in (int, (int, float)):
        return [f"{where}: {value!r} is a bool"]
    return [] if isinstance(value, hint) else [f"{where}: {value!r} is not {hint}"]


def conforms(row: dict[str, Any], shape: Any, where: str = "") -> list[str]:
    """What keeps ``row`` from being a ``shape``: keys missing or undeclared, values of another type."""
    required, declared = keys(shape)
    problems = [f"{where}: {k} missing" for k in sorted(required - set(row))]
    problems += [f"{where}: {k} not declared in {shape.__name__}" for k in sorted(set(row) - declared)]
    hints = typing.get_type_hints(shape)
    for k in sorted(set(row) & declared):
        problems += fits(row[k], hints[k], f"{where}.{k}")
    return problems


# -- exchanges -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.name)
def test_captured_exchanges_are_exchange_rows(capture: Path) -> None:
    """Every exchange of every bundled capture, as ``to_dict`` gives it to the analysis, has exactly the
    declared keys, with values of the declared types."""
    rows = [ex.to_dict() for ex in read_capture(capture)]
    assert rows
    problems = [p for n, row in enumerate(rows) for p in conforms(dict(row), ExchangeRow, f"exchange {n}")]
    assert not problems, problems[:10]
    assert all(tuple(row) == EXCHANGE_KEYS for row in rows)  # the order the JSON Lines are written in


def test_spark_capture_rows_have_the_exchange_columns() -> None:
    """The capture data source's rows are exchanges too (``group_exchanges`` hands them to the analysis as
    they are): its columns are the declared keys, in order, and its ``source`` struct the declared source."""
    pytest.importorskip("pyspark")
    from kafka_meta.spark.sources.capture import SCHEMA, struct_schema

    for schema in (SCHEMA, struct_schema()):
        assert tuple(schema.fieldNames()) == EXCHANGE_KEYS
        assert set(schema["source"].dataType.fieldNames()) == keys(ExchangeSource)[1]


class _Reads(ast.NodeVisitor):
    """The literal keys read from names that hold a shape: ``x["key"]``, ``x.get("key")``, ``"key" in x``.

    Which names hold one is read from the module's own annotations: parameters and variables annotated with
    the shape, and the targets of loops and comprehensions over a name or attribute annotated as a container of
    it (``list[ExchangeRow]``, ``list[tuple[ExchangeRow, str]]``, ``enumerate`` of one)."""

    def __init__(self, shape: str, tree: ast.Module, extra: frozenset[str] = frozenset()) -> None:
        self.shape = shape
        self.annotated: dict[str, str] = {}  # name, or .attribute -> its annotation's text
        for node in ast.walk(tree):
            if isinstance(node, ast.arg) and node.annotation is not None:
                self.annotated[node.arg] = ast.unparse(node.annotation)
            elif isinstance(node, ast.AnnAssign):
                target = node.target
                name = target.id if isinstance(target, ast.Name) else "." + getattr(target, "attr", "")
                self.annotated[name] = ast.unparse(node.annotation)
        self.holders = {n for n, a in self.annotated.items() if a == shape} | set(extra)
        self.found: Counter[str] = Counter()

    def _holds(self, iterable: ast.expr) -> bool:
        name = iterable.id if isinstance(iterable, ast.Name) else "." + getattr(iterable, "attr", "")
        return self.shape in self.annotated.get(name, "")

    def _loop(self, target: ast.expr, iterable: ast.expr) -> None:
        if isinstance(iterable, ast.Call) and getattr(iterable.func, "id", None) == "enumerate" and iterable.args:
            if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                self._loop(target.elts[1], iterable.args[0])
            return
        if not self._holds(iterable):
            return
        if isinstance(target, ast.Tuple):  # list[tuple[Shape, ...]]: the shape comes first
            target = target.elts[0]
        if isinstance(target, ast.Name):
            self.holders.add(target.id)

    def visit_For(self, node: ast.For) -> None:
        self._loop(node.target, node.iter)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._loop(node.target, node.iter)
        self.generic_visit(node)

    def _key(self, holder: ast.expr, key: ast.expr) -> None:
        if isinstance(holder, ast.Name) and holder.id in self.holders and isinstance(key, ast.Constant) \
                and isinstance(key.value, str):
            self.found[key.value] += 1

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._key(node.value, node.slice)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "setdefault", "pop") and node.args:
            self._key(node.func.value, node.args[0])
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        if len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn):
            self._key(node.comparators[0], node.left)
        self.generic_visit(node)


def literal_reads(path: Path, shape: str, extra: frozenset[str] = frozenset()) -> Counter[str]:
    """The literal keys ``path`` reads from values of ``shape`` (see :class:`_Reads`). The names are the
    module's, not each function's (stricter, never looser); the module is visited twice, so a name bound by a
    loop further down counts everywhere."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    reads = _Reads(shape, tree, extra)
    reads.visit(tree)
    reads.found.clear()
    reads.visit(tree)
    return reads.found


def test_the_analysis_reads_only_declared_exchange_keys() -> None:
    """Every key the timeline's builders read from an exchange by name is one the contract declares; the
    scan is checked to see the reads it should (a scan that finds nothing would pass anything)."""
    found: Counter[str] = Counter()
    for path in sorted(ANALYSIS.glob("*.py")):
        reads = literal_reads(path, "ExchangeRow")
        undeclared = set(reads) - set(EXCHANGE_KEYS)
        assert not undeclared, f"{path.name} reads {sorted(undeclared)}, which ExchangeRow does not declare"
        found.update(reads)
    assert {"ts", "responseTs", "apiName", "request", "response", "source", "memberId", "errorCode",
            "clientId", "client", "broker", "generationId", "groupId", "stream"} <= set(found), found


def test_conform_brings_a_sparse_row_to_the_shape() -> None:
    """A JSON row may leave keys out; the analysis reads a row only once every declared key is there."""
    from kafka_meta.analysis import exchange_rows

    row = exchange_rows.conform(exchange_rows.clean({"ts": 1.5, "apiKey": 12, "apiName": "Heartbeat"}))
    assert tuple(sorted(row)) == tuple(sorted(EXCHANGE_KEYS)) and not conforms(dict(row), ExchangeRow)
    assert "g" in build_timelines([{"ts": 1.5, "apiKey": 11, "apiName": "JoinGroup", "groupId": "g"}])


# -- __consumer_offsets rows ---------------------------------------------------------------------------------


def test_log_rows_are_record_rows() -> None:
    """The log reader's rows (records and damage) have the declared columns, which the timeline accepts."""
    from kafka_meta.log import read_log

    assert tuple(log_rows.RecordRow.__annotations__) == log_rows.COLUMNS
    rows = list(read_log(ROOT / "fixtures" / "log" / "kafka-logs"))
    assert rows
    problems = [p for n, row in enumerate(rows) for p in conforms(dict(row), log_rows.RecordRow, f"row {n}")]
    assert not problems, problems[:10]
    assert keys(log_rows.RecordRow)[1] <= keys(log_rows.OffsetsRow)[1]


def test_the_timeline_reads_only_declared_record_keys() -> None:
    """What the timeline reads from a ``__consumer_offsets`` row is declared in OffsetsRow, and the rows every
    reader gives it (a log directory, JSON Lines) are OffsetsRows."""
    from kafka_meta.inputs import read

    reads = literal_reads(ANALYSIS / "generations.py", "OffsetsRow", extra=frozenset({"row"}))
    assert {"key", "value", "timestamp", "offset", "_file", "_line"} <= set(reads), reads
    assert not set(reads) - keys(log_rows.OffsetsRow)[1], sorted(set(reads) - keys(log_rows.OffsetsRow)[1])
    inputs = read([str(ROOT / "fixtures" / "log" / "kafka-logs"), str(ROOT / "fixtures" / "offsets" / "sample.jsonl")])
    assert inputs.offsets
    problems = [p for n, row in enumerate(inputs.offsets) for p in conforms(row, log_rows.OffsetsRow, f"row {n}")]
    assert not problems, problems[:10]


# -- report.json's rounds ------------------------------------------------------------------------------------


def test_rounds_written_to_json_have_the_declared_keys() -> None:
    """What report.json says of each group, round, member, cause and piece of evidence, from the timelines
    of the bundled captures, is what the declarations say."""
    exchanges = [ex for capture in CAPTURES for ex in read_capture(capture)]
    groups = build_timelines(exchanges)
    seen: Counter[str] = Counter()
    for tl in groups.values():
        assert not conforms(dict(tl.to_json()), timeline.GroupTimelineJson, tl.group)
        seen["group"] += 1
        for r in tl.rounds:
            problems = conforms(dict(r.to_json()), timeline.RoundJson, f"{tl.group} round {r.generation}")
            assert not problems, problems
            seen["round"] += 1
            seen["member"] += len(r.members)
            seen["cause"] += len(r.causes)
            seen["evidence"] += r.evidence is not None
    assert min(seen.values()) > 0, seen  # every nested shape was checked at least once
    assert not conforms(dict(timeline.Evidence(file="f", offset=3, line=1).to_json()), timeline.EvidenceJson)
    assert not conforms(dict(causes.Cause("join", "m").to_json()), causes.CauseJson)


# -- the type checker ----------------------------------------------------------------------------------------


def test_mypy_checks_the_shapes() -> None:
    """mypy over the modules pyproject.toml lists: a key renamed anywhere among them is an error there."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[dev]')")
    cache = Path(tempfile.gettempdir()) / "kafka-meta-mypy-cache"
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache)], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
