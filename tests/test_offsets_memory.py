"""What ``kafka-meta offsets`` keeps follows the groups, not the records: it prints each record as it reads it and
keeps only the counts of its summary line, so at a fixed number of groups and keys four times the records
leave its peak memory about where it was (tracemalloc, the verb run in this process, its output to
/dev/null), where the same run whose printed lines are kept (written to memory) needs about four times as much."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from test_explain_memory import peak
from test_report_memory import log_directory

from kafka_meta.cli.main import main


def offsets(logs: Path) -> Callable[[], None]:
    def run() -> None:
        assert main(["offsets", str(logs)]) == 0

    return run


def test_offsets_holds_the_same_at_four_times_the_records(tmp_path):
    peak(offsets(log_directory(tmp_path / "warm", 1)))  # the readers compiled, the catalogue built
    small = peak(offsets(log_directory(tmp_path, 40)))
    large = peak(offsets(log_directory(tmp_path, 160)))
    assert large < 1.25 * small + 64 * 1024, (small, large)


def test_keeping_the_printed_records_would_grow_with_them(tmp_path):
    """The measure can fail: the same run with its output kept in memory holds ~4x at 4x the records."""
    peak(offsets(log_directory(tmp_path / "warm", 1)), io.StringIO())
    small = peak(offsets(log_directory(tmp_path, 40)), io.StringIO())
    large = peak(offsets(log_directory(tmp_path, 160)), io.StringIO())
    assert large > 3 * small, (small, large)
