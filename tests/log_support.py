"""Shared by the log tests: the committed segments, and batches rebuilt by kafka-python for damage cases."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import crc32c

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "fixtures" / "log" / "kafka-logs"
SAMPLE = ROOT / "fixtures" / "offsets" / "sample.jsonl"
SEGMENTS = sorted(LOGS.rglob("*.log"))


def sample_pairs() -> set[tuple[bytes, bytes | None]]:
    """(key, value) of every non-marker record of the offsets sample: the payloads of every fixture."""
    out = set()
    for line in SAMPLE.read_text().splitlines():
        obj = json.loads(line)
        if not obj.get("control"):
            out.add((bytes.fromhex(obj["key"]), None if obj["value"] is None else bytes.fromhex(obj["value"])))
    return out


def copy_partition(tmp: Path, partition: int) -> Path:
    """A copy of one fixture partition directory under ``tmp`` (a damage test edits the copy)."""
    target = tmp / f"__consumer_offsets-{partition}"
    shutil.copytree(LOGS / f"__consumer_offsets-{partition}", target)
    return target


def kafka_python_batch(codec: int, records: list[tuple[bytes | None, bytes | None]], offset: int = 0) -> bytes:
    """A magic 2 batch written by kafka-python, at ``offset``."""
    from kafka.record.memory_records import MemoryRecordsBuilder

    builder = MemoryRecordsBuilder(2, codec, batch_size=1 << 30)
    for key, value in records:
        assert builder.append(1767225600000, key, value) is not None
    builder.close()
    data = bytearray(builder.buffer())
    struct.pack_into(">q", data, 0, offset)
    return bytes(data)


def entries(data: bytes) -> list[tuple[int, int]]:
    """(position, size) of every entry of an undamaged segment."""
    out, pos = [], 0
    while pos < len(data):
        size = 12 + struct.unpack_from(">i", data, pos + 8)[0]
        out.append((pos, size))
        pos += size
    return out


def recrc(batch: bytearray, pos: int = 0) -> None:
    """Put the right CRC-32C in the magic 2 batch at ``pos`` (after a test changed its contents)."""
    size = 12 + struct.unpack_from(">i", batch, pos + 8)[0]
    struct.pack_into(">I", batch, pos + 17, crc32c.crc32c(bytes(batch[pos + 21:pos + size])))
