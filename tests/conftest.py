"""Shared fixtures: where ../shared lives, and the golden vectors in it."""

from __future__ import annotations

import json
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
