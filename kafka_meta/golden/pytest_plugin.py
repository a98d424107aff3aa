"""pytest plugin: ``pytest --kafka-meta-golden DIR`` makes every golden case under DIR a test item.

Items are named ``<TypeName>/v<N>/<case>`` (so ``-k`` selects by type, version or case), and a failure
prints the field-level differences instead of a traceback. Registered through the ``pytest11`` entry
point, so installing kafka-meta is enough. ``--kafka-meta-specs PATH`` loads extra message specs first
(Kafka's own JSON files, for instance), exactly like ``kafka-meta --specs``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

OPTION = "--kafka-meta-golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kafka-meta", "kafka_meta golden files")
    group.addoption(OPTION, action="append", default=[], metavar="DIR",
                    help="check every golden case under DIR (<TypeName>/v<N>/<case>.bin + .json); repeatable")
    group.addoption("--kafka-meta-specs", action="append", default=[], metavar="PATH",
                    help="load message specs (Kafka's JSON dialect) before checking golden cases")


class GoldenCaseFailure(Exception):
    """A golden case that does not verify; its message is the field-level report."""


class GoldenLayoutItem(pytest.Item):
    """Files under a golden directory that do not form cases (a .bin without its .json, a bad folder name)."""

    def __init__(self, *, problems: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problems = problems

    def runtest(self) -> None:
        if self.problems:
            raise GoldenCaseFailure("\n".join(self.problems))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GoldenCaseFailure):
            return f"golden directory layout:\n{excinfo.value}"
        return super().repr_failure(excinfo, style)  # type: ignore[no-any-return]

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"golden layout {self.name}"


class GoldenItem(pytest.Item):
    def __init__(self, *, case: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        from kafka_meta.golden.verify import verify_case

        result = verify_case(self.case)
        if not result.ok:
            raise GoldenCaseFailure("\n".join(result.problems))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GoldenCaseFailure):
            files = ", ".join(p.name for p in self.case.files())
            return f"golden case {self.case.id} ({files}):\n{excinfo.value}"
        return super().repr_failure(excinfo, style)  # type: ignore[no-any-return]

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.case.json_path, None, f"golden {self.case.id}"


class GoldenDirectory(pytest.Collector):
    def __init__(self, *, root: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.root = root

    def collect(self) -> list[pytest.Item]:
        from kafka_meta.golden.layout import find_cases

        cases, problems = find_cases(self.root)
        items: list[pytest.Item] = [GoldenItem.from_parent(self, name=case.id, case=case) for case in cases]
        if problems or not cases:
            problems = problems or [f"{self.root}: no golden cases found"]
            items.append(GoldenLayoutItem.from_parent(self, name="(layout)", problems=problems))
        return items


def _load_specs(config: pytest.Config) -> None:
    paths = config.getoption("--kafka-meta-specs")
    if paths:
        import kafka_meta

        for path in paths:
            kafka_meta.load_specs(path, replace=True)


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselection, so those options select golden items too
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    directories = config.getoption(OPTION)
    if not directories:
        return
    _load_specs(config)
    for directory in directories:
        root = Path(directory).resolve()
        collector = GoldenDirectory.from_parent(session, name=directory, nodeid=directory, path=root, root=root)
        report = session.config.hook.pytest_make_collect_report(collector=collector)  # type: ignore[attr-defined]
        if report.failed:
            raise pytest.UsageError(f"cannot collect golden cases under {directory}: {report.longrepr}")
        session.config.hook.pytest_collectreport(report=report)  # counted in "collected N items"
        items.extend(x for x in report.result if isinstance(x, pytest.Item))
