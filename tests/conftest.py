"""Shared fixtures: where ../shared lives, and the golden vectors in it."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SPEC_DIR = SHARED / "kafka-spec"
GOLDEN_DIR = SHARED / "golden"
SHARED_REASON = "../shared (Kafka's specs and golden vectors) is not beside the project"


def need_shared() -> None:
    if not SHARED.is_dir():
        pytest.skip(SHARED_REASON)


def golden_cases(relative: str) -> list[dict]:
    """Cases of one golden file; an empty list (the caller skips) when ../shared is absent."""
    path = GOLDEN_DIR / relative
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def case_id(case: dict) -> str:
    note = (case.get("note") or "").split(".")[0][:40]
    kind = case.get("type") or case.get("kind")
    return f"{kind}-v{case.get('version')}-{note}"


@pytest.fixture
def shared_dir() -> Path:
    need_shared()
    return SHARED


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the whole run (starting Spark takes seconds)."""
    pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")
    from kafka_meta.spark.session import local_session

    session = local_session("kafka-meta-tests", master="local[2]")
    yield session
    session.stop()


# --- the lab: Kafka's own jars, a real KRaft broker (tests marked `kafka`; docs/lab.md) ---------------------

LAB = ROOT / "lab"
KEPT_LOGS = ROOT / "lab-logs"
# set by .ci/run: there the lab must work, so a missing JVM or a failed build fails the kafka tests
REQUIRE_LAB = os.environ.get("KAFKA_META_REQUIRE_LAB") == "1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "kafka: runs Kafka's own code from the lab (a JVM; with the kafka_broker fixture, a real broker)"
    )
    config.addinivalue_line(
        "markers", "spark: runs Spark (local mode, a JVM); given to every test that uses the spark fixture"
    )
    config.addinivalue_line(
        "markers", "network: installs packages from the package index (pip), then runs tests in a process with them"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that uses the ``spark`` fixture (directly or through another fixture) is marked ``spark``, so
    the quick loop (README: ``-m "not kafka and not spark and not network"``) leaves out every JVM without a
    list to keep."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Whole test files to a worker, as ``--dist loadfile`` gives them (a file's module fixtures then run in one
    process), except that the modules using the lab's fresh recording go to one worker together, so that it
    is recorded once (lab_recordings.FRESH_RECORDING_MODULES)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from lab_recordings import FRESH_RECORDING_MODULES
    from xdist.scheduler import LoadFileScheduling

    class FilesAndTheFreshRecording(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = super()._split_scope(nodeid)
            return "the fresh recording's modules" if file.rsplit("/", 1)[-1] in FRESH_RECORDING_MODULES else file

    return FilesAndTheFreshRecording(config, log)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.failed and item.get_closest_marker("kafka") is not None:
        item.session.config.stash[_KAFKA_FAILED] = True


_KAFKA_FAILED = pytest.StashKey[bool]()


def _labkit():
    if str(LAB) not in sys.path:
        sys.path.insert(0, str(LAB))
    import labkit.broker
    import labkit.build

    return labkit


def _lab_unavailable(reason: str) -> None:
    if REQUIRE_LAB:
        pytest.fail(f"the lab is required here (KAFKA_META_REQUIRE_LAB=1) but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def lab():
    """The lab's Python side (labkit), with its Maven project built (once; cached across runs)."""
    for tool in ("java", "mvn"):
        if shutil.which(tool) is None:
            _lab_unavailable(f"{tool} is not installed (the lab needs Java 17 and Maven)")
    labkit = _labkit()
    try:
        labkit.build.ensure_built()
    except labkit.build.BuildError as error:
        _lab_unavailable(f"the lab's Maven build failed: {error}")
    return labkit


@pytest.fixture(scope="session")
def kafka_broker(lab, tmp_path_factory, request):
    """One KRaft broker for the whole test session; stopped at the end, whatever happens (a watchdog stops it
    if this process dies first). When a kafka test failed, the broker's own log is kept under lab-logs/."""
    directory = tmp_path_factory.mktemp("kafka-broker")
    broker = lab.broker.start(directory, owner_pid=os.getpid())
    try:
        yield broker
    finally:
        lab.broker.stop(directory)
        if request.config.stash.get(_KAFKA_FAILED, False):
            KEPT_LOGS.mkdir(exist_ok=True)
            kept = KEPT_LOGS / f"broker-{time.strftime('%Y%m%dT%H%M%S')}.log"
            shutil.copyfile(broker.log_file, kept)
            print(f"\nkafka tests failed: the broker's log is kept in {kept}", file=sys.stderr)
