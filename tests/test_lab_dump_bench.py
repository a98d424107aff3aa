"""bench/dump_log_bench.py at a tiny size: `kafka-meta log --decode` and Kafka's DumpLogSegments print the same
number of records for the same segments (magic 0, 1 and 2, every codec, transaction markers). No timing is
checked: the figures are the bench's to print."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.kafka

BENCH = Path(__file__).resolve().parents[1] / "bench" / "dump_log_bench.py"
ROW = re.compile(r"^(DumpLogSegments|kafka-meta log --decode)\s+(\d+)\s", re.MULTILINE)


def test_both_tools_print_every_record(lab):
    done = subprocess.run([sys.executable, str(BENCH), "--mb", "2", "--rounds", "1"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    records = {tool: int(n) for tool, n in ROW.findall(done.stdout)}
    assert set(records) == {"DumpLogSegments", "kafka-meta log --decode"}, done.stdout
    assert records["DumpLogSegments"] == records["kafka-meta log --decode"] > 20000, done.stdout
    assert done.stdout.rstrip().splitlines()[-1].startswith("dump: kafka-meta "), done.stdout
