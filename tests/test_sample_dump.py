"""The bundled __consumer_offsets sample is what its generator writes, and covers every record type."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kafka_meta.offsets import CoordinatorRecord, catalog, decode_record, encode_record

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "offsets" / "sample.jsonl"
GENERATOR = SAMPLE.with_name("make_sample.py")


def test_generator_reproduces_the_committed_sample(tmp_path):
    out = tmp_path / "sample.jsonl"
    result = subprocess.run([sys.executable, str(GENERATOR), str(out)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0 and "wrote" in result.stdout
    assert out.read_text() == SAMPLE.read_text()


def test_every_record_type_is_in_the_sample_and_round_trips():
    seen = set()
    for line in SAMPLE.read_text().splitlines():
        row = json.loads(line)
        key = bytes.fromhex(row["key"])
        value = None if row["value"] is None else bytes.fromhex(row["value"])
        record = decode_record(key, value, control=bool(row.get("control")))
        assert encode_record(record) == (key, value)
        if isinstance(record, CoordinatorRecord):
            seen.add(record.record_type)
    assert seen == set(catalog())


CAPTURE = SAMPLE.parents[1] / "captures" / "capture.jsonl"


def test_capture_generator_reproduces_the_committed_capture(tmp_path):
    out = tmp_path / "capture.jsonl"
    result = subprocess.run([sys.executable, str(CAPTURE.with_name("make_capture.py")), str(out)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert out.read_text() == CAPTURE.read_text()
