"""Decode and encode speed of a realistic Kafka Streams AssignmentInfo v11, against a hand-written floor.

Run: ``python bench/streams_bench.py``. Prints microseconds per record for each contender, measured in
this run on this machine, and each one's ratio to the hand-written ``struct.unpack_from`` decoder
(which skips the checks kafka_meta makes: lying counts, modified UTF-8, dictionary indices).
"""

from __future__ import annotations

import argparse
import sys
from io import BytesIO
from pathlib import Path

from construct import Container

sys.path.insert(0, str(Path(__file__).resolve().parent))

from streams_assignment import VALUE, VERSION, hand_decode
from timing import print_table

import kafka_meta as km

TYPE = "AssignmentInfo"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=2000, help="calls per timing (default 2000)")
    parser.add_argument("--repeat", type=int, default=5, help="timings per contender; the best is kept")
    args = parser.parse_args()

    fmt = km.get_format(TYPE)
    data = fmt.encode(VALUE, VERSION)
    plain, version = km.decode_plain(TYPE, data)
    message = km.decode(TYPE, data)
    assert version == VERSION and plain == VALUE == hand_decode(data) and km.encode(message) == data
    con = fmt.construct(VERSION)

    decoders = [
        ("hand-written struct.unpack_from", lambda: hand_decode(data)),
        ("kafka_meta bulk path (plain values)", lambda: km.decode_plain(TYPE, data)),
        ("kafka_meta.decode (typed models)", lambda: km.decode(TYPE, data)),
        ("construct, interpreted", lambda: con._parse(BytesIO(data), Container(), "")),
    ]
    encoders = [
        ("kafka_meta bulk path (plain values)", lambda: fmt.encode(plain, VERSION)),
        ("kafka_meta.encode (typed models)", lambda: km.encode(message)),
        ("construct, interpreted", lambda: con._build(plain, BytesIO(), Container(), "")),
    ]
    print(f"record: {TYPE} v{VERSION}, {len(data)} bytes")
    for title, rows, base_name in (("decode", decoders, "x hand-written"), ("encode", encoders, "x bulk path")):
        print_table(title, rows, base_name, args.number, args.repeat, max(args.number // 20, 20))
    return 0


if __name__ == "__main__":
    sys.exit(main())
