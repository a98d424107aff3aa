"""Decode speed of flexible records whose tagged fields are present, against a hand-written floor.

A tagged field is read by its known type and then checked to take exactly its declared size; one that does
not fit is kept as an unknown field instead (see docs/offsets.md). This measures the common case, where
every size fits: an ``OffsetCommitValue`` v4 carrying its tag 0 ``topicId``, read by hand with
``struct.unpack_from`` (the floor, measured in this run) and through the bulk and typed paths.

Run: ``python bench/tagged_bench.py`` (prints microseconds per record and each one's ratio to the floor).
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import print_table

import kafka_meta as km

TYPE = "OffsetCommitValue"
TOPIC_ID = bytes(range(1, 17))
# version 4 | offset | leader epoch | compact metadata "md" | commit time | 1 tagged field: tag 0, 16 bytes, uuid
RECORD = (struct.pack(">hqi", 4, 42, 5) + b"\x03md" + struct.pack(">q", 1_700_000_000_000) + b"\x01\x00\x10"
          + TOPIC_ID)


def hand_decode(data: bytes) -> dict:
    """What a hand-written reader of exactly this layout does (one-byte varints only, no checks)."""
    _, offset, epoch = struct.unpack_from(">hqi", data, 0)
    n = data[14] - 1
    metadata = data[15:15 + n].decode()
    pos = 15 + n
    (commit,) = struct.unpack_from(">q", data, pos)
    pos += 8
    topic_id = b"\x00" * 16
    for _ in range(data[pos]):
        tag, size = data[pos + 1], data[pos + 2]
        pos += 3
        if tag == 0 and size == 16:
            topic_id = data[pos:pos + 16]
        pos += size
    return {"offset": offset, "leader_epoch": epoch, "metadata": metadata, "commit_timestamp": commit,
            "topic_id": topic_id}


def check_same_results() -> None:
    """Every contender must agree on the value before its speed means anything."""
    plain, version = km.decode_plain(TYPE, RECORD)
    assert version == 4 and plain["_unknown_tagged_fields"] == []
    assert hand_decode(RECORD) == {k: plain[k] for k in hand_decode(RECORD)}
    assert km.encode(km.decode(TYPE, RECORD)) == RECORD


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000, help="calls per timing (default 20000)")
    parser.add_argument("--repeat", type=int, default=5, help="timings per contender; the best is kept")
    args = parser.parse_args()
    check_same_results()
    print(f"record: {TYPE} v4 with its tagged topicId, {len(RECORD)} bytes")
    rows = [
        ("hand-written struct.unpack_from", lambda: hand_decode(RECORD)),
        ("kafka_meta bulk path (plain values)", lambda: km.decode_plain(TYPE, RECORD)),
        ("kafka_meta.decode (typed models)", lambda: km.decode(TYPE, RECORD)),
    ]
    print_table("decode", rows, "x hand-written", args.number, args.repeat, max(args.number // 20, 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
